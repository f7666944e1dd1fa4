import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test, vi } from "vitest";
import { randomToken } from "../../lib/core/secrets";
import { demoBlocks } from "../../lib/mail/blocks/library";
import { simulatorTestAddress } from "../../lib/mail/provider/simulator/test-addresses";
import type { SimulatorStats } from "../../lib/mail/provider/simulator/simulator";
import type { Admin, Mail } from "../helpers/harness";
import { freePort, serviceApi, serviceEnv, startProcess, startService, valueAfter, type SimulatorControl } from "../helpers/processes";

/*
 * Crash and restart while the reputation guard holds a job paused. The service runs as `npm start` runs it
 * (PGlite under a temporary DATA_DIR) on a fixed port, against the Postmark simulator in a process of its own
 * that posts its events to the service's receiver, as Postmark does. A newsletter of 6,000 with a fifth
 * hard-bouncing addresses starts (minimum sample 100); once its first batches are in, Postmark answers 429
 * until the guard has paused it from the simulator's events. The service is SIGKILLed while the job is paused
 * and started again: its start-up recovery must not send anything of a paused job.
 * An operator then resumes it (with a minimum sample above what is left, so the rest goes out): every
 * recipient reaches the provider exactly once.
 */

const children: ChildProcess[] = [];
const dataDir = mkdtempSync(join(tmpdir(), "send-jobs-crash-paused-"));
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

const TOTAL = 6000;

