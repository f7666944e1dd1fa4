import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, vi } from "vitest";
import { randomToken } from "../../lib/core/secrets";
import { demoSendJob, serviceApi, serviceEnv, startService, startSimulatorsProcess, valueAfter, type SendPath } from "./processes";
import type { SimulatorStats } from "../../lib/mail/provider/simulator/simulator";
import type { Mail } from "./harness";

/*
 * The kill-and-restart test. The service runs as `npm start` runs it (`lib/start.mjs`; embedded mode: PGlite under a
 * temporary DATA_DIR, the in-process queue) against the Postmark simulator in a process of its own
 * (`lib/simulators.ts`), so the simulator's record of what it received survives the service. A job is
 * started and the service is SIGKILLed three times with its three lanes' provider calls in flight, each
 * time at another point of the call (the simulator's faults hold the calls there), and started again:
 *   1. before the call reached the provider (`stall`: the simulator drops a call whose caller died);
 *   2. during the call (`slow`: the provider handles it after the caller died);
 *   3. after the provider accepted and answered late, before we recorded (`slow` with `after_accept`).
 * Afterwards every recipient was received by the provider exactly once, none is `unknown`, and usage
 * equals what the provider received. One scenario for both sending paths (`path`: `/email/batch`, or
 * Postmark's Bulk API for a customer the operator switched to it), each in a test file of its own
 * (tests/mail/send-jobs-crash*.test.ts, which assert the outcome), so CI runs them side by side.
 */

/** Postmark's black-hole address, where reconciliation's probes go (lib/mail/provider/postmark.ts). */
const PROBE_ADDRESS = "test@blackhole.postmarkapp.com";

/** How long the simulator holds a faulty call: the kill comes well within it, also on a busy machine. */
const HOLD_MS = 4000;

/** What a crash run ended with, for the test file's own assertions (the scenario checks each step too). */
export type CrashOutcome = {
  total: number;
  recipients: Record<string, number>;
  received: number;
  transactional: number;
  receivedViaBulk: number;
  duplicates: Record<string, unknown>;
  usageSent: number;
};

/** Worst case of one run on a loaded 2-core machine. */
export const CRASH_TEST_TIMEOUT_MS = 240_000;

/** The scenario for `path`, its processes and data directory cleaned up after the file; call the answer inside a test. */
export function crashScenario(path: SendPath): () => Promise<CrashOutcome> {
  const children: ChildProcess[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), `send-jobs-crash-${path}-`));
  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  });
  return () => killAndRestart(path, children, dataDir);
}

