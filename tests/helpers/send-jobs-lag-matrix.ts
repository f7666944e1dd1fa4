import type { ChildProcess } from "node:child_process";
import { loadavg } from "node:os";
import { randomToken } from "../../lib/core/secrets";
import { demoBlocks } from "../../lib/mail/blocks/library";
import type { SimulatorStats } from "../../lib/mail/provider/simulator/simulator";
import type { Admin, Mail } from "./harness";
import { serviceApi, serviceEnv, startService, startSimulatorsProcess, valueAfter, type SendPath, type ServiceApi, type SimulatorControl } from "./processes";

/*
 * Send jobs in doubt when Postmark is slow, lags or stalls, with real processes: the service (`lib/start.mjs`,
 * as `npm start`, PGlite under a temporary DATA_DIR) against the Postmark simulator in a process of its own.
 * A combination of conditions (the simulator's search lag, a slow provider, other traffic or none, a freeze)
 * is one round: jobs are started, their provider calls held at a kill point, the service SIGKILLed, then
 * started again; each job is one cell. Both sending paths run side by side in every round, each on a
 * customer (and Postmark server) of its own: `/email/batch`, and the Bulk API for a customer switched to it.
 * The evidence reconciliation rests on is per customer and server, so one path's calls never decide the
 * other's; the simulator's conditions (lag, slowness, freeze) are the same for both.
 * A transactional mail every few hundred milliseconds per customer is the server's other traffic: once the
 * search shows it, the search is current past the killed calls. Without it, only the service's own probes
 * can show that.
 * Every cell must end with each recipient received by the provider exactly once, none `unknown`, the job
 * completed, and decided within the grace + 2 minutes after the service and Postmark both work again.
 *
 * Durations are given at the production grace of 30 s and divided by `scale`: the test (tests/mail/
 * send-jobs-lag-matrix.test.ts) runs at a tenth (a test-only grace of 3 s), `npm run bench:stall`
 * (bench/stall.ts) unscaled. The grace exceeds how long the simulator may still take in a call after its
 * caller died (latency + hold: 25 s of 30 s), as the production grace exceeds Postmark's.
 * This module imports nothing of Vitest's runner, so the bench can run it outside a test.
 */

const GRACE_MS = 30_000;
const HOLD_MS = 15_000;
const SLOW_MS = 10_000;
const DECISION_SLACK_MS = 120_000;
/** Batch calls the embedded service has in flight at most (the local queue's FLOW_GLOBAL_PARALLELISM). */
const MAX_CALLS_HELD = 3;
/** How long after a transactional request the service still runs batch steps one at a time (lib/db/priority.ts). */
const PRIORITY_TRAFFIC_WINDOW_MS = 1_100;
/**
 * The other traffic's pace: one transactional mail a second, to each customer in turn. Transactional requests
 * go before background work (lib/db/priority.ts), so a denser stream mostly slows the reconciliation measured.
 */
const TICK_MS = 1_000;
/** A frozen provider works through its backlog one held call after another, this far apart. */
const FREEZE_DRAIN_MS = 2_000;
/** The search lag below the grace, and above it. */
export const LAG_BELOW_MS = GRACE_MS / 3;
export const LAG_ABOVE_MS = 2 * GRACE_MS;

/**
 * How long the calls that are never taken in after their caller died are held: a stalled call the simulator
 * drops once its caller has gone, and the answer to a call already taken in. Long enough that both are still
 * held when the service dies, after the round's other calls have started.
 */
const LONG_HOLD_MS = 60_000;
type Fault = { mode: "stall" | "slow"; delayMs: number; afterAccept?: boolean };
/**
 * Where the service dies: before Postmark takes the call in (it drops a call whose caller went), while it
 * holds it (and takes it in afterwards, within the grace), or after it took it in. In this order: the call
 * held `during` has the shortest hold, so it starts last, just before the kill.
 */
