import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, vi } from "vitest";
import { randomToken } from "../../lib/core/secrets";
import { demoBlocks } from "../../lib/mail/blocks/library";
import {
  pointDemoAtSimulator,
  serviceApi,
  serviceEnv,
  startService,
  startSimulatorsProcess,
  valueAfter,
  type SendPath,
  type ServiceApi,
  type SimulatorControl,
} from "./processes";
import type { SimulatorStats } from "../../lib/mail/provider/simulator/simulator";
import type { Mail } from "./harness";

/*
 * The matrix of issue 27 item 1, with real processes: the service (`lib/start.mjs`, as `npm start`, PGlite under a
 * temporary DATA_DIR) against the Postmark simulator in a process of its own. Cells: the simulator's search
 * lag below or above the reconciliation grace × a slow provider or not × the service SIGKILLed before,
 * during or after the provider call. Per (lag, slowness) the service is killed once with three jobs' calls
 * in flight, one held at each point (the simulator's faults, armed one after the other, hold them there),
 * then started again. A transactional mail every few hundred milliseconds is the server's other traffic:
 * the evidence, once the search shows it, that the search is current past the killed calls.
 * Every cell: each recipient received by the provider exactly once, none `unknown`, the job completed.
 *
 * Timing: the grace (test-only, 3 s) exceeds how long the simulator may still take in a call after its
 * caller died (latency 1 s + hold 1.5 s), as the production grace (≥ 30 s) exceeds Postmark's.
 * One matrix for both sending paths (`path`: `/email/batch`, or the Bulk API for a customer switched to
 * it), each in a test file of its own (tests/mail/send-jobs-lag-matrix*.test.ts).
 */

const GRACE_MS = 3000;
const HOLD_MS = 1500;
const SLOW_MS = 1000;
const RECIPIENTS = 20;
const KILL_POINTS = [
  { name: "before", fault: { mode: "stall", delay_ms: HOLD_MS } },
  { name: "during", fault: { mode: "slow", delay_ms: HOLD_MS } },
  { name: "after", fault: { mode: "slow", delay_ms: HOLD_MS, after_accept: true } },
] as const;
/**
 * The test grace stands for the production floor of 30 s at a tenth of it: a freeze of 8.5 s and of 30 s is
 * Postmark frozen for 85 s and for 5 minutes, and the decision bound "grace + 2 minutes" is grace + 12 s.
 */
const SCALE = 30_000 / GRACE_MS;
const DECISION_SLACK_MS = 120_000 / SCALE;
type Combo = { lag: string; lagMs: number; slow: boolean; traffic: boolean; freezeMs?: number };
const COMBOS: Combo[] = [
  { lag: "below", lagMs: GRACE_MS / 3, slow: false, traffic: true },
  { lag: "above", lagMs: 2 * GRACE_MS, slow: false, traffic: true },
  { lag: "below", lagMs: GRACE_MS / 3, slow: true, traffic: true },
  { lag: "above", lagMs: 2 * GRACE_MS, slow: true, traffic: true },
];
/**
 * Rows of reconciliation's evidence, which is the same code for both paths: a server without other traffic
 * (only the service's probes can show the search current), and Postmark frozen for 85 s / 5 min (scaled)
 * with the service killed while its calls are held; the frozen provider then works through its backlog,
 * each held call 200 ms after the one before, beside the new traffic. The batch path runs them always;
 * the Bulk API path with `LAG_MATRIX_BULK_ALL_ROWS=1` (they add about a minute, mostly the freezes).
 */
const EVIDENCE_COMBOS: Combo[] = [
  { lag: "below", lagMs: GRACE_MS / 3, slow: false, traffic: false },
  { lag: "below", lagMs: GRACE_MS / 3, slow: false, traffic: true, freezeMs: 85_000 / SCALE },
  { lag: "below", lagMs: GRACE_MS / 3, slow: false, traffic: true, freezeMs: 300_000 / SCALE },
];
const FREEZE_DRAIN_MS = 200;

type Row = {
  lag: string;
  slow: string;
  traffic: string;
  freeze: string;
  kill: string;
  recipients: number;
  once: number;
  twice: number;
  unknown: number;
  status: string;
  decidedMs: number;
  boundMs: number;
};

/** What the matrix ended with: a row per cell, and the provider's view, for the test file's own assertions. */
export type MatrixOutcome = { rows: Row[]; cells: number; recipientsPerCell: number; receivedViaBulk: number; duplicates: Record<string, unknown> };

/** Worst case of one run on a loaded 2-core machine. */
export const LAG_MATRIX_TIMEOUT_MS = 600_000;

/** The matrix for `path`, its processes and data directory cleaned up after the file; call the answer inside a test. */
export function lagMatrix(path: SendPath): () => Promise<MatrixOutcome> {
  const children: ChildProcess[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), `send-jobs-lag-matrix-${path}-`));
  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  });
  return () => runMatrix(path, children, dataDir);
}