async function killAndRestart(path: SendPath, children: ChildProcess[], dataDir: string): Promise<CrashOutcome> {
  const { urls, sim } = await startSimulatorsProcess(children);

  const adminToken = randomToken(32);
  // A short grace period (test-only): a held call is handled by the simulator within HOLD_MS of its arrival.
  const env = serviceEnv(dataDir, urls, adminToken, { SEND_RECONCILE_TEST_GRACE_MS: String(2 * HOLD_MS) });
  let service = await startService(children, env);
  const key = valueAfter(service.lines, "mail full:");
  expect(key).toMatch(/^mk_live_/);
  const api = serviceApi(() => service.origin, key);
  const total = 6000;
  const jobId = await demoSendJob(api, sim, adminToken, { name: "Crash test", total, path });

  /** Arms a fault for the next three provider calls of the path; the returned wait ends once all three were held with their bodies received, however busy the machine. */
  const holdNextCalls = async (fault: Record<string, unknown>) => {
    const heldBefore = (await sim<SimulatorStats>("/__sim/stats")).faults_held_total as number;
    await sim("/__sim/faults", { count: 3, path: `/email/${path}`, ...fault });
    return () =>
      vi.waitFor(async () => expect((await sim<SimulatorStats>("/__sim/stats")).faults_held_total).toBeGreaterThanOrEqual(heldBefore + 3), {
        timeout: 60_000,
        interval: 50,
      });
  };

  /** The simulator has let go of every held call (and handled or dropped it): what it received is final. */
  const heldCallsEnded = () =>
    vi.waitFor(async () => expect((await sim<SimulatorStats>("/__sim/stats")).faults_held).toBe(0), { timeout: HOLD_MS + 30_000, interval: 50 });

  /** Holds the next three provider calls (one per lane) at `point`, then kills the service inside them. */
  const killDuringCalls = async (fault: Record<string, unknown>) => {
    const callsHeld = await holdNextCalls(fault);
    // The previous process is dead; its successor recovers what was in flight and resumes the job. Every
    // held call lasts HOLD_MS from its arrival, and the kill comes as soon as all three have arrived.
    service = await startService(children, env);
    await callsHeld();
    const before = (await sim<SimulatorStats>("/__sim/stats")).received as number;
    service.child.kill("SIGKILL");
    await new Promise((resolve) => service.child.once("exit", resolve));
    return before;
  };

  // 1. Before the call: the provider never gets the three batches (their callers are gone when it would read them).
  const stalled = await holdNextCalls({ mode: "stall", delay_ms: HOLD_MS });
  expect((await api("POST", `/mail/v1/send-jobs/${jobId}/start`)).status).toBe(200);
  await stalled();
  service.child.kill("SIGKILL");
  await new Promise((resolve) => service.child.once("exit", resolve));
  await heldCallsEnded();
  expect((await sim<SimulatorStats>("/__sim/stats")).received).toBe(0);

  if (process.env.CRASH_DEBUG) process.stdout.write("phase 2\n");
  // 2. During the call: the provider handles the calls after the caller died.
  const receivedAtKill2 = await killDuringCalls({ mode: "slow", delay_ms: HOLD_MS });
  await heldCallsEnded();
  expect((await sim<SimulatorStats>("/__sim/stats")).received).toBeGreaterThan(receivedAtKill2);

  if (process.env.CRASH_DEBUG) process.stdout.write("phase 3\n");
  // 3. After the provider accepted, before we recorded: it answers too late for the dead caller.
  await killDuringCalls({ mode: "slow", delay_ms: HOLD_MS, after_accept: true });

  await sim("/__sim/faults", { mode: "none" });
  service = await startService(children, env);
  // The server's other traffic (a transactional mail every half second): once Postmark's search shows one
  // received after a call in doubt plus the grace, what it does not have can be sent again. Without any
  // later traffic such a batch would wait for that evidence (and end `unknown` after the limit).
  const templates = await api<Mail["listTemplates"]>("GET", "/mail/v1/templates?limit=100");
  const order = (templates.json.data as { id: string; name: string }[]).find((t) => t.name === "Order confirmation");
  let ticking = true;
  let ticked = 0;
  const ticker = (async () => {
    while (ticking) {
      const sent = await api("POST", `/mail/v1/templates/${order?.id}/send`, {
        to: `ticker${ticked}@example.com`,
        params: { order_number: `T-${ticked}`, order_url: "https://shop.example.com/o/t" },
      });
      if (sent.status === 200) ticked++;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  })();
  const done = await vi
    .waitFor(
      async () => {
        const r = await api<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${jobId}`);
        if (process.env.CRASH_DEBUG) process.stdout.write(`${JSON.stringify(r.json.data.recipients)} ${r.json.data.status}\n`);
        expect(r.json.data.status).toBe("completed");
        return r.json.data;
      },
      { timeout: 90_000, interval: 200 },
    )
    .finally(() => {
      ticking = false;
    });
  await ticker;
  const counters = done.recipients as Record<string, number>;
  expect(counters).toMatchObject({ total, accepted: total, unknown: 0, failed: 0, pending: 0 });

  const byStatus = new Map<string, number>();
  const seen = new Set<string>();
  let after: string | null = null;
  do {
    const page: { json: Mail["listSendJobMessages"] } = await api<Mail["listSendJobMessages"]>(
      "GET",
      `/mail/v1/send-jobs/${jobId}/messages?limit=500${after ? `&after=${after}` : ""}`,
    );
    for (const message of page.json.data as { message_id: string; status: string }[]) {
      expect(seen.has(message.message_id)).toBe(false);
      seen.add(message.message_id);
      byStatus.set(message.status, (byStatus.get(message.status) ?? 0) + 1);
    }
    after = page.json.paging.after;
  } while (after);
  expect(seen.size).toBe(total);
  expect(Object.fromEntries(byStatus)).toEqual({ accepted: total });

  // Exactly once: the provider received `total` messages of the job (and the ticker's) and no message id twice.
  const stats = await sim<SimulatorStats>("/__sim/stats");
  expect(stats.duplicates_by_metadata_message_id).toEqual({});
  // Reconciliation's probes (a message to Postmark's black-hole address, sent only while the server had no
  // answer within the asking interval: between the kills here) are the service's own, not the customer's mail.
  const probes = (await sim<{ total_count: number }>(`/__sim/messages?to=${encodeURIComponent(PROBE_ADDRESS)}&limit=1`)).total_count;
  const received = stats.received - probes;
  expect(received).toBe(total + ticked);
  // Every message of the job went the path under test (a Bulk API request refused as a whole would fall back to /email/batch).
  expect(stats.received_via_bulk).toBe(path === "bulk" ? total : 0);
  const usageSent = (await api<Mail["getUsage"]>("GET", "/mail/v1/usage")).json.data.sent;
  expect(usageSent).toBe(received);
  process.stdout.write(
    `crash test (${path} path): ${total} recipients, 3 kills with 3 provider calls in flight each, received ${received} of the customer's mail (duplicates: 0) and ${probes} probes, unknown ${counters.unknown}\n`,
  );
  return {
    total,
    recipients: counters,
    received,
    transactional: ticked,
    receivedViaBulk: stats.received_via_bulk,
    duplicates: stats.duplicates_by_metadata_message_id,
    usageSent,
  };
}
