import { benchDataDir } from "./data-dir";
import { type ChildProcess, fork } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { AsyncLocalStorage } from "node:async_hooks";
import { subscribe } from "node:diagnostics_channel";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { and, eq, sql } from "drizzle-orm";
import { createCustomer } from "../lib/admin/customers";
import { bootRuntime, type Runtime } from "../lib/bootstrap";
import { issueApiKey } from "../lib/core/keys";
import { generateEncryptionKey } from "../lib/core/secrets";
import { SEND_JOB_RECONCILE_TOPIC } from "../lib/mail/send-jobs/reconcile";
import { SEND_JOB_BATCH_TOPIC } from "../lib/mail/send-jobs/transitions";
import { mailSendJobs, mailTemplates } from "../lib/db/schema";
import { demoBlocks } from "../lib/mail/blocks/library";
import { acceptedLiveThisMonth } from "../lib/mail/messages/service";
import { DEMO_TRANSACTIONAL_TEMPLATE, registerSimulatorServers, seedDemoMail } from "../lib/mail/seed";
import { benchMillion } from "./million";
import { type BenchPostgres, benchPostgres } from "./postgres";
import { processCpuMs, registerSimulatorServer, startBenchSimulators } from "./send-jobs";

/**
 * `npm run bench:scale`, on a PostgreSQL server (`DATABASE_URL`, or one the bench
 * starts the way `.ci/run` does and stops at the end; see ./postgres.ts). `SCALE_PARTS` picks the parts
 * (`million,fairness` by default):
 * - `million` (./million.ts): a 100,000 and then a 1,000,000-recipient job in the same run.
 * - `fairness`: three customers each start a job of SCALE_RECIPIENTS (200,000 by default) at the same moment
 *   while a fourth sends transactional mail at 20 per second. Printed: each job's send rate per 10-second
 *   window (after the first) against ±25 % of the three's mean, and the transactional p99 before the jobs
 *   (idle) and during them. The quotas under that run: the three senders' monthly limit is exactly their
 *   job, and a fifth customer with a small per-job maximum fills and starts three jobs while the others
 *   send; every add past a limit must be refused (429 `quota_exceeded`) and no customer may end with more
 *   accepted mail than its limit. In-process queue; the Postmark simulator in a process of its own, as the
 *   provider is in production (`SCALE_SIMULATOR=embedded`: in the service's process, whose event loop then
 *   also runs the provider's side of every call). Printed too: where the slowest 5 % of transactional sends
 *   spent their time (waiting for a pool connection, in queries, the rest), and the CPU of each process.
 * `SCALE_TOPOLOGY=split` runs the batches in a process of their own (./batch-process.ts), as production's queue
 * function does; the default runs everything in one process, as `npm start` does.
 * `SCALE_RECIPIENTS=5000 SCALE_SIZES=2000,20000 npm run bench:scale` for a short run.
 */

const RECIPIENTS = Number(process.env.SCALE_RECIPIENTS ?? 200_000);
const CUSTOMERS = 3;
const PER_CALL = 5_000;
const WINDOW_MS = Number(process.env.SCALE_WINDOW_SECONDS ?? 10) * 1000;
const TRANSACTIONAL_PER_SECOND = 20;
/**
 * `SCALE_TRANSACTIONAL=sender`: the transactional mail comes from the first of the three senders (its monthly
 * limit then its job plus 10,000, and the senders' refused add is not tried), so each send's monthly reading
 * meets that customer's batches being recorded; by default a fourth customer sends it.
 */
const TRANSACTIONAL_FROM_SENDER = process.env.SCALE_TRANSACTIONAL === "sender";
/** Transactional sends of each idle phase (before and after the jobs), at the same pace as during them. */
const IDLE_SENDS = 300;
/** The fifth customer's per-job maximum; its monthly limit is three such jobs. */
const CAPPED_PER_JOB = 2_000;
/** Every wait of the fairness run ends by then. */
const RUN_LIMIT_MS = Number(process.env.SCALE_DEADLINE_MINUTES ?? 120) * 60_000;

