import { serve, type ServerType } from "@hono/node-server";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CronJob } from "../../lib/cron";
import type { AdsComponents, AdsOperations, MailComponents, MailOperations } from "@mail-ads/client";
import type { AdminOperations } from "@mail-ads/client/admin";
import { ManualClock } from "../../lib/base/clock";
import { loadConfig, type Config } from "../../lib/core/config";
import { createCoreDeps } from "../../lib/core/deps";
import { createLogger } from "../../lib/base/logger";
import { generateEncryptionKey, randomToken } from "../../lib/core/secrets";
import { openDatabase, type DatabaseHandle } from "../../lib/db/client";
import { startProviders } from "../../lib/providers";
import { createRootApp, type RuntimeDeps } from "../../lib/runtime";
import { pointSimulatorAtReceiver } from "../../lib/mail/seed";

export type Harness = Awaited<ReturnType<typeof createHarness>>;

/** `rawBody` is sent as given: text (as UTF-8) or bytes (e.g. bytes that are not UTF-8). */
export type CallOptions = { key?: string | null; body?: unknown; rawBody?: string | Uint8Array<ArrayBuffer>; headers?: Record<string, string> };

type JsonBody<R> = R extends { content: { "application/json": infer B } } ? B : never;
/** The JSON bodies of an operation's 2xx answers. */
type SuccessBody<O extends { responses: object }> = {
  [S in keyof O["responses"]]: S extends 200 | 201 | 202 | 203 ? JsonBody<O["responses"][S]> : never;
}[keyof O["responses"]];
type SuccessBodies<Ops> = { [Id in keyof Ops]: Ops[Id] extends { responses: object } ? SuccessBody<Ops[Id]> : never };

/**
 * The success body of each operation, keyed by its `operationId`, from the generated client types (the one
 * source of response types): `call<Mail["getTemplate"]>("GET", `/mail/v1/templates/${id}`, …)`.
 */
export type Mail = SuccessBodies<MailOperations>;
export type Ads = SuccessBodies<AdsOperations>;
export type Admin = SuccessBodies<AdminOperations>;

/** A success body of the internal routes outside the three documents (`/api/…`: the provider receivers, cron). */
export type Envelope<T> = { data: T; request_id: string };

/** What `GET /api/cron/<job>` answers (an internal route, typed by the job list it serves). */
export type CronRun = Envelope<{ job: string; result: Awaited<ReturnType<CronJob["run"]>> }>;

/** The documents' error detail items: mail and admin `{ path, message }`, ads `{ field, issue }`. */
export type ErrorDetail = MailComponents["schemas"]["ErrorDetail"];
export type FieldIssue = AdsComponents["schemas"]["ErrorFieldIssue"];
/** A 403 for a setup that is not complete yet: `{ missing: [...] }` (mail and ads). */
export type MissingDetails = Extract<MailComponents["schemas"]["MailForbiddenError"]["error"]["details"], { missing: unknown }>;
/** Ads state errors (409, 402, 429 quota): an object of facts such as `reason` or `published_this_month`. */
export type StateDetails = Exclude<AdsComponents["schemas"]["AdsStateError"]["error"]["details"], readonly unknown[]>;

/**
 * The error envelope of the three documents. `details` is shaped per code and service (the documents give
 * each shape); a test that reads into it names the shape it expects: `ErrorEnvelope<ErrorDetail[]>`.
 */
export type ErrorEnvelope<Details = unknown> = {
  error: Omit<MailComponents["schemas"]["MailError"]["error"], "details"> & { details: Details };
  request_id: MailComponents["schemas"]["MailError"]["request_id"];
};

/**
 * A served OpenAPI document (`GET /<service>/v1/openapi.json`) as tests read it: path → method → operation
 * (the whole document type, `OpenAPI3`, is what `lib/commands/client-documents.ts` generates the client types from).
 */
export type OpenApiDocument = {
  info: { title: string; version: string; description: string };
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> };
};
type OpenApiOperation = { operationId: string; summary: string; description: string; responses: Record<string, unknown> };

/** What `call` answers; `json` is the parsed body (null when it is not JSON), typed as the caller says. */
export type CallResult<T> = { status: number; headers: Headers; text: string; json: T };

/**
 * A whole deployment for HTTP tests: the real migrations on a real Postgres engine (in-memory PGlite,
 * or the server in `DATABASE_URL` when CI runs the suite against PostgreSQL), embedded adapters, and the
 * same root app `npm start` serves. Each test makes its own customers, so tests share no ids.
 * Files run side by side (vitest.config.ts), so a harness shares nothing on disk either: its `DATA_DIR` (the
 * local blob store's files, which the raw-upload sweep lists whole) is a temporary directory of its own,
 * removed at `close`, unless the test gives one.
 */
