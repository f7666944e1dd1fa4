import { sql } from "drizzle-orm";
import { bootRuntime } from "../lib/bootstrap";
import { customers, mailMessageCountDeltas, mailMessageCounts, mailMessages, mailSettings } from "../lib/db/schema";
import { benchDataDir } from "./data-dir";
import { benchPostgres } from "./postgres";

/**
 * The operator's overview (`GET /admin/v1/overview`) on a PostgreSQL server: 20 customers, 200,000 messages
 * over the last 40 days (inserted, then 3 % moved to bounced and 0.1 % to complained by updates, so the
 * database's count triggers run as in service), a few running jobs. Prints the first request (it folds the
 * triggers' deltas into the hourly counts) and p50/p95 of the request, over HTTP through the admin app,
 * for today, 7 and 30 days, each after 10 untimed requests. Target: p95 ≤ 300 ms. `node --import tsx bench/overview.ts`.
 */
const MESSAGES = 200_000;
const CUSTOMERS = 20;
const DAYS = 40;
const RUNS = 30;
const WARM_UP = 10;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;

async function main(): Promise<void> {
  const postgres = await benchPostgres();
  const runtime = await bootRuntime({
    ...process.env,
    DATABASE_URL: await postgres.database("bench_overview"),
    DATA_DIR: benchDataDir("bench-overview-"),
    LOG_LEVEL: "warn",
  });
  try {
    const { db } = runtime.deps;
    const now = runtime.deps.clock.now();
    const made = await db
      .insert(customers)
      .values(Array.from({ length: CUSTOMERS }, (_, i) => ({ name: `Overview bench ${i}` })))
      .returning({ id: customers.id });
    await db.insert(mailSettings).values(made.map((c) => ({ customerId: c.id })));
    const ids = made.map((c) => c.id);
    const started = performance.now();
    const m = mailMessages;
    await db.execute(sql`
      insert into ${m} (customer_id, kind, mode, status, template_id, subject, recipient_hash, created_at, accepted_at)
      select (${sql.param(ids)}::uuid[])[1 + i % ${CUSTOMERS}], 'newsletter', 'live', 'delivered', gen_random_uuid(), 'Bench', sha256(int4send(i)), t, t
      from generate_series(1, ${MESSAGES}) as i, lateral (select ${now.toISOString()}::timestamptz - (i::float8 / ${MESSAGES} * ${DAYS} * interval '1 day') as t) as at`);
    await db.execute(
      sql`update ${m} set status = 'bounced' where recipient_hash in (select sha256(int4send(i)) from generate_series(1, ${MESSAGES}, 33) as i)`,
    );
    await db.execute(
      sql`update ${m} set status = 'complained' where recipient_hash in (select sha256(int4send(i)) from generate_series(2, ${MESSAGES}, 1000) as i)`,
    );
    await db.execute(sql`vacuum analyze ${m}`);
    const [deltas] = await db.select({ n: sql<number>`count(*)::int` }).from(mailMessageCountDeltas);
    console.log(
      `overview: ${MESSAGES} messages of ${CUSTOMERS} customers written in ${Math.round(performance.now() - started)} ms (${deltas?.n ?? 0} count deltas from the triggers)`,
    );

    const token = runtime.deps.adminToken;
    const request = async (since: Date) => {
      const t0 = performance.now();
      const response = await runtime.fetch(
        new Request(`http://bench.local/admin/v1/overview?since=${encodeURIComponent(since.toISOString())}`, { headers: { authorization: `Bearer ${token}` } }),
      );
      const body = (await response.json()) as { data?: { mail: { totals: Record<string, number> } } };
      if (response.status !== 200 || !body.data) throw new Error(`overview answered ${response.status}`);
      return { ms: performance.now() - t0, totals: body.data.mail.totals };
    };
    const first = await request(new Date(now.getTime() - 30 * 86_400_000));
    console.log(`overview: first request (folds the deltas) ${first.ms.toFixed(1)} ms`);
    // The fold just wrote the hourly counts: analysed now, as autovacuum would soon, rather than while the
    // first period is being timed.
    await db.execute(sql`vacuum analyze ${mailMessageCounts}, ${mailMessageCountDeltas}`);
    for (const [label, days] of [
      ["today", 0],
      ["7 days", 7],
      ["30 days", 30],
    ] as const) {
      const since = days === 0 ? new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())) : new Date(now.getTime() - days * 86_400_000);
      // Untimed requests first, so each period is timed warm (compiled code, the server's plans and pages
      // cached) and the order of the periods does not decide their figures.
      for (let run = 0; run < WARM_UP; run++) await request(since);
      const times: number[] = [];
      let totals: Record<string, number> = {};
      for (let run = 0; run < RUNS; run++) {
        const r = await request(since);
        times.push(r.ms);
        totals = r.totals;
      }
      times.sort((a, b) => a - b);
      console.log(
        `overview, ${label}: p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms (delivered ${totals.delivered}, bounced ${totals.bounced}, complained ${totals.complained})`,
      );
    }
  } finally {
    await runtime.close();
    postgres.stop();
  }
}

await main();
