import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { expect } from "vitest";
import { randomToken } from "../../lib/core/secrets";
import { demoBlocks } from "../../lib/mail/blocks/library";
import type { Admin, Mail } from "./harness";

/*
 * Tests with real processes (the service killed or stopped, then started again, against the Postmark
 * simulator in a process of its own): starting them, reading their banners, and the send job they share.
 */

export const repoRoot = join(import.meta.dirname, "..", "..");

export type StartedProcess = { child: ChildProcess; lines: string[]; output: () => string };

/**
 * Starts `command` from the repository root and resolves once a stdout line matches `ready`; every child
 * goes into `registry`, for the test's `afterAll` to kill what is left.
 */
export function startProcess(registry: ChildProcess[], command: string, args: string[], env: Record<string, string>, ready: RegExp): Promise<StartedProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    registry.push(child);
    const lines: string[] = [];
    let pending = "";
    let all = "";
    const output = () => all.slice(-4000);
    child.stderr?.on("data", (chunk: Buffer) => {
      all += chunk.toString("utf8");
      if (process.env.CRASH_DEBUG) process.stdout.write(`[${args.join(" ")}] ${chunk.toString("utf8")}`);
    });
    child.stdout?.on("data", (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      all += text;
      pending += text;
      const complete = pending.split("\n");
      pending = complete.pop() ?? "";
      lines.push(...complete);
      if (lines.some((line) => ready.test(line))) resolve({ child, lines, output });
    });
    child.once("exit", (code, signal) => reject(new Error(`${command} ${args.join(" ")} exited (${code ?? signal}) before it was ready:\n${output()}`)));
  });
}

/** A loopback port free at the moment of asking. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** The text after `label` on the first line that has it (the start-up banner's values). */
export const valueAfter = (lines: string[], label: string) =>
  lines
    .find((line) => line.includes(label))
    ?.split(label)[1]
    ?.trim() ?? "";

export type SimulatorControl = <T = unknown>(path: string, body?: unknown) => Promise<T>;

/** Both simulators in a process of their own (`lib/simulators.ts`), so the provider's record outlives the service. */
export async function startSimulatorsProcess(registry: ChildProcess[]): Promise<{ urls: { postmark: string; graph: string }; sim: SimulatorControl }> {
  const simulators = await startProcess(
    registry,
    process.execPath,
    ["--import", "tsx", "lib/simulators.ts", "--postmark-port", "0", "--graph-port", "0", "--no-webhooks"],
    {},
    /^SIMULATORS /,
  );
  const urls = JSON.parse(valueAfter(simulators.lines, "SIMULATORS ")) as { postmark: string; graph: string };
  const sim: SimulatorControl = <T>(path: string, body?: unknown) =>
    fetch(
      `${urls.postmark}${path}`,
      body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
    ).then((r) => r.json() as Promise<T>);
  return { urls, sim };
}

/**
 * The environment of a service process against the simulators process: always PGlite under `dataDir`
 * (a restart recovers every in-flight send it finds, which must never touch a database other tests share;
 * an empty DATABASE_URL counts as unset), any free port, warnings only.
 */
export function serviceEnv(dataDir: string, urls: { postmark: string; graph: string }, adminToken: string, extra: Record<string, string> = {}) {
  return {
    DATABASE_URL: "",
    DATA_DIR: dataDir,
    PORT: "0",
    HOST: "127.0.0.1",
    POSTMARK_API_URL: urls.postmark,
    GRAPH_API_URL: urls.graph,
    ADMIN_TOKEN: adminToken,
    LOG_LEVEL: "warn",
    ...extra,
  };
}

/** `npm start`'s server (`node lib/start.mjs`) with `env`, once its banner is out; `origin` is where it listens. */
export async function startService(registry: ChildProcess[], env: Record<string, string>): Promise<StartedProcess & { origin: string }> {
  const started = await startProcess(registry, process.execPath, ["lib/start.mjs"], env, /mail service:/);
  const origin = valueAfter(started.lines, "mail service:").split(/\s+/)[0]?.replace("/mail/v1", "").replace("localhost", "127.0.0.1") ?? "";
  return { ...started, origin };
}

export type ServiceApi = <T = unknown>(method: string, path: string, body?: unknown, token?: string) => Promise<{ status: number; json: T }>;

/** JSON calls to a running service; `base()` is read per call, as a restarted service may get another port. */
export function serviceApi(base: () => string, key: string): ServiceApi {
  return async <T>(method: string, path: string, body?: unknown, token = key) => {
    const response = await fetch(`${base()}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as T };
  };
}

/** How a send job's batches go to Postmark: `/email/batch`, or the Bulk API (`bulk_api_enabled` on the customer). */
export type SendPath = "batch" | "bulk";

/** A send job of the Demo customer against the external simulator: a template and a job with `total` recipients (added 3,000 a call). */
export async function demoSendJob(
  api: ServiceApi,
  sim: SimulatorControl,
  adminToken: string,
  input: { name: string; total: number; path?: SendPath },
): Promise<string> {
  await pointDemoAtSimulator(api, sim, adminToken, input.path);
  const template = await api<Mail["createTemplate"]>("POST", "/mail/v1/templates", {
    name: input.name,
    subject: "Hello {{first_name}}",
    blocks: [{ block_id: demoBlocks.find((b) => b.slug === "heading")?.id, values: { title: "Hello {{first_name}}", subtitle: "" } }],
  });
  expect(template.status, JSON.stringify(template.json)).toBe(201);
  const job = await api<Mail["createSendJob"]>("POST", "/mail/v1/send-jobs", { template_id: template.json.data.id });
  const jobId = job.json.data.id as string;
  for (let offset = 0; offset < input.total; offset += 3000) {
    const count = Math.min(3000, input.total - offset);
    const recipients = Array.from({ length: count }, (_, i) => ({ email: `reader${offset + i}@example.com`, data: { first_name: `Reader ${offset + i}` } }));
    const added = await api("POST", `/mail/v1/send-jobs/${jobId}/recipients`, { recipients });
    expect(added.status, JSON.stringify(added.json)).toBe(200);
  }
  return jobId;
}

/**
 * The embedded seed registered the Demo's server with an in-process simulator only: a fresh server token
 * is set on the Demo and registered with the external one; `path` switches the Demo's newsletters to the
 * Bulk API or keeps them on `/email/batch`.
 */
async function pointDemoAtSimulator(api: ServiceApi, sim: SimulatorControl, adminToken: string, path: SendPath = "batch"): Promise<void> {
  const customers = await api<Admin["listCustomers"]>("GET", "/admin/v1/customers?limit=100", undefined, adminToken);
  const demo = (customers.json.data as { id: string; name: string }[]).find((customer) => customer.name === "Demo");
  if (!demo) throw new Error(`no Demo customer: ${JSON.stringify(customers.json)}`);
  const serverToken = `proc-${randomToken(12)}`;
  const patched = await api(
    "PATCH",
    `/admin/v1/customers/${demo.id}/mail/provider`,
    { server_token: serverToken, bulk_api_enabled: path === "bulk" },
    adminToken,
  );
  expect(patched.status, JSON.stringify(patched.json)).toBe(200);
  await sim("/__sim/servers", {
    token: serverToken,
    streams: [
      { id: "outbound", type: "Transactional" },
      { id: "broadcast", type: "Broadcasts" },
    ],
  });
}