type Sender = { id: string; key: string; monthlyLimit: number; maxPerJob: number };
type Answer = { status: number; code: string | null; path: string | null; data: Record<string, unknown> };

async function request(runtime: Runtime, method: string, path: string, key: string, body?: unknown): Promise<Answer> {
  const response = await runtime.app.root.request(path, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await response.json()) as { data: Record<string, unknown>; error?: { code: string; details: { path: string }[] } };
  return { status: response.status, code: json.error?.code ?? null, path: json.error?.details[0]?.path ?? null, data: json.data };
}

async function call(runtime: Runtime, method: string, path: string, key: string, body?: unknown) {
  const answer = await request(runtime, method, path, key, body);
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.code}`);
  return answer.data;
}

async function sender(runtime: Runtime, name: string, limits: { monthlyLimit: number; maxPerJob: number }, postmarkUrl: string | null): Promise<Sender> {
  const customer = await createCustomer(
    runtime.deps.db,
    { name, mail: { mode: "live", monthly_limit: limits.monthlyLimit, max_per_job: limits.maxPerJob } },
    runtime.deps.clock.now(),
  );
  await seedDemoMail(runtime.deps, customer.id);
  if (postmarkUrl) {
    await registerSimulatorServer(runtime, customer.id, postmarkUrl);
  } else await registerSimulatorServers(runtime.deps, customer.id);
  const { key } = await issueApiKey(runtime.deps.db, { customerId: customer.id, service: "mail", scope: "full" });
  return { id: customer.id, key, ...limits };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;
};

const readers = (n: number, domain: string, offset = 0) =>
  Array.from({ length: n }, (_, i) => ({ email: `reader${offset + i}@${domain}`, data: { first_name: `Reader ${offset + i}` } }));
/** Event-loop delay and a one-row query's latency, sampled every 50 ms; `take()` answers and restarts both. */
function waitProbes(db: Runtime["deps"]["db"]) {
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  let queries: number[] = [];
  let running = true;
  const sampler = (async () => {
    while (running) {
      const at = performance.now();
      await db.execute(sql`select 1`);
      queries.push(performance.now() - at);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    take() {
      const taken = {
        loopP99: loop.percentile(99) / 1e6,
        loopMax: loop.max / 1e6,
        queryP99: percentile(queries, 0.99),
        queryMax: Math.max(...queries),
        queries: queries.length,
      };
      loop.reset();
      queries = [];
      return taken;
    },
    stop() {
      running = false;
      loop.disable();
      return sampler;
    },
  };
}

/**
 * Where one transactional send's time went: waiting for a pool connection, in queries, the provider call, and the
 * rest (CPU, event loop). Its reads run partly at once, so each part is the time during which at least one
 * of its kind was under way (`Span`), not a sum.
 */
type Span = { total: number; open: number; since: number };
type Breakdown = { poolWait: Span; query: Span & { count: number }; provider: Span };
/** One send's figures, in ms. */
type Spent = { poolWait: number; query: number; queries: number; provider: number; total: number };
const breakdown = new AsyncLocalStorage<Breakdown>();
const span = (): Span => ({ total: 0, open: 0, since: 0 });
function opened(s: Span): void {
  if (s.open++ === 0) s.since = performance.now();
}
function closed(s: Span): void {
  if (--s.open === 0) s.total += performance.now() - s.since;
}

/** Times, for the calls made inside `breakdown.run`, each HTTP request to the provider (`fetch`: undici's channels, request created to its body's end). */
function timeProviderCalls(): void {
  const started = new WeakMap<object, Breakdown>();
  subscribe("undici:request:create", (message) => {
    const own = breakdown.getStore();
    const { request } = message as { request: object };
    if (!own) return;
    started.set(request, own);
    opened(own.provider);
  });
  subscribe("undici:request:trailers", (message) => {
    const { request } = message as { request: object };
    const own = started.get(request);
    if (own) closed(own.provider);
  });
}
type Callback = (error: unknown, ...rest: unknown[]) => void;
type PgClient = { query(...args: unknown[]): unknown; __timed?: true };

/**
 * Times, for the calls made inside `breakdown.run`, the wait for a pool connection and each query's round
 * trip (the pg pool: `query` checks a client out through `connect`, a transaction holds one). pg calls both
 * with a callback as well as for a promise.
 */
function timePool(pool: Runtime["database"]["pool"]): void {
  if (!pool) return;
  const target = pool as unknown as { connect(callback?: Callback): unknown };
  const connect = target.connect.bind(target);
  const timeClient = (client: PgClient) => {
    if (client.__timed) return;
    client.__timed = true;
    const query = client.query.bind(client);
    client.query = (...args: unknown[]) => {
      const mine = breakdown.getStore();
      if (!mine) return query(...args);
      opened(mine.query);
      const done = () => {
        closed(mine.query);
        mine.query.count += 1;
      };
      const last = args.at(-1);
      if (typeof last === "function") {
        return query(...args.slice(0, -1), (...rest: unknown[]) => {
          done();
          (last as (...a: unknown[]) => void)(...rest);
        });
      }
      const result = query(...args);
      if (result instanceof Promise) return result.finally(done);
      return result;
    };
  };
  target.connect = (callback?: Callback) => {
    const own = breakdown.getStore();
    if (own) opened(own.poolWait);
    const got = (client: unknown) => {
      if (own) closed(own.poolWait);
      if (client) timeClient(client as PgClient);
    };
    if (callback) {
      return connect((error, client, ...rest) => {
        got(client);
        callback(error, client, ...rest);
      });
    }
    return (connect() as Promise<PgClient>).then((client) => {
      got(client);
      return client;
    });
  };
}

export async function benchScale(): Promise<void> {
  const parts = (process.env.SCALE_PARTS ?? "million,fairness").split(",");
  const postgres = await benchPostgres();
  try {
    if (parts.includes("million")) await benchMillion(postgres);
    if (parts.includes("fairness")) await benchFairness(postgres);
  } finally {
    postgres.stop();
  }
}

/**
 * `SCALE_TOPOLOGY=split`: the batches in a process of their own (./batch-process.ts), as production runs them
 * in the queue function's instances; this process then only serves the requests. `single` (the default):
 * everything in this process, as `npm start` does.
 */
const SPLIT = process.env.SCALE_TOPOLOGY === "split";
/** What the serving process hands to the batch process in the split topology (in production: QStash). */
const BATCH_TOPICS = new Set([SEND_JOB_BATCH_TOPIC, SEND_JOB_RECONCILE_TOPIC]);

/** The batch process of the split topology, on the same database and provider, with the same key for the sealed secrets. */
async function startBatchProcess(env: Record<string, string>): Promise<ChildProcess> {
  const child = fork(fileURLToPath(new URL("./batch-process.ts", import.meta.url)), [], {
    execArgv: ["--max-old-space-size=1536", "--max-semi-space-size=32", "--import", "tsx"],
    env: { ...process.env, ...env, DATA_DIR: benchDataDir("bench-scale-batches-") },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  await new Promise<void>((resolve, reject) => {
    child.once("message", () => resolve());
    child.once("exit", (code) => reject(new Error(`the batch process exited with ${code} before it was ready`)));
  });
  return child;
}

/** The serving runtime's queue hands the batch topics to `child` instead of running them. */
function forwardBatches(runtime: Runtime, child: ChildProcess): void {
  const { queue } = runtime.deps;
  const publish = queue.publish.bind(queue);
  queue.publish = async (topic, body, options) => {
    if (!BATCH_TOPICS.has(topic)) return publish(topic, body, options);
    child.send({ topic, body, options });
  };
}

async function benchFairness(postgres: BenchPostgres): Promise<void> {
  const simulators = process.env.SCALE_SIMULATOR === "embedded" ? null : await startBenchSimulators();
  const urls = simulators ? (JSON.parse(simulators.line) as { postmark: string; graph: string }) : null;
  const env = {
    ...(urls ? { POSTMARK_API_URL: urls.postmark, GRAPH_API_URL: urls.graph } : {}),
    DATABASE_URL: await postgres.database("bench_fairness"),
    ENCRYPTION_KEY: generateEncryptionKey(),
    RATE_LIMIT_PER_MINUTE: "100000000",
    LOG_LEVEL: "warn",
  };
  if (SPLIT && !urls) throw new Error("SCALE_TOPOLOGY=split needs the simulator in a process of its own");
  const runtime = await bootRuntime({ ...process.env, ...env, DATA_DIR: benchDataDir("bench-scale-") });
  const batches = SPLIT ? await startBatchProcess(env) : null;
  if (batches) forwardBatches(runtime, batches);
  try {
    const { db } = runtime.deps;
    const block = (slug: string) => demoBlocks.find((b) => b.slug === slug)?.id ?? "";
    // The senders' monthly limit is exactly their job: the quota binds during the run.
    const senders = await Promise.all(
      Array.from({ length: CUSTOMERS }, (_, i) =>
        sender(
          runtime,
          `Scale ${i + 1}`,
          { monthlyLimit: RECIPIENTS + (TRANSACTIONAL_FROM_SENDER && i === 0 ? 10_000 : 0), maxPerJob: RECIPIENTS },
          urls?.postmark ?? null,
        ),
      ),
    );
    const shop = TRANSACTIONAL_FROM_SENDER
      ? (senders[0] as Sender)
      : await sender(runtime, "Scale shop", { monthlyLimit: 10 * RECIPIENTS, maxPerJob: RECIPIENTS }, urls?.postmark ?? null);
    const capped = await sender(runtime, "Scale capped", { monthlyLimit: 3 * CAPPED_PER_JOB, maxPerJob: CAPPED_PER_JOB }, urls?.postmark ?? null);
    const [order] = await db
      .select({ id: mailTemplates.id })
      .from(mailTemplates)
      .where(and(eq(mailTemplates.customerId, shop.id), eq(mailTemplates.name, DEMO_TRANSACTIONAL_TEMPLATE)));
    timePool(runtime.database.pool);
    timeProviderCalls();
    const spent: Spent[] = [];
    const transactional = async () => {
      const started = performance.now();
      const own: Breakdown = { poolWait: span(), query: { ...span(), count: 0 }, provider: span() };
      await breakdown.run(own, () =>
        call(runtime, "POST", `/mail/v1/templates/${order?.id}/send`, shop.key, {
          to: "buyer@example.com",
          params: { order_number: "A-1", order_url: "https://shop.example.com/o/A-1" },
        }),
      );
      const total = performance.now() - started;
      spent.push({ poolWait: own.poolWait.total, query: own.query.total, queries: own.query.count, provider: own.provider.total, total });
      return total;
    };
    // An idle phase: the database's upkeep of what came before done first (a vacuum of the rows the ingest
    // or the jobs wrote, which autovacuum would otherwise run in the middle of it), then IDLE_SENDS
    // transactional sends at the pace of the run, nothing else.
    const idlePhase = async () => {
      await db.execute(sql`vacuum (analyze)`);
      const took: number[] = [];
      const from = performance.now();
      for (let n = 0; n < IDLE_SENDS; n++) {
        const wait = from + (n * 1000) / TRANSACTIONAL_PER_SECOND - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        took.push(await transactional());
      }
      return took;
    };
    const newsletter = async (s: Sender) =>
      call(runtime, "POST", "/mail/v1/templates", s.key, {
        name: "Scale",
        subject: "News for {{first_name}}",
        blocks: [
          { block_id: block("heading"), values: { title: "Hello {{first_name}}" } },
          { block_id: block("text"), values: { body: "Spring is here." } },
        ],
      });
    const jobs: string[] = [];
    const templates: string[] = [];
    for (const s of senders) {
      const template = await newsletter(s);
      templates.push(String(template.id));
      const job = await call(runtime, "POST", "/mail/v1/send-jobs", s.key, { template_id: template.id });
      for (let from = 0; from < RECIPIENTS; from += PER_CALL) {
        const recipients = readers(Math.min(PER_CALL, RECIPIENTS - from), `${s.id.slice(0, 8)}.example.com`, from);
        await call(runtime, "POST", `/mail/v1/send-jobs/${job.id}/recipients`, s.key, { recipients });
      }
      jobs.push(job.id as string);
    }
    const cappedTemplate = await newsletter(capped);

    // Where a transactional request waits: the event loop (a timer's lateness) and the database (a
    // one-row query's round trip, PGlite's one connection included), sampled idle and during the jobs.
    const probes = waitProbes(db);
    const idle = await idlePhase();
    const idleWaits = probes.take();
    const idleSpent = spent.splice(0);

    // Start the three at once, then sample each job's accepted count at every window's end, while the
    // transactional sender keeps its steady 20 per second and the capped customer meets its limits.
    const cpuBefore = {
      service: process.cpuUsage(),
      simulator: processCpuMs(simulators?.process.pid),
      batches: processCpuMs(batches?.pid),
      database: postgres.cpuMs(),
    };
    await Promise.all(senders.map((s, i) => call(runtime, "POST", `/mail/v1/send-jobs/${jobs[i]}/start`, s.key)));
    const started = performance.now();
    const during: number[] = [];
    // The sends that started after the quota checks' calls (a fifth customer's adds of 2,000, its starts) ended:
    // the steady state of the issue's scenario, three jobs and the transactional traffic only.
    const steady: number[] = [];
    let quotaChecksOver = false;
    let sending = true;
    const ticker = (async () => {
      for (let n = 0; sending; n++) {
        const due = started + (n * 1000) / TRANSACTIONAL_PER_SECOND;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        if (!sending) break;
        const checksOverAtStart = quotaChecksOver;
        const took = await transactional();
        during.push(took);
        if (checksOverAtStart) steady.push(took);
      }
    })();
    const quotas = meetLimits(runtime, TRANSACTIONAL_FROM_SENDER ? [] : senders, templates, capped, String(cappedTemplate.id)).finally(
      () => (quotaChecksOver = true),
    );
    const windows: number[][] = [];
    let previous = jobs.map(() => 0);
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
      const rows = await db
        .select({ id: mailSendJobs.id, accepted: mailSendJobs.accepted, status: mailSendJobs.status })
        .from(mailSendJobs)
        .where(sql`${mailSendJobs.id} in ${jobs}`);
      const accepted = jobs.map((id) => rows.find((r) => r.id === id)?.accepted ?? 0);
      windows.push(accepted.map((n, i) => (n - (previous[i] ?? 0)) / (WINDOW_MS / 1000)));
      previous = accepted;
      if (rows.every((r) => r.status === "completed") || performance.now() - started > RUN_LIMIT_MS) break;
    }
    sending = false;
    await ticker;
    const total = performance.now() - started;
    const serviceCpu = process.cpuUsage(cpuBefore.service);
    const simulatorCpu = processCpuMs(simulators?.process.pid);
    const databaseCpu = postgres.cpuMs();
    const batchesCpu = processCpuMs(batches?.pid);
    const loadAverage = loadavg();
    const duringWaits = probes.take();
    await probes.stop();
    const refusals = await quotas;
    // The capped customer's jobs finish on their own (they share the queue with the three).
    for (const deadline = performance.now() + 10 * 60_000; performance.now() < deadline; ) {
      const open = await db
        .select({ id: mailSendJobs.id })
        .from(mailSendJobs)
        .where(and(eq(mailSendJobs.customerId, capped.id), eq(mailSendJobs.status, "running")));
      if (open.length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    // Idle again: on a shared machine the load of other processes drifts during a long run, so the idle
    // p99 is measured after the jobs as well, and the ratio is given against both.
    const duringSpent = spent.splice(0);
    const idleAfter = await idlePhase();

    console.log(
      `## Fair sharing: ${CUSTOMERS} customers × ${RECIPIENTS.toLocaleString("en")} recipients started at once, a fourth sending ${TRANSACTIONAL_PER_SECOND} transactional mails/s (${postgres.label}; ${SPLIT ? "SCALE_TOPOLOGY=split: the batches in a process of their own, as production's queue function runs them" : "in-process queue, as `npm start`"})`,
    );
    console.log(
      `all three jobs sent in ${(total / 1000).toFixed(1)} s (${Math.round((CUSTOMERS * RECIPIENTS) / (total / 1000)).toLocaleString("en")} messages/s); CPU meanwhile: service ${((serviceCpu.user + serviceCpu.system) / 1e6).toFixed(1)} s${batches ? `, batch process ${batchesCpu !== null && cpuBefore.batches !== null ? ((batchesCpu - cpuBefore.batches) / 1000).toFixed(1) : "?"} s` : ""}${simulators ? `, simulator ${simulatorCpu !== null && cpuBefore.simulator !== null ? ((simulatorCpu - cpuBefore.simulator) / 1000).toFixed(1) : "?"} s` : " (simulator included)"}${databaseCpu !== null && cpuBefore.database !== null ? `, PostgreSQL ${((databaseCpu - cpuBefore.database) / 1000).toFixed(1)} s` : ""}; load average at the end ${loadAverage.map((l) => l.toFixed(2)).join(" ")} (${cpus().length} cores)`,
    );
    let fair = 0;
    let judged = 0;
    windows.forEach((rates, w) => {
      const mean = rates.reduce((a, b) => a + b, 0) / rates.length;
      // The first window (start-up) and the last (jobs finishing at different moments inside it) are not judged.
      const counted = w > 0 && w < windows.length - 1;
      const within = rates.every((r) => Math.abs(r - mean) <= 0.25 * mean);
      if (counted) {
        judged++;
        if (within) fair++;
      }
      console.log(
        `window ${w + 1} (${(w * WINDOW_MS) / 1000}–${((w + 1) * WINDOW_MS) / 1000} s): ${rates.map((r) => `${Math.round(r)}/s`).join(", ")}; mean ${Math.round(mean)}/s${counted ? (within ? " — within ±25 %" : " — OUTSIDE ±25 %") : " (not judged)"}`,
      );
    });
    for (const [name, sends] of [
      ["idle", idleSpent],
      ["during the jobs", duringSpent],
      ["idle after the jobs", spent],
    ] as const) {
      // The slowest 5 % of sends: where their time went (mean per send).
      const slow = [...sends].sort((a, b) => b.total - a.total).slice(0, Math.max(1, Math.ceil(sends.length / 20)));
      const mean = (f: (s: Spent) => number) => (slow.reduce((a, s) => a + f(s), 0) / slow.length).toFixed(1);
      console.log(
        `slowest 5 % of transactional sends ${name} (${slow.length}): total ${mean((s) => s.total)} ms = waiting for a pool connection ${mean((s) => s.poolWait)} + in ${mean((s) => s.queries)} queries ${mean((s) => s.query)} + the provider call ${mean((s) => s.provider)} + the rest (event loop, CPU) ${mean((s) => s.total - s.poolWait - s.query - s.provider)}`,
      );
    }
    console.log(`fairness: ${fair} of ${judged} judged windows within ±25 % of the mean (target: all)`);
    const idleP99 = percentile(idle, 0.99);
    const idleAfterP99 = percentile(idleAfter, 0.99);
    const duringP99 = percentile(during, 0.99);
    const steadyP99 = percentile(steady, 0.99);
    console.log(
      `transactional p99: idle ${idleP99.toFixed(1)} ms before the jobs and ${idleAfterP99.toFixed(1)} ms after (${idle.length} sends each), during the jobs ${duringP99.toFixed(1)} ms (${during.length} sends); ${(duringP99 / idleP99).toFixed(2)}× idle before, ${(duringP99 / idleAfterP99).toFixed(2)}× after (target ≤ 2× and ≤ 1 s); of those, the ${steady.length} sent after the quota checks' calls ended (the jobs and the transactional traffic only): p99 ${steadyP99.toFixed(1)} ms, ${(steadyP99 / idleP99).toFixed(2)}× / ${(steadyP99 / idleAfterP99).toFixed(2)}×`,
    );
    const now = runtime.deps.clock.now();
    const lines: string[] = [];
    let over = 0;
    for (const [name, s] of [...senders.map((s, i) => [`Scale ${i + 1}`, s] as const), ["Scale capped", capped] as const]) {
      const accepted = await acceptedLiveThisMonth(db, s.id, now);
      if (accepted > s.monthlyLimit) over++;
      lines.push(`${name} ${accepted.toLocaleString("en")} of ${s.monthlyLimit.toLocaleString("en")}`);
    }
    console.log(
      `quotas under the concurrent run: accepted this month ${lines.join(", ")}; customers over their monthly limit: ${over} (target 0); refused while the jobs ran: ${refusals.monthly} adds over the monthly limit and ${refusals.perJob} over the per-job maximum of ${CAPPED_PER_JOB.toLocaleString("en")} (each 429 quota_exceeded${refusals.perJobPath ? `, details path "${refusals.perJobPath}"` : ""}); adds within the limits refused: ${refusals.wrong} (target 0)`,
    );
    for (const [name, waits] of [
      ["idle", idleWaits],
      ["during the jobs", duringWaits],
    ] as const) {
      console.log(
        `waits ${name}: event loop p99 ${waits.loopP99.toFixed(1)} ms (max ${waits.loopMax.toFixed(1)}), one-row query p99 ${waits.queryP99.toFixed(1)} ms (max ${waits.queryMax.toFixed(1)}, ${waits.queries} probes)`,
      );
    }
  } finally {
    batches?.disconnect();
    await runtime.close();
    simulators?.process.kill("SIGTERM");
  }
}