const KILL_POINTS: { name: string; fault: Fault }[] = [
  { name: "before", fault: { mode: "stall", delayMs: LONG_HOLD_MS } },
  { name: "after", fault: { mode: "slow", delayMs: LONG_HOLD_MS, afterAccept: true } },
  { name: "during", fault: { mode: "slow", delayMs: HOLD_MS } },
];
type KillPoint = (typeof KILL_POINTS)[number]["name"];

/**
 * One round's conditions, at production scale. Frozen: the service dies while Postmark holds the jobs' calls
 * (the freeze begins with the first job's call, every call after it is held too), and Postmark then works
 * through its backlog, the jobs' calls first, beside the new traffic. `kills`: the kill points of an unfrozen
 * round (default all three).
 */
export type Combo = { lagMs: number; slow: boolean; traffic: boolean; freezeMs?: number; kills?: KillPoint[] };

export type CellRow = {
  path: SendPath;
  lag: string;
  slow: string;
  traffic: string;
  freeze: string;
  kill: string;
  /** The round's jobs whose calls Postmark still held when the service died, of all its jobs ("6/6"). */
  heldAtKill: string;
  recipients: number;
  once: number;
  twice: number;
  unknown: number;
  status: string;
  /**
   * From when both the service and Postmark worked again to when no recipient of the job was `unknown` any
   * more (reconciliation's decision: found, or to be sent again), as seen by polling every 200 ms.
   */
  decidedMs: number;
  /** From the same moment to when the job read `completed` (after the re-send of what Postmark never received). */
  completedMs: number;
  boundMs: number;
};

type StallRun = {
  /** Durations are divided by this: 1 is production (grace 30 s, no test setting), 10 the test's 3 s grace. */
  scale: number;
  combos: Combo[];
  paths: SendPath[];
  recipients: number;
  /** Every process started goes in here, for the caller to kill what is left. */
  children: ChildProcess[];
  dataDir: string;
  /** How long a round's jobs may take to complete after the service and Postmark work again; past it the run aborts. */
  waitLimitMs: (combo: Combo) => number;
  log: (line: string) => void;
  /** More of the service's environment (e.g. `LOG_LEVEL`). */
  serviceEnv?: Record<string, string>;
};

export type StallOutcome = { rows: CellRow[]; stats: SimulatorStats; load: number[] };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it answers non-null; past `timeoutMs` the error names `what` and the last thing seen. */
async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | null>, seen: () => string = () => ""): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > end) throw new Error(`${what}: not within ${Math.round(timeoutMs / 1000)} s ${seen()}`);
    await sleep(200);
  }
}

function check(ok: boolean, what: string, answer: unknown): void {
  if (!ok) throw new Error(`${what}: ${JSON.stringify(answer)}`);
}

type PathCustomer = { path: SendPath; api: ServiceApi; templateId: string; orderTemplateId: string };

