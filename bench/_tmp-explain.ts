import { PGlite } from "@electric-sql/pglite";
const db = new PGlite(process.argv[2]!);
const c = await db.query<{ customer_id: string; n: number }>("select customer_id, count(*)::int n from ads_insight_snapshots group by 1 order by 2 desc limit 1");
const cust = c.rows[0]!.customer_id; console.log(c.rows[0]);
const q = `select ad_id, ad_set_id, value1, sum(impressions), max(reach), sum(clicks), sum(spend_minor), sum(conversions), sum(conversion_value_minor) from ads_insight_snapshots where customer_id = '${cust}' and dimension = 'gender' and date between current_date - 90 and current_date group by 1,2,3`;
await db.exec("set work_mem = '64MB'");
for (let i = 0; i < 3; i++) { const t = performance.now(); const r = await db.query(q); console.log(r.rows.length, (performance.now() - t).toFixed(1), "ms"); }
const e = await db.query<{ "QUERY PLAN": string }>("explain analyze " + q); console.log(e.rows.map((r) => r["QUERY PLAN"]).join("\n"));
await db.close();