export async function createHarness(
  options: {
    env?: Record<string, string>;
    clock?: ManualClock;
    postmarkWebhooks?: boolean /** The simulators read the harness clock too. */;
    sharedClock?: boolean;
    /** The embedded Postmark simulator's bounds, e.g. `maxTrackedMessages` above a job's recipients. */
    postmarkSimulator?: { maxTrackedMessages?: number };
  } = {},
) {
  const ownDataDir = options.env?.DATA_DIR ? null : mkdtempSync(join(tmpdir(), "harness-"));
  const config: Config = loadConfig({
    LOG_LEVEL: "silent",
    ...(ownDataDir ? { DATA_DIR: ownDataDir } : {}),
    // Tests drive insights snapshots explicitly (runInsightsSnapshots); insights-on-connect turns this on.
    ADS_INSIGHTS_BACKFILL_ON_CONNECT: "false",
    // The harness calls the admin API with the shared token (`admin()`); on the CI's shared PostgreSQL another
    // file may have created an owner already, which retires that token unless break-glass is on.
    ADMIN_TOKEN_BREAK_GLASS: "true",
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
    ...(process.env.NEON_LOCAL_PROXY ? { NEON_LOCAL_PROXY: process.env.NEON_LOCAL_PROXY } : {}),
    ...options.env,
  });
  const handle: DatabaseHandle = await openDatabase({ url: config.DATABASE_URL, neonLocalProxy: config.NEON_LOCAL_PROXY });
  const clock = options.clock ?? new ManualClock(new Date());
  const logLines: string[] = [];
  const logger = createLogger("debug", (line) => logLines.push(line));
  const adminToken = randomToken(32);
  const providers = await startProviders(config, {
    embedded: true,
    clock: options.sharedClock ? clock : undefined,
    postmarkSimulator: options.postmarkSimulator,
  });
  const deps: RuntimeDeps = {
    ...createCoreDeps({ config, db: handle.db, priority: handle.priority, clock, logger, encryptionKey: generateEncryptionKey() }),
    adminToken,
    providers,
  };
  // Each service's deps as the runtime built them (the workers of the queue are registered with these).
  const { root, mailDeps, adsDeps, cronDeps } = createRootApp(deps);
  // `postmarkWebhooks`: the simulator posts its events to this app over loopback, as in `npm start`.
  let receiver: ServerType | null = null;
  if (options.postmarkWebhooks) {
    const listening = await new Promise<{ server: ServerType; port: number }>((resolve) => {
      const server = serve({ fetch: root.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) => resolve({ server, port: info.port }));
    });
    receiver = listening.server;
    await pointSimulatorAtReceiver(deps, `http://127.0.0.1:${listening.port}`);
  }

  // `json` is `unknown` unless the caller names the body: `call<Mail["getTemplate"]>`, `call<ErrorEnvelope>`.
  async function call<T = unknown>(method: string, path: string, options: CallOptions = {}): Promise<CallResult<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    let body: string | Uint8Array<ArrayBuffer> | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["content-type"] ??= "application/json";
    }
    const response = await root.request(path, { method, headers, body });
    const text = await response.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { status: response.status, headers: response.headers, text, json: json as T };
  }

  const admin = <T = unknown>(method: string, path: string, body?: unknown) => call<T>(method, `/admin${path}`, { key: adminToken, body });

  /** A fresh customer with a full and a reporting key for each service. */
  async function customer(name = "Test customer") {
    const created = await admin<Admin["createCustomer"]>("POST", "/v1/customers", { name });
    if (created.status !== 201) throw new Error(`customer create failed: ${created.text}`);
    const id = created.json.data.id;
    const key = async (service: "mail" | "ads", scope: "full" | "reporting"): Promise<string> => {
      const issued = await admin<Admin["issueApiKey"]>("POST", `/v1/customers/${id}/keys`, { service, scope });
      if (issued.status !== 201) throw new Error(`key issue failed: ${issued.text}`);
      return issued.json.data.key;
    };
    return {
      id,
      mailFull: await key("mail", "full"),
      mailReporting: await key("mail", "reporting"),
      adsFull: await key("ads", "full"),
      adsReporting: await key("ads", "reporting"),
    };
  }

  return {
    deps,
    mailDeps,
    adsDeps,
    cronDeps,
    root,
    call,
    admin,
    customer,
    clock,
    /** This deployment's priority gate (lib/db/priority.ts): tests mark work and wait for its traffic to stop through it. */
    priority: handle.priority,
    logLines,
    db: handle.db,
    close: async () => {
      deps.queue.close();
      await providers.close();
      await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
      await handle.close();
      if (ownDataDir) rmSync(ownDataDir, { recursive: true, force: true });
    },
  };
}

/** Prints the whole response on failure, as STYLE asks. */
export function describeResponse(r: { status: number; text: string }): string {
  return `HTTP ${r.status}: ${r.text}`;
}