/** Runs every combo on every path (see the top of this file); throws when a round's jobs do not complete within its limit. */
export async function runStallCells(run: StallRun): Promise<StallOutcome> {
  const scaled = (ms: number) => Math.round(ms / run.scale);
  const grace = scaled(GRACE_MS);
  const { urls, sim } = await startSimulatorsProcess(run.children);
  const adminToken = randomToken(32);
  const env = serviceEnv(run.dataDir, urls, adminToken, {
    ...(run.scale === 1 ? {} : { SEND_RECONCILE_TEST_GRACE_MS: String(grace) }),
    ...run.serviceEnv,
  });
  let service = await startService(run.children, env);
  const demoKey = valueAfter(service.lines, "mail full:");
  const api = (key: string) => retryingReset(serviceApi(() => service.origin, key));
  const admin = api(demoKey);
  const customers: PathCustomer[] = [];
  for (const path of run.paths) customers.push(await customerOnPath(admin, api, sim, adminToken, path));

  // The servers' other traffic (`TICK_MS`), while the service is up.
  let ticking = true;
  let traffic = true;
  let inFlight = 0;
  const ticker = (async () => {
    let tick = 0;
    while (ticking) {
      if (!traffic) {
        await sleep(100);
        continue;
      }
      tick++;
      const customer = customers[tick % customers.length] as PathCustomer;
      inFlight++;
      await customer
        .api("POST", `/mail/v1/templates/${customer.orderTemplateId}/send`, {
          to: `ticker-${customer.path}-${tick}@example.com`,
          params: { order_number: `T-${tick}`, order_url: "https://shop.example.com/o/t" },
        })
        .catch(() => undefined)
        .finally(() => inFlight--);
      await sleep(TICK_MS);
    }
  })();
  /**
   * While transactional requests are served, the service runs one batch step at a time (lib/db/priority.ts):
   * the other traffic stops while a kill's calls start, so they are all held at once, and resumes before the kill.
   */
  const quietForStarts = async () => {
    traffic = false;
    await until("the other traffic paused", 30_000, async () => (inFlight === 0 ? true : null));
    await sleep(PRIORITY_TRAFFIC_WINDOW_MS);
  };

  const rows: CellRow[] = [];
  try {
    for (const [c, combo] of run.combos.entries()) {
      traffic = combo.traffic;
      await sim("/__sim/search", { delay_ms: scaled(combo.lagMs) });
      await sim("/__sim/latency", { delay_ms: combo.slow ? scaled(SLOW_MS) : 0 });
      const points = KILL_POINTS.filter((p) => (combo.kills ?? KILL_POINTS.map((k) => k.name)).includes(p.name));
      // The kills of the round: frozen, one with every path's job (the freeze holds them all); else one per path
      // with a job per kill point (the service has at most MAX_CALLS_HELD batch calls in flight).
      const kills: { customer: PathCustomer; point: (typeof points)[number] | null }[][] = combo.freezeMs
        ? [customers.map((customer) => ({ customer, point: null }))]
        : customers.map((customer) => points.map((point) => ({ customer, point })));
      for (const [k, kill] of kills.entries()) {
        if (kill.length > MAX_CALLS_HELD) throw new Error(`a kill holds at most ${MAX_CALLS_HELD} calls, not ${kill.length}`);
        const label = `round ${c + 1}/${run.combos.length}, kill ${k + 1}/${kills.length}`;
        // Every job is made first, so their calls start back to back and are all still held when the service dies.
        const jobs: { customer: PathCustomer; kill: string; id: string; point: (typeof points)[number] | null }[] = [];
        for (const { customer, point } of kill) {
          const id = await createJob(customer.api, customer.templateId, `c${c}k${k}${point?.name ?? "frozen"}-${customer.path}`, run.recipients);
          jobs.push({ customer, point, kill: point?.name ?? "during", id });
        }
        await quietForStarts();
        let thawAt = 0;
        if (combo.freezeMs) {
          // Armed now, the freeze begins when the first job's call arrives; every call after it is held too
          // (the other jobs', then the other traffic). One job at a time, so each job's own call is seen held.
          await sim("/__sim/freeze", {
            duration_ms: scaled(combo.freezeMs),
            drain_ms: scaled(FREEZE_DRAIN_MS),
            on_next_send_to: `/email/${jobs[0]?.customer.path}`,
          });
          for (const job of jobs) {
            const path = `/email/${job.customer.path}`;
            const before = (await sim<SimulatorStats>("/__sim/stats")).frozen_held_by_path[path] ?? 0;
            await startJob(job.customer.api, job.id);
            const held = await until(`${label}: ${job.customer.path} job ${job.id}'s call held by the freeze`, 30_000, async () => {
              const now = await sim<SimulatorStats>("/__sim/stats");
              return (now.frozen_held_by_path[path] ?? 0) > before ? now : null;
            });
            thawAt = held.frozen_until_ms ?? thawAt;
          }
          // The other traffic is held too for a moment before the service dies with the jobs' calls held.
          traffic = combo.traffic;
          await sleep(1000);
        } else {
          for (const job of jobs) {
            if (!job.point) continue;
            const before = (await sim<SimulatorStats>("/__sim/stats")).faults_held_total;
            const { fault } = job.point;
            await sim("/__sim/faults", {
              mode: fault.mode,
              delay_ms: scaled(fault.delayMs),
              after_accept: fault.afterAccept ?? false,
              count: 1,
              path: `/email/${job.customer.path}`,
            });
            await startJob(job.customer.api, job.id);
            await until(`${label}: kill point ${job.kill}, the job's call held`, 30_000, async () => {
              const now = await sim<SimulatorStats>("/__sim/stats");
              return now.faults_held_total > before ? now : null;
            });
          }
          traffic = combo.traffic;
        }
        const atKill = await sim<SimulatorStats>("/__sim/stats");
        service.child.kill("SIGKILL");
        await new Promise((resolve) => service.child.once("exit", resolve));
        // Frozen: every job's call was seen held, and the freeze holds them (and the other traffic) until it ends.
        const heldAtKill = `${combo.freezeMs ? Math.min(atKill.frozen_held, jobs.length) : atKill.faults_held}/${jobs.length}`;
        run.log(`${label}: service killed with ${heldAtKill} jobs' calls held (load ${loadNow().join(" ")})`);
        service = await startService(run.children, env);
        // Decision time: from when both the service and Postmark work again (a frozen Postmark then works
        // through its backlog, the jobs' calls first). The bound: the grace, then "+ 2 minutes".
        const answeringFrom = Math.max(Date.now(), thawAt);
        const boundMs = grace + scaled(DECISION_SLACK_MS);
        const limit = run.waitLimitMs(combo) + Math.max(0, thawAt - Date.now());
        const decided = await Promise.all(
          jobs.map(async (job) => {
            let last: unknown = null;
            // Decided: no recipient `unknown` any more once some were (accepted, or pending again for the
            // re-send); a job seen only before and after it counts as decided when it completed.
            let sawUnknown = false;
            let decidedAt: number | null = null;
            const done = await until(
              `${label}: ${job.customer.path} job ${job.id} (kill ${job.kill}) completed`,
              limit,
              async () => {
                const r = await job.customer.api<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${job.id}`);
                last = r.json;
                const unknown = r.json.data?.recipients.unknown ?? 0;
                if (unknown > 0) sawUnknown = true;
                else if (sawUnknown && decidedAt === null) decidedAt = Date.now();
                return r.json.data?.status === "completed" ? r.json.data : null;
              },
              () => `(last seen: ${JSON.stringify(last)}); the service's log:\n${serviceLog(service.output(), job.id)}`,
            );
            const completedAt = Date.now();
            return { job, done, decidedMs: Math.max(0, (decidedAt ?? completedAt) - answeringFrom), completedMs: Math.max(0, completedAt - answeringFrom) };
          }),
        );
        for (const { job, done, decidedMs, completedMs } of decided) {
          const received = await sim<{ messages: { Metadata: Record<string, string> }[] }>(
            `/__sim/messages?metadata_key=send_job_id&metadata_value=${job.id}&limit=10000`,
          );
          const perMessage = new Map<string, number>();
          for (const m of received.messages) {
            const id = m.Metadata.message_id ?? "";
            perMessage.set(id, (perMessage.get(id) ?? 0) + 1);
          }
          const row: CellRow = {
            path: job.customer.path,
            lag: `${combo.lagMs < GRACE_MS ? "below" : "above"} (${scaled(combo.lagMs)} ms)`,
            slow: combo.slow ? `yes (${scaled(SLOW_MS)} ms)` : "no",
            traffic: combo.traffic ? "yes" : "none",
            freeze: combo.freezeMs ? `${scaled(combo.freezeMs)} ms (${Math.round(combo.freezeMs / 1000)} s at 30 s grace)` : "no",
            kill: job.kill,
            heldAtKill,
            recipients: done.recipients.total ?? 0,
            once: [...perMessage.values()].filter((n) => n === 1).length,
            twice: [...perMessage.values()].filter((n) => n > 1).length,
            unknown: done.recipients.unknown ?? 0,
            status: done.status,
            decidedMs,
            completedMs,
            boundMs,
          };
          rows.push(row);
          run.log(`${row.path} cell: ${JSON.stringify(row)}`);
          // Past its bound: what the service logged about the job, for the reader.
          if (row.decidedMs > row.boundMs) run.log(`${row.path} cell past its bound, the service's log:\n${serviceLog(service.output(), job.id)}`);
        }
      }
    }
  } finally {
    ticking = false;
    await ticker;
  }
  return { rows, stats: await sim<SimulatorStats>("/__sim/stats"), load: loadNow() };
}

/** The service's log lines (its output's tail) about a job and about reconciliation and recovery, the latest 40. */
function serviceLog(output: string, jobId: string): string {
  return output
    .split("\n")
    .filter((line) => line.includes(jobId) || line.includes("reconcil") || line.includes("recover"))
    .slice(-40)
    .join("\n");
}

/** The load average (1, 5, 15 minutes), printed beside timings measured on a shared machine. */
export function loadNow(): number[] {
  return loadavg().map((n) => Math.round(n * 100) / 100);
}

/** The rows as a Markdown table, decision times in `unit`. */
export function cellTable(rows: CellRow[], unit: "ms" | "s" = "ms"): string {
  const time = (ms: number) => (unit === "s" ? (ms / 1000).toFixed(1) : String(ms));
  return [
    `| path | search lag | slow provider | other traffic | provider frozen | kill | held at kill | recipients | received once | twice | unknown | status | decided after (${unit}) | completed after (${unit}) | bound (${unit}) |`,
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.path} | ${r.lag} | ${r.slow} | ${r.traffic} | ${r.freeze} | ${r.kill} | ${r.heldAtKill} | ${r.recipients} | ${r.once} | ${r.twice} | ${r.unknown} | ${r.status} | ${time(r.decidedMs)} | ${time(r.completedMs)} | ${time(r.boundMs)} |`,
    ),
  ].join("\n");
}

/**
 * A kept-alive connection the service closed as idle just as it was reused (the rounds without other
 * traffic leave it idle) resets before the request is read: sent once more then.
 */
function retryingReset(plain: ServiceApi): ServiceApi {
  return async (...args) => {
    try {
      return await plain(...args);
    } catch (error) {
      if ((error as { cause?: { code?: string } }).cause?.code !== "ECONNRESET") throw error;
      return plain(...args);
    }
  };
}

/**
 * A customer of its own for `path`, on a Postmark server of its own: the Demo's sending setup (streams,
 * senders, frame, its "Order confirmation" template for the other traffic) copied onto a new customer with a
 * fresh server token, switched to the Bulk API or kept on `/email/batch`, with a full mail key and a
 * newsletter template for the jobs.
 */
async function customerOnPath(
  admin: ServiceApi,
  api: (key: string) => ServiceApi,
  sim: SimulatorControl,
  adminToken: string,
  path: SendPath,
): Promise<PathCustomer> {
  const as = <T>(method: string, url: string, body?: unknown) => admin<T>(method, url, body, adminToken);
  const customers = await as<Admin["listCustomers"]>("GET", "/admin/v1/customers?limit=100");
  const demo = (customers.json.data as { id: string; name: string }[]).find((customer) => customer.name === "Demo");
  if (!demo) throw new Error(`no Demo customer: ${JSON.stringify(customers.json)}`);
  const created = await as<Admin["createCustomer"]>("POST", "/admin/v1/customers", { name: `Stall cells (${path})` });
  check(created.status === 201, "customer created", created.json);
  const id = created.json.data.id as string;
  const key = await as<Admin["issueApiKey"]>("POST", `/admin/v1/customers/${id}/keys`, { service: "mail", scope: "full", label: "stall cells" });
  check(key.status === 201, "mail key issued", key.json);

  const provider = await as<Admin["getCustomerMailProvider"]>("GET", `/admin/v1/customers/${demo.id}/mail/provider`);
  const p = provider.json.data;
  const serverToken = `stall-${randomToken(12)}`;
  const patched = await as("PATCH", `/admin/v1/customers/${id}/mail/provider`, {
    server_token: serverToken,
    transactional_stream: p.transactional_stream,
    broadcast_stream: p.broadcast_stream,
    verified_senders: p.verified_senders,
    verified_domains: p.verified_domains,
    default_newsletter_from: p.default_newsletter_from,
    default_transactional_from: p.default_transactional_from,
    bulk_api_enabled: path === "bulk",
  });
  check(patched.status === 200, "provider set", patched.json);
  await sim("/__sim/servers", {
    token: serverToken,
    streams: [
      { id: p.transactional_stream, type: "Transactional" },
      { id: p.broadcast_stream, type: "Broadcasts" },
    ],
  });
  const frame = await as<Admin["getCustomerFrame"]>("GET", `/admin/v1/customers/${demo.id}/mail/frame`);
  const { version: _version, updated_at: _updated, ...frameBody } = frame.json.data;
  const framed = await as("PUT", `/admin/v1/customers/${id}/mail/frame`, frameBody);
  check(framed.status === 200, "frame set", framed.json);

  const templates = await as<Admin["listCustomerMailTemplates"]>("GET", `/admin/v1/customers/${demo.id}/mail/templates?limit=100`);
  const order = (templates.json.data as { id: string; name: string }[]).find((t) => t.name === "Order confirmation");
  if (!order) throw new Error(`no order template: ${JSON.stringify(templates.json)}`);
  const full = await as<Admin["getCustomerMailTemplate"]>("GET", `/admin/v1/customers/${demo.id}/mail/templates/${order.id}`);
  const t = full.json.data;
  const heading = demoBlocks.find((b) => b.slug === "heading")?.id;
  for (const blockId of new Set([...(t.blocks ?? []).map((b) => b.block_id), heading])) {
    const enabled = await as("PUT", `/admin/v1/customers/${id}/mail/blocks/${blockId}`);
    check(enabled.status === 200, "block enabled", enabled.json);
  }
  const copied = await as<Admin["createCustomerMailTemplate"]>("POST", `/admin/v1/customers/${id}/mail/templates`, {
    name: t.name,
    kind: t.kind,
    subject: t.subject,
    blocks: t.blocks,
    values: t.values,
    params: t.params,
  });
  check(copied.status === 201, "order template copied", copied.json);

  const customerApi = api(key.json.data.key as string);
  const template = await customerApi<Mail["createTemplate"]>("POST", "/mail/v1/templates", {
    name: "Stall cells",
    subject: "Hello {{first_name}}",
    blocks: [{ block_id: heading, values: { title: "Hello {{first_name}}", subtitle: "" } }],
  });
  check(template.status === 201, "newsletter template created", template.json);
  return { path, api: customerApi, templateId: template.json.data.id as string, orderTemplateId: copied.json.data.id as string };
}

async function createJob(api: ServiceApi, templateId: string, cell: string, count: number): Promise<string> {
  const job = await api<Mail["createSendJob"]>("POST", "/mail/v1/send-jobs", { template_id: templateId });
  check(job.status === 201, "job created", job.json);
  const id = job.json.data.id as string;
  const recipients = Array.from({ length: count }, (_, i) => ({ email: `${cell}-${i}@example.com`, data: { first_name: `R${i}` } }));
  const added = await api("POST", `/mail/v1/send-jobs/${id}/recipients`, { recipients });
  check(added.status === 200, "recipients added", added.json);
  return id;
}

async function startJob(api: ServiceApi, id: string): Promise<void> {
  const started = await api("POST", `/mail/v1/send-jobs/${id}/start`);
  check(started.status === 200, "job started", started.json);
}
