import { benchDataDir } from "./data-dir";
import { sql } from "drizzle-orm";
import { bootRuntime } from "../lib/bootstrap";
import { customers, mailMessages, mailSendJobs } from "../lib/db/schema";
import { queryRows } from "../lib/db/sql";
import { mailStats, statsStatement, type MailStatsInput } from "../lib/mail/messages/stats";

/**
 * The operator's mail time series (`GET /admin/v1/customers/{id}/mail/stats`) on the embedded engine: two
 * customers with 200,000 messages each over the last 40 days (about 97 % delivered, 2 % bounced, 0.1 %
 * complaints, 30 % opened, 5 % clicked), one of them with a 50,000-message job. Prints the plan (customer-wide:
 * the hourly counts the triggers keep, `mail_message_series_counts`, never a scan of the messages) and p50/p95
 * of the service call for 31 days of hours, a year of days and the job.
 */
const MESSAGES = 200_000;
const JOB = 50_000;
const DAYS = 40;
const RUNS = 15;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;

export async function benchMailStats(): Promise<void> {
  const runtime = await bootRuntime({ ...process.env, DATA_DIR: benchDataDir("bench-mail-stats-"), LOG_LEVEL: "warn" });
  try {
    const { db } = runtime.deps;
    const now = runtime.deps.clock.now();
    const [own, other] = await db
      .insert(customers)
      .values([{ name: "Stats bench" }, { name: "Stats bench neighbour" }])
      .returning({ id: customers.id });
    if (!own || !other) throw new Error("customer insert failed");
    const [job] = await db
      .insert(mailSendJobs)
      .values({ customerId: own.id, mode: "live", templateId: crypto.randomUUID(), status: "completed", from: { email: "news@example.com", name: "Bench" } })
      .returning({ id: mailSendJobs.id });
    if (!job) throw new Error("job insert failed");
    const started = performance.now();
    for (const customer of [own, other]) {
      const m = mailMessages;
      await db.execute(sql`
        insert into ${m} (customer_id, kind, mode, status, template_id, send_job_id, subject, recipient_hash, created_at, accepted_at, delivered_at, bounced_at, complained_at, first_opened_at, first_clicked_at)
        select ${customer.id}::uuid, 'newsletter', 'live', 'delivered', gen_random_uuid(),
               case when ${customer.id}::uuid = ${own.id}::uuid and i <= ${JOB} then ${job.id}::uuid end,
               'Bench', sha256(int4send(i)), t, t, case when i % 50 <> 0 then t + interval '4 seconds' end, case when i % 50 = 0 then t + interval '1 minute' end,
               case when i % 1000 = 1 then t + interval '2 hours' end, case when i % 10 < 3 then t + interval '3 hours' end, case when i % 20 = 0 then t + interval '3 hours 5 seconds' end
        from generate_series(1, ${MESSAGES}) as i, lateral (select ${now.toISOString()}::timestamptz - (i::float8 / ${MESSAGES} * ${DAYS} * interval '1 day') as t) as at`);
    }
    // The steady state autovacuum keeps: the visibility map set.
    await db.execute(sql`vacuum analyze ${mailMessages}`);
    console.log(`mail stats: ${2 * MESSAGES} messages inserted in ${Math.round(performance.now() - started)} ms`);

    const cases: [string, MailStatsInput][] = [
      ["31 days of hours", { granularity: "hour", from: new Date(now.getTime() - 31 * 86_400_000 + 3_600_000) }],
      ["366 days of days", { granularity: "day", from: new Date(now.getTime() - 365 * 86_400_000) }],
      ["a 50,000-message job, 31 days of hours", { granularity: "hour", from: new Date(now.getTime() - 31 * 86_400_000 + 3_600_000), sendJobId: job.id }],
    ];
    for (const [label, input] of cases) {
      const times: number[] = [];
      let accepted = 0;
      for (let run = 0; run < RUNS; run++) {
        const t0 = performance.now();
        const stats = await mailStats(db, own.id, input, now);
        times.push(performance.now() - t0);
        accepted = stats.totals.accepted;
      }
      times.sort((a, b) => a - b);
      console.log(
        `mail stats, ${label}: p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms (${accepted} accepted in range)`,
      );
    }
    // The plans as they run: customer-wide, index-only ranges of the (customer_id, <time>) indexes; the job, its index.
    for (const [label, input] of cases.slice(1)) {
      const to = new Date(Math.ceil(now.getTime() / 86_400_000) * 86_400_000);
      const range = { from: new Date(to.getTime() - 31 * 86_400_000), to };
      const plan = await queryRows<{ "QUERY PLAN": string }>(db, sql`explain ${statsStatement(own.id, input, range)}`);
      const scans = plan.map((row) => row["QUERY PLAN"].trim()).filter((line) => /Scan/.test(line));
      console.log(`mail stats, plan (${label}):\n  ${[...new Set(scans.map((line) => line.replace(/\s+\(cost.*$/, "").replace(/^->\s*/, "")))].join("\n  ")}`);
    }
  } finally {
    await runtime.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchMailStats();
