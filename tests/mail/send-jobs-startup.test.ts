import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test, vi } from "vitest";
import { randomToken } from "../../lib/core/secrets";
import { demoSendJob, serviceApi, serviceEnv, startService, startSimulatorsProcess, valueAfter } from "../helpers/processes";
import type { SimulatorStats } from "../../lib/mail/provider/simulator/simulator";
import type { Mail } from "../helpers/harness";

/*
 * Start-up does not depend on the provider: three batches are in doubt when the service
 * starts again, and Postmark hangs (a loopback port that accepts connections and never answers). The
 * service listens and answers at once; recovery runs in the background, each provider call bounded.
 * Before, start-up waited for Postmark's 20 s time-out once per batch in doubt before it listened.
 */

const children: ChildProcess[] = [];
const dataDir = mkdtempSync(join(tmpdir(), "send-jobs-startup-"));
const sockets = new Set<Socket>();
const hanging = createServer((socket) => {
  sockets.add(socket);
  socket.on("error", () => undefined);
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => hanging.close(resolve));
  rmSync(dataDir, { recursive: true, force: true });
});

test("Postmark hangs while three batches are in doubt: the restarted service answers within seconds of its start, recovery runs behind it", async () => {
  const { urls, sim } = await startSimulatorsProcess(children);
  await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
  const address = hanging.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  const adminToken = randomToken(32);
  const env = serviceEnv(dataDir, urls, adminToken);
  const first = await startService(children, env);
  let base = first.origin;
  const key = valueAfter(first.lines, "mail full:");
  const api = serviceApi(() => base, key);
  const jobId = await demoSendJob(api, sim, adminToken, { name: "Start-up", total: 1500 });
  await sim("/__sim/faults", { mode: "stall", count: 3, delay_ms: 60_000 });
  expect((await api("POST", `/mail/v1/send-jobs/${jobId}/start`)).status).toBe(200);
  await vi.waitFor(async () => expect((await sim<SimulatorStats>("/__sim/stats")).faults_held).toBe(3), { timeout: 30_000, interval: 50 });
  first.child.kill("SIGKILL");
  await new Promise((resolve) => first.child.once("exit", resolve));

  const spawnedAt = Date.now();
  const second = await startService(children, { ...env, POSTMARK_API_URL: `http://127.0.0.1:${address.port}` });
  base = second.origin;
  const health = await api("GET", "/mail/v1/health");
  const answeredAfterMs = Date.now() - spawnedAt;
  expect(health.status, JSON.stringify(health.json)).toBe(200);
  // Three in-doubt batches behind a hanging provider cost at least 60 s before; a start takes a few seconds.
  expect(answeredAfterMs).toBeLessThan(30_000);
  // Recovery ran in the background: the claims of the dead process are in doubt, nothing was re-sent.
  await vi.waitFor(
    async () =>
      expect((await api<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${jobId}`)).json.data.recipients).toMatchObject({ unknown: 1500, accepted: 0 }),
    {
      timeout: 30_000,
      interval: 200,
    },
  );
  process.stdout.write(`start-up with Postmark hanging and 3 batches in doubt: health answered ${answeredAfterMs} ms after spawn\n`);
}, 120_000);