test("SIGKILL while the guard holds a job paused, and restart: nothing more is sent while paused; resumed by an operator, every recipient is received exactly once", async () => {
  // The simulators with their webhooks on (each server posts to the URL it is registered with).
  const simulators = await startProcess(
    children,
    process.execPath,
    // Postmark retries a refused event for hours; so does this simulator, so an event posted while the
    // service is busy recording its batch (503) or down is delivered later, not dropped.
    [
      "--import",
      "tsx",
      "lib/simulators.ts",
      "--postmark-port",
      "0",
      "--graph-port",
      "0",
      "--webhook-retry-delays-ms",
      "500,1000,2000,5000,10000,20000,30000,30000",
    ],
    {},
    /^SIMULATORS /,
  );
  const urls = JSON.parse(valueAfter(simulators.lines, "SIMULATORS ")) as { postmark: string; graph: string };
  const sim: SimulatorControl = <T>(path: string, body?: unknown) =>
    fetch(
      `${urls.postmark}${path}`,
      body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
    ).then((r) => r.json() as Promise<T>);

  const adminToken = randomToken(32);
  // A fixed port: the webhook URL registered with the simulator stays right across the restart.
  const port = await freePort();
  const env = serviceEnv(dataDir, urls, adminToken, { PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` });
  let service = await startService(children, env);
  const key = valueAfter(service.lines, "mail full:");
  expect(key).toMatch(/^mk_live_/);
  const api = serviceApi(() => service.origin, key);
  const admin = <T>(method: string, path: string, body?: unknown) => api<T>(method, `/admin${path}`, body, adminToken);

  // The Demo customer's server at the simulator, posting its events to the Demo's receiver with its credentials.
  const customers = await admin<Admin["listCustomers"]>("GET", "/v1/customers?limit=100");
  const demo = customers.json.data.find((c) => c.name === "Demo");
  if (!demo) throw new Error("no Demo customer");
  const serverToken = `paused-${randomToken(12)}`;
  expect((await admin("PATCH", `/v1/customers/${demo.id}/mail/provider`, { server_token: serverToken })).status).toBe(200);
  const revealed = await admin<Admin["revealCustomerPostmarkWebhook"]>("POST", `/v1/customers/${demo.id}/mail/postmark-webhook/reveal`);
  expect(revealed.status, JSON.stringify(revealed.json)).toBe(200);
  const hook = new URL(revealed.json.data.url_with_credentials);
  await sim("/__sim/servers", {
    token: serverToken,
    streams: [
      { id: "outbound", type: "Transactional" },
      { id: "broadcast", type: "Broadcasts" },
    ],
    webhook: {
      url: `http://127.0.0.1:${port}${hook.pathname}`,
      username: decodeURIComponent(hook.username),
      password: decodeURIComponent(hook.password),
    },
  });

  const template = await api<Mail["createTemplate"]>("POST", "/mail/v1/templates", {
    name: "Paused crash",
    subject: "Hello",
    blocks: [{ block_id: demoBlocks.find((b) => b.slug === "heading")?.id, values: { title: "Hello", subtitle: "" } }],
  });
  expect(template.status, JSON.stringify(template.json)).toBe(201);
  const job = await api<Mail["createSendJob"]>("POST", "/mail/v1/send-jobs", { template_id: template.json.data.id });
  expect(job.status, JSON.stringify(job.json)).toBe(201);
  const jobId = job.json.data.id;
  for (let offset = 0; offset < TOTAL; offset += 3000) {
    const recipients = Array.from({ length: 3000 }, (_, j) => {
      const i = offset + j;
      return { email: i % 5 === 0 ? simulatorTestAddress("HardBounce", `p${i}`) : `reader${i}@example.com` };
    });
    const added = await api("POST", `/mail/v1/send-jobs/${jobId}/recipients`, { recipients });
    expect(added.status, JSON.stringify(added.json)).toBe(200);
  }

  // Once the first batches are in, Postmark answers every call 429 (the job backs off and stays running,
  // sending nothing) until the guard has judged their events: the pause never races the end of the list,
  // however slowly the events come in.
  // The smallest minimum sample an operator may set: events reach a loaded embedded server a few a second.
  expect((await admin("PATCH", `/v1/customers/${demo.id}/mail/reputation`, { min_sample: 100 })).status).toBe(200);
  expect((await api("POST", `/mail/v1/send-jobs/${jobId}/start`)).status).toBe(200);
  await vi.waitFor(async () => expect((await sim<SimulatorStats>("/__sim/stats")).received).toBeGreaterThanOrEqual(500), {
    timeout: 120_000,
    interval: 20,
  });
  await sim("/__sim/throttle", { rate: 1, duration_ms: 600_000, retry_after_seconds: 1 });
  const step = (text: string) => process.env.CRASH_DEBUG && process.stdout.write(`${new Date().toISOString()} ${text}\n`);
  step("throttled; waiting for the pause");
  const readJob = async () => (await api<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${jobId}`)).json.data;
  await vi
    .waitFor(async () => expect(await readJob()).toMatchObject({ status: "paused", pause_reason: "bounce_rate" }), {
      timeout: 180_000,
      interval: 200,
    })
    .catch(async (error: unknown) => {
      // What the guard had counted, and what became of the simulator's event posts, to tell a lost event from a slow one.
      const hooks = await sim<{ deliveries: { Status: string; LastStatusCode: number | null }[] }>("/__sim/webhooks?limit=10000");
      const states = new Map<string, number>();
      for (const d of hooks.deliveries) states.set(`${d.Status} ${d.LastStatusCode}`, (states.get(`${d.Status} ${d.LastStatusCode}`) ?? 0) + 1);
      const figures = await admin("GET", `/v1/customers/${demo.id}/mail/reputation`);
      process.stdout.write(`${JSON.stringify(Object.fromEntries(states))}\n${JSON.stringify(figures.json)}\n`);
      throw error;
    });
  await sim("/__sim/throttle", { rate: 0, duration_ms: 0 });
  step("paused");
  // Batches handed over before the pause are not recalled; once they are answered the count holds.
  const settled = async () => {
    let last = -1;
    for (;;) {
      const received = (await sim<SimulatorStats>("/__sim/stats")).received;
      if (received === last) return received;
      last = received;
      await new Promise((resolve) => setTimeout(resolve, 3000));
    }
  };
  const atPause = await settled();
  expect(atPause).toBeLessThan(TOTAL);

  step(`settled at ${atPause}`);
  service.child.kill("SIGKILL");
  await new Promise((resolve) => service.child.once("exit", resolve));
  service = await startService(children, env);
  // The restarted service recovered what it found (a paused job: nothing to send) and receives events again.
  await new Promise((resolve) => setTimeout(resolve, 5000));
  expect(await readJob()).toMatchObject({ status: "paused", pause_reason: "bounce_rate" });
  expect((await sim<SimulatorStats>("/__sim/stats")).received).toBe(atPause);
  // The customer cannot resume it.
  expect((await api("POST", `/mail/v1/send-jobs/${jobId}/start`)).status).toBe(409);

  // The operator's word: a minimum sample above what is left (the rest would trip the guard again), then resume.
  expect((await admin("PATCH", `/v1/customers/${demo.id}/mail/reputation`, { min_sample: 10_000 })).status).toBe(200);
  step("restarted; resuming");
  const resumed = await admin<Admin["resumeCustomerSendJob"]>("POST", `/v1/customers/${demo.id}/mail/send-jobs/${jobId}/resume`);
  expect(resumed.status, JSON.stringify(resumed.json)).toBe(200);
  const done = await vi.waitFor(
    async () => {
      const j = await readJob();
      expect(j.status).toBe("completed");
      return j;
    },
    { timeout: 120_000, interval: 200 },
  );
  expect(done.recipients).toMatchObject({ total: TOTAL, pending: 0, unknown: 0, failed: 0 });
  const stats = await sim<SimulatorStats>("/__sim/stats");
  expect(stats.duplicates_by_metadata_message_id).toEqual({});
  expect(stats.received).toBe(TOTAL);
  process.stdout.write(`crash while paused: paused with ${atPause} of ${TOTAL} received; after the restart and the resume ${stats.received}, duplicates 0\n`);
}, 420_000);