async function runMatrix(path: SendPath, children: ChildProcess[], dataDir: string): Promise<MatrixOutcome> {
  const withEvidenceRows = path === "batch" || process.env.LAG_MATRIX_BULK_ALL_ROWS === "1";
  const { urls, sim } = await startSimulatorsProcess(children);
  const adminToken = randomToken(32);
  const env = serviceEnv(dataDir, urls, adminToken, { SEND_RECONCILE_TEST_GRACE_MS: String(GRACE_MS) });
  let service = await startService(children, env);
  const key = valueAfter(service.lines, "mail full:");
  const plain = serviceApi(() => service.origin, key);
  // A kept-alive connection the service closed as idle just as it was reused (the rows without other
  // traffic leave it idle) resets before the request is read: sent once more then.
  const api: ServiceApi = async (...args) => {
    try {
      return await plain(...args);
    } catch (error) {
      if ((error as { cause?: { code?: string } }).cause?.code !== "ECONNRESET") throw error;
      return plain(...args);
    }
  };
  const { templateId, orderTemplateId } = await prepareDemo(api, sim, adminToken, path);

  // The server's other traffic: one transactional mail at a time, every 300 ms, while the service is up.
  let ticking = true;
  let traffic = true;
  let tick = 0;
  const ticker = (async () => {
    while (ticking) {
      if (!traffic) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      tick++;
      await api("POST", `/mail/v1/templates/${orderTemplateId}/send`, {
        to: `ticker${tick}@example.com`,
        params: { order_number: `T-${tick}`, order_url: "https://shop.example.com/o/t" },
      }).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  })();

  const rows: Row[] = [];
  try {
    const combos = withEvidenceRows ? [...COMBOS, ...EVIDENCE_COMBOS] : COMBOS;
    for (const [c, combo] of combos.entries()) {
      traffic = combo.traffic;
      await sim("/__sim/search", { delay_ms: combo.lagMs });
      await sim("/__sim/latency", { delay_ms: combo.slow ? SLOW_MS : 0 });
      const jobs: { kill: string; id: string }[] = [];
      let thawAt = 0;
      for (const point of combo.freezeMs ? [{ name: "during", fault: null }] : KILL_POINTS) {
        const id = await createJob(api, templateId, `c${c}${point.name}`);
        const stats = await sim<SimulatorStats>("/__sim/stats");
        const heldBefore = combo.freezeMs ? stats.frozen_held_total : stats.faults_held_total;
        if (point.fault) await sim("/__sim/faults", { ...point.fault, count: 1, path: `/email/${path}` });
        // Frozen: armed now, the freeze begins when the job's call arrives, so that call is the first one held
        // whatever the job's creation cost; every call after it is held too (the other traffic meanwhile).
        if (combo.freezeMs) await sim("/__sim/freeze", { duration_ms: combo.freezeMs, drain_ms: FREEZE_DRAIN_MS, on_next_send_to: `/email/${path}` });
        const started = await api("POST", `/mail/v1/send-jobs/${id}/start`);
        expect(started.status, JSON.stringify(started.json)).toBe(200);
        const held = await vi.waitFor(
          async () => {
            const now = await sim<SimulatorStats>("/__sim/stats");
            expect(combo.freezeMs ? now.frozen_held_total : now.faults_held_total).toBeGreaterThan(heldBefore);
            return now;
          },
          { timeout: 30_000, interval: 25 },
        );
        if (combo.freezeMs) thawAt = held.frozen_until_ms ?? 0;
        jobs.push({ kill: point.name, id });
      }
      traffic = combo.traffic;
      // Frozen: the other traffic is held too for a moment before the service dies with the job's call held.
      if (combo.freezeMs) await new Promise((resolve) => setTimeout(resolve, 1000));
      service.child.kill("SIGKILL");
      await new Promise((resolve) => service.child.once("exit", resolve));
      service = await startService(children, env);
      // Decision time: from when both the service and Postmark work again (a frozen Postmark then works
      // through its backlog, the job's call first). The bound: the grace, then "+ 2 minutes" (scaled).
      const answeringFrom = Math.max(Date.now(), thawAt);
      const boundMs = GRACE_MS + DECISION_SLACK_MS;

      for (const job of jobs) {
        const done = await vi.waitFor(
          async () => {
            const r = await api<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${job.id}`);
            expect(r.json.data?.status, JSON.stringify(r.json)).toBe("completed");
            return r.json.data;
          },
          { timeout: 45_000 + (combo.freezeMs ?? 0) * 2, interval: 200 },
        );
        const decidedMs = Math.max(0, Date.now() - answeringFrom);
        const received = await sim<{ messages: { Metadata: Record<string, string> }[] }>(
          `/__sim/messages?metadata_key=send_job_id&metadata_value=${job.id}&limit=1000`,
        );
        const perMessage = new Map<string, number>();
        for (const m of received.messages) {
          const id = m.Metadata.message_id ?? "";
          perMessage.set(id, (perMessage.get(id) ?? 0) + 1);
        }
        const row: Row = {
          lag: `${combo.lag} (${combo.lagMs} ms)`,
          slow: combo.slow ? `yes (${SLOW_MS} ms)` : "no",
          traffic: combo.traffic ? "yes" : "none",
          freeze: combo.freezeMs ? `${combo.freezeMs} ms (${Math.round((combo.freezeMs * SCALE) / 1000)} s at 30 s grace)` : "no",
          kill: job.kill,
          recipients: done.recipients.total ?? 0,
          once: [...perMessage.values()].filter((n) => n === 1).length,
          twice: [...perMessage.values()].filter((n) => n > 1).length,
          unknown: done.recipients.unknown ?? 0,
          status: done.status,
          decidedMs,
          boundMs,
        };
        rows.push(row);
        process.stdout.write(`${path} cell: ${JSON.stringify(row)}\n`);
        // Past its bound: what the service logged about the job, for the reader of the failure.
        if (row.decidedMs > row.boundMs) {
          const logged = service.lines.filter((line) => line.includes(job.id) || line.includes("reconcil") || line.includes("recover"));
          process.stdout.write(`${path} cell past its bound, the service's log:\n${logged.slice(-40).join("\n")}\n`);
        }
      }
    }
  } finally {
    ticking = false;
    await ticker;
  }

  process.stdout.write(
    [
      `${path} path:`,
      "| search lag | slow provider | other traffic | provider frozen | kill | recipients | received exactly once | twice | unknown | decided after (ms) | bound (ms) |",
      "|---|---|---|---|---|---|---|---|---|---|---|",
      ...rows.map(
        (r) =>
          `| ${r.lag} | ${r.slow} | ${r.traffic} | ${r.freeze} | ${r.kill} | ${r.recipients} | ${r.once} | ${r.twice} | ${r.unknown} | ${r.decidedMs} | ${r.boundMs} |`,
      ),
      "",
    ].join("\n"),
  );
  const cells = COMBOS.length * KILL_POINTS.length + (withEvidenceRows ? EVIDENCE_COMBOS.reduce((n, c) => n + (c.freezeMs ? 1 : KILL_POINTS.length), 0) : 0);
  expect(rows).toHaveLength(cells);
  for (const row of rows) {
    expect(row, JSON.stringify(row)).toMatchObject({ recipients: RECIPIENTS, once: RECIPIENTS, twice: 0, unknown: 0, status: "completed" });
    expect(row.decidedMs, JSON.stringify(row)).toBeLessThanOrEqual(row.boundMs);
  }
  const stats = await sim<SimulatorStats>("/__sim/stats");
  expect(stats.duplicates_by_metadata_message_id).toEqual({});
  // Every job message went the path under test.
  expect(stats.received_via_bulk).toBe(path === "bulk" ? rows.length * RECIPIENTS : 0);
  return {
    rows,
    cells,
    recipientsPerCell: RECIPIENTS,
    receivedViaBulk: stats.received_via_bulk,
    duplicates: stats.duplicates_by_metadata_message_id,
  };
}

/** The Demo customer's provider pointed at the external simulator, and a newsletter template for the jobs. */
async function prepareDemo(
  api: ServiceApi,
  sim: SimulatorControl,
  adminToken: string,
  path: SendPath,
): Promise<{ templateId: string; orderTemplateId: string }> {
  await pointDemoAtSimulator(api, sim, adminToken, path);
  const template = await api<Mail["createTemplate"]>("POST", "/mail/v1/templates", {
    name: "Lag matrix",
    subject: "Hello {{first_name}}",
    blocks: [{ block_id: demoBlocks.find((b) => b.slug === "heading")?.id, values: { title: "Hello {{first_name}}", subtitle: "" } }],
  });
  expect(template.status, JSON.stringify(template.json)).toBe(201);
  const templates = await api<Mail["listTemplates"]>("GET", "/mail/v1/templates?limit=100");
  const order = (templates.json.data as { id: string; name: string }[]).find((t) => t.name === "Order confirmation");
  if (!order) throw new Error(`no order template: ${JSON.stringify(templates.json)}`);
  return { templateId: template.json.data.id as string, orderTemplateId: order.id };
}

async function createJob(api: ServiceApi, templateId: string, cell: string): Promise<string> {
  const job = await api<Mail["createSendJob"]>("POST", "/mail/v1/send-jobs", { template_id: templateId });
  expect(job.status, JSON.stringify(job.json)).toBe(201);
  const id = job.json.data.id as string;
  const recipients = Array.from({ length: RECIPIENTS }, (_, i) => ({ email: `${cell}-${i}@example.com`, data: { first_name: `R${i}` } }));
  const added = await api("POST", `/mail/v1/send-jobs/${id}/recipients`, { recipients });
  expect(added.status, JSON.stringify(added.json)).toBe(200);
  return id;
}