/**
 * While the three jobs send: each sender (its limit is exactly its running job) tries to add one recipient
 * to a new job, which the monthly limit refuses; the capped customer fills three jobs to its per-job
 * maximum (its monthly limit is the three) and starts them, and one more recipient for a full job (the
 * per-job maximum) and for a fourth job (the monthly limit) is refused.
 */
async function meetLimits(runtime: Runtime, senders: Sender[], templates: string[], capped: Sender, templateId: string) {
  const refusals = { monthly: 0, perJob: 0, perJobPath: null as string | null, wrong: 0 };
  const expectRefusal = (answer: Answer, kind: "monthly" | "perJob") => {
    if (answer.status !== 429 || answer.code !== "quota_exceeded") {
      refusals.wrong++;
      return;
    }
    refusals[kind]++;
    if (kind === "perJob") refusals.perJobPath = answer.path;
  };
  const addOne = async (s: Sender, jobId: string, offset: number) =>
    request(runtime, "POST", `/mail/v1/send-jobs/${jobId}/recipients`, s.key, { recipients: readers(1, "extra.example.com", offset) });
  await Promise.all(
    senders.map(async (s, i) => {
      const job = await call(runtime, "POST", "/mail/v1/send-jobs", s.key, { template_id: templates[i] });
      expectRefusal(await addOne(s, String(job.id), 0), "monthly");
    }),
  );
  const cappedJobs = await Promise.all(
    Array.from({ length: 3 }, async (_, j) => {
      const job = await call(runtime, "POST", "/mail/v1/send-jobs", capped.key, { template_id: templateId });
      const answer = await request(runtime, "POST", `/mail/v1/send-jobs/${job.id}/recipients`, capped.key, {
        recipients: readers(CAPPED_PER_JOB, `capped${j}.example.com`),
      });
      if (answer.status !== 200) refusals.wrong++;
      return String(job.id);
    }),
  );
  expectRefusal(await addOne(capped, cappedJobs[0] ?? "", CAPPED_PER_JOB), "perJob");
  const fourth = await call(runtime, "POST", "/mail/v1/send-jobs", capped.key, { template_id: templateId });
  expectRefusal(await addOne(capped, String(fourth.id), 0), "monthly");
  for (const id of cappedJobs) await call(runtime, "POST", `/mail/v1/send-jobs/${id}/start`, capped.key);
  return refusals;
}

if (import.meta.url === `file://${process.argv[1]}`) await benchScale();
