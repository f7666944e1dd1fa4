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
const COMBOS = [
  { lag: "below", lagMs: GRACE_MS / 3, slow: false },
  { lag: "above", lagMs: 2 * GRACE_MS, slow: false },
  { lag: "below", lagMs: GRACE_MS / 3, slow: true },
  { lag: "above", lagMs: 2 * GRACE_MS, slow: true },
] as const;

type Row = { lag: string; slow: string; kill: string; recipients: number; once: number; unknown: number; status: string };

/** What the matrix ended with: a row per cell, and the provider's view, for the test file's own assertions. */
export type MatrixOutcome = { rows: Row[]; cells: number; recipientsPerCell: number; receivedViaBulk: number; duplicates: Record<string, unknown> };

/** Worst case of one run on a loaded 2-core machine. */
export const LAG_MATRIX_TIMEOUT_MS = 180_000;

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
  const { urls, sim } = await startSimulatorsProcess(children);
  const adminToken = randomToken(32);
  const env = serviceEnv(dataDir, urls, adminToken, { SEND_RECONCILE_TEST_GRACE_MS: String(GRACE_MS) });
  let service = await startService(children, env);
  const key = valueAfter(service.lines, "mail full:");
  const api = serviceApi(() => service.origin, key);
  const { templateId, orderTemplateId } = await prepareDemo(api, sim, adminToken, path);

  // The server's other traffic: one transactional mail at a time, every 300 ms, while the service is up.
  let ticking = true;
  let tick = 0;
  const ticker = (async () => {
    while (ticking) {
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
    for (const [c, combo] of COMBOS.entries()) {
      await sim("/__sim/search", { delay_ms: combo.lagMs });
      await sim("/__sim/latency", { delay_ms: combo.slow ? SLOW_MS : 0 });
      const jobs: { kill: string; id: string }[] = [];
      for (const point of KILL_POINTS) {
        const id = await createJob(api, templateId, `c${c}${point.name}`);
        const heldBefore = (await sim<SimulatorStats>("/__sim/stats")).faults_held_total;
        await sim("/__sim/faults", { ...point.fault, count: 1, path: `/email/${path}` });
        const started = await api("POST", `/mail/v1/send-jobs/${id}/start`);
        expect(started.status, JSON.stringify(started.json)).toBe(200);
        await vi.waitFor(async () => expect((await sim<SimulatorStats>("/__sim/stats")).faults_held_total).toBe(heldBefore + 1), {
          timeout: 30_000,
          interval: 25,
        });
        jobs.push({ kill: point.name, id });
      }
      service.child.kill("SIGKILL");
      await new Promise((resolve) => service.child.once("exit", resolve));
      service = await startService(children, env);

      for (const job of jobs) {
        const done = await vi.waitFor(
          async () => {
            const r = await api<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${job.id}`);
            expect(r.json.data?.status, JSON.stringify(r.json)).toBe("completed");
            return r.json.data;
          },
          { timeout: 45_000, interval: 200 },
        );
        const received = await sim<{ messages: { Metadata: Record<string, string> }[] }>(
          `/__sim/messages?metadata_key=send_job_id&metadata_value=${job.id}&limit=1000`,
        );
        const perMessage = new Map<string, number>();
        for (const m of received.messages) {
          const id = m.Metadata.message_id ?? "";
          perMessage.set(id, (perMessage.get(id) ?? 0) + 1);
        }
        rows.push({
          lag: `${combo.lag} (${combo.lagMs} ms)`,
          slow: combo.slow ? `yes (${SLOW_MS} ms)` : "no",
          kill: job.kill,
          recipients: done.recipients.total ?? 0,
          once: [...perMessage.values()].filter((n) => n === 1).length,
          unknown: done.recipients.unknown ?? 0,
          status: done.status,
        });
      }
    }
  } finally {
    ticking = false;
    await ticker;
  }

  process.stdout.write(
    [
      `${path} path:`,
      "| search lag | slow provider | kill | recipients | received exactly once | unknown |",
      "|---|---|---|---|---|---|",
      ...rows.map((r) => `| ${r.lag} | ${r.slow} | ${r.kill} | ${r.recipients} | ${r.once} | ${r.unknown} |`),
      "",
    ].join("\n"),
  );
  expect(rows).toHaveLength(COMBOS.length * KILL_POINTS.length);
  for (const row of rows) expect(row, JSON.stringify(row)).toMatchObject({ recipients: RECIPIENTS, once: RECIPIENTS, unknown: 0, status: "completed" });
  const stats = await sim<SimulatorStats>("/__sim/stats");
  expect(stats.duplicates_by_metadata_message_id).toEqual({});
  // Every job message went the path under test.
  expect(stats.received_via_bulk).toBe(path === "bulk" ? rows.length * RECIPIENTS : 0);
  return {
    rows,
    cells: COMBOS.length * KILL_POINTS.length,
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
