import { serve, type ServerType } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import type { CustomerResponse } from "../../lib/admin/routes/customers/schema";
import type { IssuedApiKeyResponse } from "../../lib/admin/routes/keys/schema";
import { ManualClock } from "../../lib/core/clock";
import { loadConfig, type Config } from "../../lib/core/config";
import { createCoreDeps } from "../../lib/core/deps";
import { createLogger } from "../../lib/core/logger";
import { generateEncryptionKey, randomToken } from "../../lib/core/secrets";
import { openDatabase, type DatabaseHandle } from "../../lib/db/client";
import { startProviders } from "../../lib/providers";
import { createRootApp, type RuntimeDeps } from "../../lib/runtime";
import { pointSimulatorAtReceiver } from "../../lib/mail/seed";

export type Harness = Awaited<ReturnType<typeof createHarness>>;

export type CallOptions = { key?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> };

/** A success body of the three APIs: `call<Envelope<Template>>(…)` types `json.data`. */
export type Envelope<T> = { data: T; request_id: string };

/** A page of the mail and admin lists (`paging.after` cursor). */
export type Page<T> = { data: T[]; paging: { after: string | null; has_next: boolean }; request_id: string };

/** The error envelope (details shaped per service: mail and admin `[{ path, message }]`, ads `[{ field, issue }]`). */
export type ErrorEnvelope = { error: { code: string; message: string; details: unknown }; request_id: string };

/** What `call` answers; `json` is the parsed body (null when it is not JSON), typed as the caller says. */
export type CallResult<T> = { status: number; headers: Headers; text: string; json: T };

/**
 * A whole deployment for HTTP tests: the real migrations on a real Postgres engine (in-memory PGlite,
 * or the server in `DATABASE_URL` when CI runs the suite against PostgreSQL), embedded adapters, and the
 * same root app `npm start` serves. Each test makes its own customers, so tests share no ids.
 */
export async function createHarness(
  options: {
    env?: Record<string, string>;
    clock?: ManualClock;
    postmarkWebhooks?: boolean /** The simulators read the harness clock too. */;
    sharedClock?: boolean;
  } = {},
) {
  const config: Config = loadConfig({
    LOG_LEVEL: "silent",
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
  const providers = await startProviders(config, { embedded: true, clock: options.sharedClock ? clock : undefined });
  const deps: RuntimeDeps = { ...createCoreDeps({ config, db: handle.db, clock, logger, encryptionKey: generateEncryptionKey() }), adminToken, providers };
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

  // The default body type keeps untyped callers (`r.json.data.id`) compiling; typed ones name the response.
  async function call<T = Record<string, any>>(method: string, path: string, options: CallOptions = {}): Promise<CallResult<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    let body: string | undefined = options.rawBody;
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

  const admin = <T = Record<string, any>>(method: string, path: string, body?: unknown) => call<T>(method, `/admin${path}`, { key: adminToken, body });

  /** A fresh customer with a full and a reporting key for each service. */
  async function customer(name = "Test customer") {
    const created = await admin<Envelope<CustomerResponse>>("POST", "/v1/customers", { name });
    if (created.status !== 201) throw new Error(`customer create failed: ${created.text}`);
    const id = created.json.data.id;
    const key = async (service: "mail" | "ads", scope: "full" | "reporting"): Promise<string> => {
      const issued = await admin<Envelope<IssuedApiKeyResponse>>("POST", `/v1/customers/${id}/keys`, { service, scope });
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
    logLines,
    db: handle.db,
    close: async () => {
      deps.queue.close();
      await providers.close();
      await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
      await handle.close();
    },
  };
}

/** Prints the whole response on failure, as STYLE asks. */
export function describeResponse(r: { status: number; text: string }): string {
  return `HTTP ${r.status}: ${r.text}`;
}
