import { benchDataDir } from "./data-dir";
import { performance } from "node:perf_hooks";
import { getHeapSpaceStatistics } from "node:v8";
import { and, eq, sql } from "drizzle-orm";
import { createCustomer } from "../lib/admin/customers";
import { bootRuntime, type Runtime } from "../lib/bootstrap";
import { issueApiKey } from "../lib/core/keys";
import { findCronJob } from "../lib/cron";
import { mailSendJobs, mailTemplates } from "../lib/db/schema";
import { demoBlocks } from "../lib/mail/blocks/library";
import { pruneMessageHistory } from "../lib/mail/events/prune";
import { MESSAGE_HISTORY_DAYS } from "../lib/mail/messages/service";
import { DEMO_TRANSACTIONAL_TEMPLATE, seedDemoMail } from "../lib/mail/seed";
import type { BenchPostgres } from "./postgres";
import { processCpuMs, registerSimulatorServer, startBenchSimulators } from "./send-jobs";
import { formatSendWindows, recordSendWindows } from "./send-windows";

/**
 * A 100,000-recipient job and then a 1,000,000-recipient job (`SCALE_SIZES`, comma-separated)
 * on a PostgreSQL server, in one run, one customer, through the API (calls of 5,000), sent to completion
 * against the Postmark simulator in its own process (zero latency, webhooks off). Per job: ingest and send
 * rates, total time, the service's CPU and peak RSS during the job, the database's size (the tables a job
 * writes, after VACUUM) per 100,000 recipients, and the simulator's count of what it received and of
 * duplicates; then the size once the history retention has run. The template is a short newsletter (heading
 * and text, ~4 KB of HTML): the 33 KB one of `bench/send-jobs.ts` would move 35 GB through the simulator for
 * 1M, which measures the simulator's JSON parsing, not our engine (that bench covers the payload).
 */

const PER_CALL = 5_000;
/** The send rate's window (SCALE_WINDOW_SECONDS, 10 by default). */
const WINDOW_MS = Number(process.env.SCALE_WINDOW_SECONDS ?? 10) * 1000;
/** Every wait of this bench ends by then (SCALE_DEADLINE_MINUTES, 120 by default). */
const DEADLINE_MS = Number(process.env.SCALE_DEADLINE_MINUTES ?? 120) * 60_000;
/** The tables a send job writes (rows, indexes and TOAST: pg_total_relation_size). */
const TABLES = ["mail_messages", "mail_message_events", "mail_send_jobs", "mail_send_job_chunks", "mail_send_job_address_sets", "mail_send_job_bulk_requests"];

type Sizes = Record<string, number>;
type JobFigures = {
  recipients: number;
  ingestMs: number;
  sendMs: number;
  cpuMs: number;
  rssBefore: number;
  rssPeak: number;
  /** Memory at the job's boundaries, and at its RSS peak. */
  marks: [string, Memory][];
  simulatorCpuMs: number | null;
  received: number;
  duplicates: number;
  bytes: number;
  sizes: Sizes;
  /** The send's rate and engine steps per window, as printed lines. */
  windows: string[];
};

/** The process's memory at one moment: RSS and what V8 and Node account for inside it. */
type Memory = { rss: number; heapUsed: number; heapTotal: number; external: number; arrayBuffers: number; oldSpace: number; largeObjects: number };

function memory(): Memory {
  const usage = process.memoryUsage();
  const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_size]));
  return { ...usage, oldSpace: spaces.old_space ?? 0, largeObjects: spaces.large_object_space ?? 0 };
}

/** Samples RSS every 20 ms and keeps the breakdown of the highest sample. */
function samplePeak(): { peak: () => Memory; stop: () => void } {
  let peak = memory();
  const sample = () => {
    const rss = process.memoryUsage.rss();
    if (rss > peak.rss) peak = memory();
  };
  const timer = setInterval(sample, 20);
  return {
    peak: () => {
      sample();
      return peak;
    },
    stop: () => clearInterval(timer),
  };
}

const breakdown = (m: Memory) =>
  `rss ${mb(m.rss)} (heap ${mb(m.heapUsed)} used of ${mb(m.heapTotal)}: old ${mb(m.oldSpace)}, large ${mb(m.largeObjects)}; external ${mb(m.external)}, array buffers ${mb(m.arrayBuffers)})`;

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const n = (value: number) => Math.round(value).toLocaleString("en");

async function rows<T>(runtime: Runtime, query: ReturnType<typeof sql>): Promise<T[]> {
  const result = await runtime.deps.db.execute(query);
  return (Array.isArray(result) ? result : (result as unknown as { rows: T[] }).rows) as T[];
}

async function tableSizes(runtime: Runtime): Promise<Sizes> {
  await runtime.deps.db.execute(sql.raw(`vacuum analyze ${TABLES.join(", ")}`));
  const found = await rows<{ name: string; bytes: string }>(
    runtime,
    sql.raw(`select relname as name, pg_total_relation_size(oid)::text as bytes from pg_class where relname in (${TABLES.map((t) => `'${t}'`).join(", ")})`),
  );
  return Object.fromEntries(found.map((r) => [r.name, Number(r.bytes)]));
}

const total = (sizes: Sizes) => Object.values(sizes).reduce((a, b) => a + b, 0);

async function simulatorStats(url: string) {
  const stats = (await (await fetch(`${url}/__sim/stats`)).json()) as { received: number; duplicates_by_metadata_message_id: Record<string, number> };
  return { received: stats.received, duplicates: Object.keys(stats.duplicates_by_metadata_message_id).length };
}

async function call(runtime: Runtime, method: string, path: string, key: string, body?: string): Promise<Record<string, unknown>> {
  const response = await runtime.app.root.request(path, { method, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body });
  const json = (await response.json()) as { data: Record<string, unknown> };
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json).slice(0, 300)}`);
  return json.data;
}

export async function benchMillion(postgres: BenchPostgres): Promise<void> {
  const sizes = (process.env.SCALE_SIZES ?? "100000,1000000").split(",").map(Number);
  const url = await postgres.database("bench_million");
  const simulators = await startBenchSimulators();
  const urls = JSON.parse(simulators.line) as { postmark: string; graph: string };
  const runtime = await bootRuntime({
    ...process.env,
    DATABASE_URL: url,
    DATA_DIR: benchDataDir("bench-million-"),
    POSTMARK_API_URL: urls.postmark,
    GRAPH_API_URL: urls.graph,
    RATE_LIMIT_PER_MINUTE: "100000000",
    LOG_LEVEL: "warn",
  });
  const benchStarted = performance.now();
  const remaining = () => DEADLINE_MS - (performance.now() - benchStarted);
  try {
    const { db } = runtime.deps;
    const largest = Math.max(...sizes);
    const sum = sizes.reduce((a, b) => a + b, 0);
    const customer = await createCustomer(
      db,
      { name: "Scale million", mail: { mode: "live", monthly_limit: sum + 1000, max_per_job: largest } },
      runtime.deps.clock.now(),
    );
    await seedDemoMail(runtime.deps, customer.id);
    await registerSimulatorServer(runtime, customer.id, urls.postmark);
    const { key } = await issueApiKey(db, { customerId: customer.id, service: "mail", scope: "full" });
    const block = (slug: string) => demoBlocks.find((b) => b.slug === slug)?.id ?? "";
    const template = await call(
      runtime,
      "POST",
      "/mail/v1/templates",
      key,
      JSON.stringify({
        name: "Scale million",
        subject: "News for {{first_name}}",
        blocks: [
          { block_id: block("heading"), values: { title: "Hello {{first_name}}" } },
          { block_id: block("text"), values: { body: "Spring is here." } },
        ],
      }),
    );

    const [order] = await db
      .select({ id: mailTemplates.id })
      .from(mailTemplates)
      .where(and(eq(mailTemplates.customerId, customer.id), eq(mailTemplates.name, DEMO_TRANSACTIONAL_TEMPLATE)));
    let probes = 0;
    const figures: JobFigures[] = [];
    let sizesBefore = await tableSizes(runtime);
    // Evidence only (NODE_OPTIONS=--expose-gc): what of the heap after the ingest and after the send is
    // garbage not yet collected. It changes what follows, so the figures of such a run are not the bench's.
    const collect = (globalThis as { gc?: () => void }).gc;
    for (const [index, recipients] of sizes.entries()) {
      const job = await call(runtime, "POST", "/mail/v1/send-jobs", key, JSON.stringify({ template_id: template.id }));
      const jobId = String(job.id);
      const simBefore = await simulatorStats(urls.postmark);
      const probesBefore = probes;
      const simCpuBefore = processCpuMs(simulators.process.pid);
      const cpuBefore = process.cpuUsage();
      const before = memory();
      const rssBefore = before.rss;
      const marks: [string, Memory][] = [["before ingest", before]];
      const rss = samplePeak();
      let started = performance.now();
      for (let from = 0; from < recipients; from += PER_CALL) {
        if (remaining() <= 0) throw new Error(`deadline passed while adding recipients (${from} of ${recipients})`);
        const body = JSON.stringify({
          recipients: Array.from({ length: Math.min(PER_CALL, recipients - from) }, (_, i) => ({
            email: `reader${from + i}@job${index}.example.com`,
            data: { first_name: `Reader ${from + i}` },
          })),
        });
        await call(runtime, "POST", `/mail/v1/send-jobs/${jobId}/recipients`, key, body);
      }
      const ingestMs = performance.now() - started;
      marks.push(["after ingest", memory()]);
      if (collect) {
        collect();
        marks.push(["after ingest and a full GC (--expose-gc)", memory()]);
      }
      if (recipients === largest) await printClaimPlan(runtime, jobId);
      started = performance.now();
      const windows = recordSendWindows(WINDOW_MS);
      await call(runtime, "POST", `/mail/v1/send-jobs/${jobId}/start`, key);
      let done: typeof mailSendJobs.$inferSelect | undefined;
      let lastProbe = 0;
      let inDoubt = 0;
      for (;;) {
        [done] = await db.select().from(mailSendJobs).where(eq(mailSendJobs.id, jobId));
        if (done?.status !== "running") break;
        if (remaining() <= 0) throw new Error(`deadline passed while sending (${done.accepted} of ${recipients} accepted)`);
        // Only messages in doubt left (a provider call without an answer): reconciliation needs Postmark's
        // search shown current past the call, i.e. newer mail on the server. Production has other traffic;
        // here a transactional mail every 15 s stands for it, and the sweep cron runs as it would each minute.
        inDoubt = Math.max(inDoubt, done.unknown);
        if (done.pending === 0 && done.unknown > 0 && performance.now() - lastProbe > 15_000) {
          lastProbe = performance.now();
          probes++;
          await call(
            runtime,
            "POST",
            `/mail/v1/templates/${order?.id}/send`,
            key,
            JSON.stringify({ to: "probe@example.com", params: { order_number: "P", order_url: "https://shop.example.com/p" } }),
          );
          await findCronJob("send-jobs-sweep")?.run(runtime.app.cronDeps);
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const sendMs = performance.now() - started;
      const windowLines = formatSendWindows(`${n(recipients)} recipients`, WINDOW_MS, windows.stop());
      const cpu = process.cpuUsage(cpuBefore);
      const simCpuAfter = processCpuMs(simulators.process.pid);
      rss.stop();
      marks.push(["after send", memory()], ["at peak", rss.peak()]);
      if (collect) {
        collect();
        marks.push(["after a full GC (--expose-gc)", memory()]);
      }
      if (done?.status !== "completed" || done.accepted !== recipients)
        throw new Error(`the ${recipients} job ended ${done?.status} with ${done?.accepted} accepted`);
      const sim = await simulatorStats(urls.postmark);
      const probesDuring = probes - probesBefore;
      if (probesDuring > 0)
        console.log(`${recipients} job: ${inDoubt} messages were left in doubt after the send; ${probesDuring} probe mails and sweeps until settled`);
      const sizesAfter = await tableSizes(runtime);
      const grown = Object.fromEntries(TABLES.map((t) => [t, (sizesAfter[t] ?? 0) - (sizesBefore[t] ?? 0)]));
      sizesBefore = sizesAfter;
      figures.push({
        recipients,
        ingestMs,
        sendMs,
        cpuMs: (cpu.user + cpu.system) / 1000,
        rssBefore,
        rssPeak: rss.peak().rss,
        marks,
        simulatorCpuMs: simCpuBefore === null || simCpuAfter === null ? null : simCpuAfter - simCpuBefore,
        received: sim.received - simBefore.received - probesDuring,
        duplicates: sim.duplicates,
        bytes: total(grown),
        sizes: grown,
        windows: windowLines,
      });
    }

    // Retention: the history (events) older than 90 days goes, the message rows (state) stay. The clock is
    // moved past the window; each run is bounded (100 × 5,000 events), so it runs until one deletes nothing.
    const later = new Date(Date.now() + (MESSAGE_HISTORY_DAYS + 1) * 86_400_000);
    let pruned = 0;
    for (let run = 0; run < 20 && remaining() > 0; run++) {
      const { events } = await pruneMessageHistory({ db, clock: { now: () => later } });
      pruned += events;
      if (events === 0) break;
    }
    const live = await tableSizes(runtime);
    // VACUUM keeps the freed pages for reuse; VACUUM FULL shows what the remaining rows take.
    await db.execute(sql.raw("vacuum full mail_message_events"));
    const retained = await tableSizes(runtime);

    console.log(`## One million recipients on PostgreSQL (${postgres.label}; in-process queue; Postmark simulator in its own process, webhooks off)`);
    for (const f of figures) {
      const per100k = 100_000 / f.recipients;
      console.log(
        `${n(f.recipients)} recipients: total ${s(f.ingestMs + f.sendMs)} = ingest ${s(f.ingestMs)} (${n(f.recipients / (f.ingestMs / 1000))}/s) + send ${s(f.sendMs)} (${n(f.recipients / (f.sendMs / 1000))}/s); service CPU ${s(f.cpuMs)}${f.simulatorCpuMs === null ? "" : `, simulator CPU ${s(f.simulatorCpuMs)}`}; peak RSS ${mb(f.rssPeak)} (${mb(f.rssBefore)} before, growth ${mb(f.rssPeak - f.rssBefore)}); received ${n(f.received)} (${f.received === f.recipients ? "every recipient once" : "NOT every recipient once"}), duplicates ${f.duplicates}`,
      );
      console.log(`  memory: ${f.marks.map(([label, m]) => `${label} ${breakdown(m)}`).join("; ")}`);
      console.log(
        `  database per 100,000 recipients: ${mb(f.bytes * per100k)} (${TABLES.filter((t) => (f.sizes[t] ?? 0) !== 0)
          .map((t) => `${t} ${mb((f.sizes[t] ?? 0) * per100k)}`)
          .join(", ")})`,
      );
      for (const line of f.windows) console.log(line);
    }
    const [small, large] = [figures[0], figures[figures.length - 1]];
    if (small && large && small !== large) {
      const ratio = (large.ingestMs + large.sendMs) / (small.ingestMs + small.sendMs);
      const expected = large.recipients / small.recipients;
      console.log(
        `ratio: ${n(large.recipients)} took ${ratio.toFixed(2)}× the ${n(small.recipients)} (target ≤ ${(expected * 1.05).toFixed(1)}×); peak RSS ${(large.rssPeak / small.rssPeak).toFixed(2)}× (target ≤ 1.2×); RSS growth ${mb(small.rssPeak - small.rssBefore)} and ${mb(large.rssPeak - large.rssBefore)} (target ≤ 200 MB)`,
      );
    }
    const recipientsAll = figures.reduce((a, f) => a + f.recipients, 0);
    console.log(
      `after retention (${n(pruned)} events older than ${MESSAGE_HISTORY_DAYS} days deleted, message rows kept): ${mb((total(retained) * 100_000) / recipientsAll)} per 100,000 recipients (${TABLES.filter(
        (t) => (retained[t] ?? 0) > 16_384,
      )
        .map((t) => `${t} ${mb(((retained[t] ?? 0) * 100_000) / recipientsAll)}`)
        .join(", ")}); before VACUUM FULL the files keep ${mb(total(live))} for reuse`,
    );
  } finally {
    simulators.process.kill("SIGTERM");
    await runtime.close();
  }
}

/** The claim's row lookup on the full job (EXPLAIN ANALYZE): it must walk the primary key, not scan. */
async function printClaimPlan(runtime: Runtime, jobId: string): Promise<void> {
  const plan = await rows<{ "QUERY PLAN": string }>(
    runtime,
    sql`explain (analyze, buffers) select seq from mail_send_job_chunks where send_job_id = ${jobId} and batch_id is null order by seq limit 1 for update skip locked`,
  );
  console.log(`claim query plan (${jobId}):\n  ${plan.map((r) => r["QUERY PLAN"]).join("\n  ")}`);
}
