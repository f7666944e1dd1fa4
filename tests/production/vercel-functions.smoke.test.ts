import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startGraphSimulator, type RunningGraphSimulator } from "../../lib/ads/platform/simulator/server";
import { generateEncryptionKey, randomToken } from "../../lib/core/secrets";
import { startNeonLocalProxy, type NeonLocalProxy } from "../../lib/db/neon-local-proxy";
import { defaultFrame, demoBlocks, demoBrand } from "../../lib/mail/blocks/library";
import { startPostmarkSimulator, type RunningPostmarkSimulator } from "../../lib/mail/provider/simulator";
import { VIDEO_RENDER_TOPIC } from "../../lib/ads/templates/video-render";
import { SEND_JOB_BATCH_TOPIC } from "../../lib/mail/send-jobs/transitions";
import { TARGET_CONFIG } from "../ads/support/ads-world";
import { startBlobFake } from "../helpers/blob-fake";
import { postmarkEvent } from "../helpers/postmark-events";
import { repoRoot } from "../helpers/processes";
import { startQstashFake } from "../helpers/qstash-fake";
import { startUpstashFake } from "../helpers/upstash-fake";
import { functionNode, listFunctions, serveVercelOutput, type RunningOutput } from "../helpers/vercel-output";
import type { Admin, Ads, Mail } from "../helpers/harness";

/*
 * The production path, end to end: the functions `vercel build` produced (.vercel/output), loaded as the
 * platform loads them, behind a router applying the build's own routes, with the production configuration
 * (VERCEL set, so the production guards apply) pointed at stand-ins of the managed services: PostgreSQL
 * (a real server), Upstash Redis, QStash, Vercel Blob, and the Postmark and Graph simulators. A portal
 * flow runs through it; every stand-in must have been used, and nothing embedded (PGlite, the in-process
 * queue, local files) may show up. Figures (sizes, cold starts, the send job) are printed, not asserted.
 *
 * Needs a PostgreSQL server (DATABASE_URL) and a build (`npm run vercel:build`); .ci/run has both and sets
 * VERCEL_SMOKE=1, which turns a missing piece into a failure instead of a skip.
 */

const outputDir = join(repoRoot, ".vercel", "output");
const required = process.env.VERCEL_SMOKE === "1";
const missing = !process.env.DATABASE_URL
  ? "no DATABASE_URL: the production smoke test needs a PostgreSQL server (run by .ci/run)"
  : !existsSync(join(outputDir, "config.json"))
    ? "no .vercel/output: run `npm run vercel:build` first"
    : null;
if (missing && required) throw new Error(`VERCEL_SMOKE=1 but ${missing}`);

const RECIPIENTS = 3000;
const STORE_ID = "SmokeStore01";
const BLOB_TOKEN = `vercel_blob_rw_${STORE_ID}_${randomToken(16).replace(/[^A-Za-z0-9]/g, "")}`;
const figures: Record<string, unknown> = {};

describe.skipIf(missing !== null)(`production functions (${missing ?? "built output, stand-ins"})`, () => {
  let database: string;
  let databaseUrl: string;
  let neonDatabaseUrl: string;
  let neonTarget: string;
  let neonProxy: NeonLocalProxy | undefined;
  let dataDir: string;
  let workDir: string;
  const adminToken = randomToken(32);
  const cronSecret = randomToken(24);
  const signingKey = `sig_${randomToken(20)}`;
  let upstash: Awaited<ReturnType<typeof startUpstashFake>>;
  let qstash: Awaited<ReturnType<typeof startQstashFake>>;
  let blob: Awaited<ReturnType<typeof startBlobFake>>;
  let postmark: RunningPostmarkSimulator;
  let graph: RunningGraphSimulator;
  let site: RunningOutput;
  let customerId: string;
  let mailKey: string;
  let adsKey: string;
  let redeliveredBatches = 0;
  let transactionalMessageId: string;
  let blockId: string;

  const call = async <T = unknown>(method: string, path: string, options: { key?: string; body?: unknown; headers?: Record<string, string> } = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    if (options.body !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(`${site.url}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    const text = await response.text();
    let json: unknown = {};
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      json = {};
    }
    return { status: response.status, headers: response.headers, text, json: json as T };
  };
  const describeCall = (r: { status: number; text: string }) => `HTTP ${r.status}: ${r.text.slice(0, 2000)}\n${functionLogs()}`;
  const admin = <T = unknown>(method: string, path: string, body?: unknown) => call<T>(method, `/admin${path}`, { key: adminToken, body });
  const functionLogs = () =>
    [...(site?.functions.values() ?? [])]
      .flatMap((fn) => fn.instances.map((instance, i) => `--- ${fn.path}#${i}\n${instance.output()}`))
      .join("\n")
      .slice(-8000);

  beforeAll(async () => {
    // A database of its own on the server, migrated the way the README tells operators (`npm run db:migrate`).
    database = `smoke_${randomBytes(6).toString("hex")}`;
    const server = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await server.connect();
    await server.query(`CREATE DATABASE ${database}`);
    await server.end();
    const url = new URL(process.env.DATABASE_URL ?? "");
    url.pathname = `/${database}`;
    databaseUrl = url.toString();
    const migrated = spawnSync("npm", ["run", "--silent", "db:migrate"], {
      cwd: repoRoot,
      env: { ...process.env, DATABASE_URL: databaseUrl, NEON_LOCAL_PROXY: "" },
      encoding: "utf8",
    });
    expect(migrated.status, `${migrated.stdout}${migrated.stderr}`).toBe(0);

    // Production reaches Neon with its WebSocket driver: the functions get a `*.neon.tech` URL of this
    // database, and the launcher routes the driver's WebSockets to the local proxy in front of the server.
    neonProxy = await startNeonLocalProxy();
    const direct = new URL(databaseUrl);
    neonTarget = `${direct.hostname}:${direct.port || "5432"}`;
    const neonUrl = new URL(databaseUrl);
    neonUrl.hostname = "ep-smoke-local.eu-central-1.aws.neon.tech";
    neonUrl.port = "";
    neonDatabaseUrl = neonUrl.toString();

    dataDir = join(mkdtempSync(join(tmpdir(), "smoke-")), "data-dir-must-not-appear");
    workDir = mkdtempSync(join(repoRoot, ".vercel", "smoke-"));
    upstash = await startUpstashFake();
    qstash = await startQstashFake({
      token: "qstash-smoke-token",
      currentSigningKey: signingKey,
      timeScale: 0.01,
      // The first three batch deliveries "time out" after the function answered: QStash delivers them again.
      redeliver: (message) => message.destination.endsWith(`/api/queue/${SEND_JOB_BATCH_TOPIC}`) && redeliveredBatches++ < 3,
    });
    blob = await startBlobFake({ storeId: STORE_ID, readWriteToken: BLOB_TOKEN });
    postmark = await startPostmarkSimulator({ servers: [] });
    graph = await startGraphSimulator();

    site = await serveVercelOutput({
      outputDir,
      repoRoot,
      workDir,
      instances: { "/api/queue": 2 },
      env: (origin) => ({
        VERCEL: "1",
        VERCEL_ENV: "production",
        NODE_ENV: "production",
        PUBLIC_BASE_URL: origin,
        DATA_DIR: dataDir,
        DATABASE_URL: neonDatabaseUrl,
        SMOKE_NEON_WS_PROXY: neonProxy?.address ?? "",
        SMOKE_NEON_PG: neonTarget,
        ADMIN_TOKEN: adminToken,
        ENCRYPTION_KEY: generateEncryptionKey(),
        CRON_SECRET: cronSecret,
        UPSTASH_REDIS_REST_URL: upstash.url,
        UPSTASH_REDIS_REST_TOKEN: "upstash-smoke-token",
        QSTASH_URL: qstash.url,
        QSTASH_TOKEN: "qstash-smoke-token",
        QSTASH_CURRENT_SIGNING_KEY: signingKey,
        QSTASH_NEXT_SIGNING_KEY: `sig_${randomToken(20)}`,
        BLOB_READ_WRITE_TOKEN: BLOB_TOKEN,
        VERCEL_BLOB_API_URL: blob.url,
        POSTMARK_API_URL: postmark.url,
        GRAPH_API_URL: graph.graphUrl,
        LOG_LEVEL: "warn",
      }),
    });
  }, 120_000);

  afterAll(async () => {
    await site?.close();
    await Promise.all([upstash?.close(), qstash?.close(), blob?.close(), postmark?.close(), graph?.close(), neonProxy?.close()]);
    if (workDir) rmSync(workDir, { recursive: true, force: true });
    if (database) {
      const server = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await server.connect();
      await server.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await server.end();
    }
    if (Object.keys(figures).length > 0) console.log(`production smoke figures:\n${JSON.stringify(figures, null, 2)}`);
  }, 60_000);

  test("the build has a function per entry, none with an embedded database, each well under the size limit", () => {
    const functions = listFunctions(outputDir);
    expect(functions.map((f) => f.path)).toEqual(
      expect.arrayContaining([
        "/api/admin",
        "/api/ads",
        "/api/console",
        "/api/cron",
        "/api/mail",
        "/api/media",
        "/api/platform",
        "/api/postmark",
        "/api/queue",
        "/api/video",
      ]),
    );
    // The functions run here on the Node major Vercel runs them on: the highest package.json's engines range names.
    const engines = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { engines: { node: string } }).engines.node;
    const version = spawnSync(functionNode(), ["--version"], { encoding: "utf8" }).stdout.trim();
    figures.functionNode = version;
    if (required)
      expect(version.replace(/^v/, "").split(".")[0], `functions run on ${version}, engines say ${engines}`).toBe(
        String(Math.max(...engines.split("||").map((part) => Number.parseInt(part.replace(/^[^\d]*/, ""), 10)))),
      );
    figures.functionSizesMB = Object.fromEntries([...site.functions.values()].map((fn) => [fn.path, Math.round(fn.sizeBytes / 1e5) / 10]));
    for (const fn of site.functions.values()) {
      expect(existsSync(join(fn.dir, "node_modules", "@electric-sql", "pglite")), `${fn.path} ships PGlite`).toBe(false);
      expect(fn.sizeBytes, `${fn.path} size`).toBeLessThan(150 * 1024 * 1024);
    }
  });

  test("operator set-up and health through the admin, mail and ads functions", async () => {
    const coldStarted = performance.now();
    const created = await admin<Admin["createCustomer"]>("POST", "/v1/customers", { name: "Smoke GmbH" });
    figures.firstAdminRequestMs = Math.round(performance.now() - coldStarted);
    expect(created.status, describeCall(created)).toBe(201);
    customerId = created.json.data.id;
    const key = async (service: "mail" | "ads") => {
      const issued = await admin<Admin["issueApiKey"]>("POST", `/v1/customers/${customerId}/keys`, { service, scope: "full" });
      expect(issued.status, describeCall(issued)).toBe(201);
      return issued.json.data.key as string;
    };
    mailKey = await key("mail");
    adsKey = await key("ads");
    for (const [path, token] of [
      ["/mail/v1/health", mailKey],
      ["/ads/v1/health", adsKey],
    ] as const) {
      const health = await call<Mail["getMailHealth"] | Ads["getAdsHealth"]>("GET", path, { key: token });
      expect(health.status, describeCall(health)).toBe(200);
      expect(health.json.data).toEqual({ status: "ok", api_version: "v1" });
      // The rate limiter answered from Upstash (the memory limiter sends the same headers, the fake saw it).
      expect(health.headers.get("ratelimit-limit") ?? health.headers.get("x-ratelimit-limit"), describeCall(health)).not.toBeNull();
    }
    expect(upstash.commands.some(([name]) => name?.toLowerCase() === "evalsha")).toBe(true);
    expect((await call("GET", "/mail/v1/health")).status).toBe(401);
    expect((await call("GET", "/nowhere")).status).toBe(404);
    expect((await call("GET", "/robots.txt")).text).toContain("Disallow: /");

    // Mail: the Postmark server, streams, domain and senders; a block; the frame's defaults.
    const serverToken = `smoke-${randomToken(16)}`;
    postmark.simulator.addServer({
      token: serverToken,
      streams: [
        { id: "outbound", type: "Transactional" },
        { id: "broadcast", type: "Broadcasts" },
      ],
    });
    const provider = await admin("PATCH", `/v1/customers/${customerId}/mail/provider`, {
      server_token: serverToken,
      transactional_stream: "outbound",
      broadcast_stream: "broadcast",
      verified_domains: ["smoke.example.com"],
      default_newsletter_from: { email: "news@smoke.example.com", name: "Smoke GmbH" },
      default_transactional_from: { email: "hello@smoke.example.com", name: "Smoke GmbH" },
    });
    expect(provider.status, describeCall(provider)).toBe(200);
    expect(provider.text).not.toContain(serverToken);
    const frame = await admin("PUT", `/v1/customers/${customerId}/mail/frame`, { ...defaultFrame, brand: { ...demoBrand, company_name: "Smoke GmbH" } });
    expect(frame.status, describeCall(frame)).toBe(200);
    const heading = demoBlocks.find((b) => b.slug === "heading");
    const block = await admin<Admin["createMailBlock"]>("POST", "/v1/mail/blocks", {
      slug: `smoke-heading-${randomToken(4)
        .toLowerCase()
        .replace(/[^a-z0-9]/g, "")}`,
      name: "Heading",
      mjml: heading?.mjml,
      params: heading?.params,
    });
    expect(block.status, describeCall(block)).toBe(201);
    blockId = block.json.data.id;
    const enabled = await admin("PUT", `/v1/customers/${customerId}/mail/blocks/${blockId}`);
    expect(enabled.status, describeCall(enabled)).toBe(200);
  }, 120_000);

  test("the operator console through its function: pages, the prebuilt script, a session and the admin API behind it", async () => {
    expect((await fetch(`${site.url}/console`, { redirect: "manual" })).headers.get("location")).toBe("/console/sign-in");
    expect(await (await fetch(`${site.url}/console/sign-in`)).text()).toContain("Operator token");
    const script = await fetch(`${site.url}/console/app.js`);
    expect(script.headers.get("content-type")).toContain("text/javascript");
    expect((await script.text()).length).toBeGreaterThan(10_000);
    const signedIn = await fetch(`${site.url}/console/sign-in`, { method: "POST", body: new URLSearchParams({ token: adminToken }), redirect: "manual" });
    expect(signedIn.status).toBe(303);
    const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const customer = await fetch(`${site.url}/console/api/customers/${customerId}`, { headers: { cookie } });
    expect(customer.status).toBe(200);
    expect(((await customer.json()) as { data: { name: string } }).data.name).toBe("Smoke GmbH");
  });

  test("a preview, and a transactional send once under an idempotency key (Upstash)", async () => {
    const preview = await call<Mail["renderPreview"]>("POST", "/mail/v1/render/preview", {
      key: mailKey,
      body: { blocks: [{ block_id: blockId, values: { title: "Hello {{first_name}}", subtitle: "" } }], params: { first_name: "Ann" } },
    });
    expect(preview.status, describeCall(preview)).toBe(200);
    expect(preview.json.data.html).toContain("Hello");

    const template = await admin<Admin["createCustomerMailTemplate"]>("POST", `/v1/customers/${customerId}/mail/templates`, {
      name: "Order",
      kind: "transactional",
      subject: "Your order {{order_number}}",
      params: [{ name: "order_number", label: "Order number", type: "string", required: true, example: "A-1" }],
      blocks: [{ block_id: blockId, values: { title: "Order {{order_number}}", subtitle: "" } }],
    });
    expect(template.status, describeCall(template)).toBe(201);
    const send = <T = Mail["sendTemplate"]>() =>
      call<T>("POST", `/mail/v1/templates/${template.json.data.id}/send`, {
        key: mailKey,
        body: { to: "jane@readers.example.com", params: { order_number: "A-1" } },
        headers: { "idempotency-key": "smoke-order-A-1" },
      });
    const first = await send();
    expect(first.status, describeCall(first)).toBe(200);
    expect(first.json.data.status).toBe("accepted");
    transactionalMessageId = first.json.data.message_id;
    const again = await send();
    expect(again.json.data.message_id).toBe(first.json.data.message_id);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(postmark.simulator.messages({ to: "jane@readers.example.com" }).messages).toHaveLength(1);
    expect(upstash.commands.some((command) => command[0]?.toLowerCase() === "set" && command.some((part) => part.toLowerCase() === "nx"))).toBe(true);
  }, 60_000);

  test("a Postmark delivery event reaches the receiver function with the customer's credentials", async () => {
    const setup = await admin<Admin["revealCustomerPostmarkWebhook"]>("POST", `/v1/customers/${customerId}/mail/postmark-webhook/reveal`);
    expect(setup.status, describeCall(setup)).toBe(200);
    const { username, password } = setup.json.data;
    const event = postmarkEvent.delivery({ message_id: transactionalMessageId }, new Date().toISOString(), "outbound", "jane@readers.example.com");
    const post = (authorization: string) =>
      fetch(`${site.url}/api/postmark/webhook/${customerId}`, {
        method: "POST",
        headers: { authorization, "content-type": "application/json" },
        body: JSON.stringify(event),
      });
    expect((await post(`Basic ${Buffer.from(`${username}:wrong`).toString("base64")}`)).status).toBe(401);
    const accepted = await post(`Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`);
    expect(accepted.status, await accepted.clone().text()).toBe(200);
    const message = await call<Mail["getMessage"]>("GET", `/mail/v1/messages/${transactionalMessageId}`, { key: mailKey });
    expect(message.json.data?.status, describeCall(message)).toBe("delivered");
  }, 60_000);

  test(`a send job of ${RECIPIENTS} recipients fans out through QStash to the queue function and reaches each recipient once`, async () => {
    const template = await call<Mail["createTemplate"]>("POST", "/mail/v1/templates", {
      key: mailKey,
      body: { name: "Spring", subject: "Hello {{first_name}}", blocks: [{ block_id: blockId, values: { title: "Hello {{first_name}}", subtitle: "" } }] },
    });
    expect(template.status, describeCall(template)).toBe(201);
    const job = await call<Mail["createSendJob"]>("POST", "/mail/v1/send-jobs", { key: mailKey, body: { template_id: template.json.data.id } });
    expect(job.status, describeCall(job)).toBe(201);
    const jobId = job.json.data.id as string;
    for (let offset = 0; offset < RECIPIENTS; offset += 1000) {
      const recipients = Array.from({ length: Math.min(1000, RECIPIENTS - offset) }, (_, i) => ({
        email: `reader${offset + i}@readers.example.com`,
        data: { first_name: `Reader ${offset + i}` },
      }));
      const added = await call("POST", `/mail/v1/send-jobs/${jobId}/recipients`, { key: mailKey, body: { recipients } });
      expect(added.status, describeCall(added)).toBe(200);
    }
    const started = performance.now();
    const start = await call("POST", `/mail/v1/send-jobs/${jobId}/start`, { key: mailKey });
    expect(start.status, describeCall(start)).toBe(200);
    let status = "";
    for (let i = 0; i < 600 && status !== "completed"; i++) {
      await qstash.idle();
      const detail = await call<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${jobId}`, { key: mailKey });
      status = detail.json.data?.status ?? detail.text;
      if (status !== "completed") await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const elapsed = performance.now() - started;
    expect(status, functionLogs()).toBe("completed");

    // What Postmark accepted for the job, page by page (the simulator lists at most 1,000 at a time).
    const perAddress = new Map<string, number>();
    const first = postmark.simulator.messages({ metadataKey: "send_job_id", metadataValue: jobId, limit: 1000 });
    for (let offset = 0; offset < first.total; offset += 1000) {
      for (const message of postmark.simulator.messages({ metadataKey: "send_job_id", metadataValue: jobId, limit: 1000, offset }).messages) {
        perAddress.set(message.To, (perAddress.get(message.To) ?? 0) + 1);
      }
    }
    expect(first.total).toBe(RECIPIENTS);
    expect(perAddress.size).toBe(RECIPIENTS);
    expect([...perAddress.values()].every((n) => n === 1)).toBe(true);

    const batchDeliveries = qstash.deliveries.filter((d) => d.destination.endsWith(`/api/queue/${SEND_JOB_BATCH_TOPIC}`));
    const batchMessages = new Set(batchDeliveries.map((d) => d.messageId));
    expect(batchMessages.size).toBeGreaterThan(1);
    expect(batchDeliveries.length).toBeGreaterThan(batchMessages.size);
    expect(
      batchDeliveries.every((d) => d.status === 200),
      JSON.stringify(batchDeliveries.filter((d) => d.status !== 200)),
    ).toBe(true);
    const queue = site.functions.get("/api/queue");
    expect(queue?.instances.every((instance) => instance.served > 0)).toBe(true);
    figures.sendJob = {
      recipients: RECIPIENTS,
      ms: Math.round(elapsed),
      perSecond: Math.round(RECIPIENTS / (elapsed / 1000)),
      qstashPublishes: qstash.published.length,
      qstashDeduplicated: qstash.deduplicated.length,
      batchMessages: batchMessages.size,
      batchDeliveries: batchDeliveries.length,
      queueRequestsPerInstance: queue?.instances.map((instance) => instance.served),
    };
  }, 180_000);

  test("an asset: client-upload token from the API, the bytes straight to Blob, published (by the image function) and publicly readable", async () => {
    const media = site.functions.get("/api/media");
    const mailFunction = site.functions.get("/api/mail");
    const announced = await call<Mail["createAsset"]>("POST", "/mail/v1/assets", { key: mailKey, body: { filename: "photo", content_type: "image/png" } });
    expect(announced.status, describeCall(announced)).toBe(201);
    expect(announced.text).not.toContain(BLOB_TOKEN);
    const { url, headers } = announced.json.data.upload as { url: string; headers: Record<string, string> };
    expect(url.startsWith(blob.url)).toBe(true);
    const image = await sharp({ create: { width: 320, height: 200, channels: 3, background: { r: 200, g: 40, b: 40 } } })
      .png()
      .toBuffer();
    const put = await fetch(url, { method: "PUT", headers, body: new Uint8Array(image) });
    expect(put.status, await put.clone().text()).toBe(200);
    const [mediaBefore, mailBefore] = [media?.requests ?? 0, mailFunction?.requests ?? 0];
    const done = await call<Mail["completeAsset"]>("POST", `/mail/v1/assets/${announced.json.data.id}/complete`, { key: mailKey });
    expect(done.status, describeCall(done)).toBe(200);
    // The completion (libvips) ran on api/media; the mail function ships no image code.
    expect(media?.requests).toBe(mediaBefore + 1);
    expect(mailFunction?.requests).toBe(mailBefore);
    expect(existsSync(join(mailFunction?.dir ?? "", "node_modules", "@img"))).toBe(false);
    expect(existsSync(join(media?.dir ?? "", "node_modules", "@img"))).toBe(true);
    const published = await fetch(done.json.data.url as string);
    expect(published.status).toBe(200);
    expect((await sharp(Buffer.from(await published.arrayBuffer())).metadata()).width).toBeGreaterThan(0);
  }, 60_000);

  test("a cron tick needs the cron secret", async () => {
    const refused = await call("GET", "/api/cron/send-jobs-sweep");
    expect(refused.status, describeCall(refused)).toBe(401);
    const started = performance.now();
    const tick = await call("GET", "/api/cron/send-jobs-sweep", { key: cronSecret });
    figures.firstCronRequestMs = Math.round(performance.now() - started);
    expect(tick.status, describeCall(tick)).toBe(200);
  }, 60_000);

  test("the video render topic reaches the video function, the only one that ships ffmpeg", async () => {
    const video = site.functions.get("/api/video");
    const queue = site.functions.get("/api/queue");
    const [videoBefore, queueBefore] = [video?.requests ?? 0, queue?.requests ?? 0];
    // Unsigned: refused by the queue route, but only the routing is looked at here.
    const unsigned = await call("POST", `/api/queue/${VIDEO_RENDER_TOPIC}`, { body: { creative_id: "00000000-0000-4000-8000-000000000000" } });
    expect(unsigned.status, describeCall(unsigned)).toBe(401);
    expect(video?.requests).toBe(videoBefore + 1);
    expect(queue?.requests).toBe(queueBefore);
    // ffmpeg ships brotli-compressed in the bundle's folder (mapped in: filePathMap), only there.
    const mapped = (dir: string) => Object.keys((JSON.parse(readFileSync(join(dir, ".vc-config.json"), "utf8")) as { filePathMap?: object }).filePathMap ?? {});
    expect(mapped(video?.dir ?? "")).toContain("dist/ffmpeg/ffmpeg.br");
    expect(mapped(queue?.dir ?? "")).not.toContain("dist/ffmpeg/ffmpeg.br");
    expect(existsSync(join(queue?.dir ?? "", "node_modules", "@ffmpeg-installer"))).toBe(false);
  });

  test("an ad set is created on the Graph API", async () => {
    const digits = (n: number) =>
      Array.from({ length: n }, (_, i) => String(i === 0 ? 1 + ((randomBytes(1)[0] ?? 0) % 9) : (randomBytes(1)[0] ?? 0) % 10)).join("");
    const accessToken = `EAAsmoke${digits(24)}`;
    const appSecret = `secret-${digits(16)}`;
    const adAccountId = digits(13);
    const pageId = digits(15);
    const campaignId = digits(18);
    graph.simulator.controls.addApp({ appSecret, accessTokens: [accessToken] });
    graph.simulator.controls.addAdAccount({ id: adAccountId, pageIds: [pageId], campaigns: [{ id: campaignId }] });
    const onboarding = await admin("PATCH", `/v1/customers/${customerId}/ads/account`, {
      access_token: accessToken,
      app_secret: appSecret,
      ad_account_id: `act_${adAccountId}`,
      page_id: pageId,
      instagram_account_id: digits(17),
      dsa_beneficiary: "Smoke GmbH",
      dsa_payor: "Smoke GmbH",
      legal_name: "Smoke GmbH",
    });
    expect(onboarding.status, describeCall(onboarding)).toBe(200);
    const target = await admin("POST", `/v1/customers/${customerId}/ads/targets`, {
      key: "main",
      platform_campaign_id: campaignId,
      status: "ACTIVE",
      config: TARGET_CONFIG,
    });
    expect(target.status, describeCall(target)).toBe(201);
    const adset = await call<Ads["createAdSet"]>("POST", "/ads/v1/adsets", {
      key: adsKey,
      body: { target: "main", daily_budget_cents: 2500 },
      headers: { "idempotency-key": "smoke-adset-1" },
    });
    expect(adset.status, describeCall(adset)).toBe(201);
    expect(graph.simulator.controls.state.adsets.get(adset.json.data.platform_adset_id)?.campaignId).toBe(campaignId);
  }, 60_000);

  test("every production adapter was on the path and nothing embedded was", async () => {
    // PostgreSQL holds what the functions wrote.
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    const customers = await db.query("SELECT name FROM customers WHERE id = $1", [customerId]);
    await db.end();
    expect(customers.rows).toEqual([{ name: "Smoke GmbH" }]);
    // …and reached it through the Neon driver's WebSockets, as production does.
    expect(neonProxy?.connections).toBeGreaterThan(0);
    // Blob: the raw upload and the published image went through the API; no local file store appeared.
    expect(blob.seen.filter((r) => r.method === "PUT").length).toBeGreaterThanOrEqual(2);
    expect(existsSync(dataDir)).toBe(false);
    for (const fn of site.functions.values())
      expect(
        readdirSync(fn.dir).filter((name) => name === ".data" || name === "blobs"),
        fn.path,
      ).toEqual([]);
    // QStash carried every background task, and the in-process queue none: every batch the engine ran was a delivery.
    expect(qstash.published.length).toBeGreaterThan(0);
    expect(qstash.deadLetters).toEqual([]);

    // Every built function loads under plain Node and exports HTTP handlers, also those the flow did not call
    // (checked last, so the cold starts above were real first requests).
    for (const fn of site.functions.values()) {
      for (const instance of fn.instances) {
        const loaded = await fetch(`http://127.0.0.1:${instance.port}/__launcher/load`);
        const body = (await loaded.json()) as { exports?: string[]; error?: string };
        expect(loaded.status, `${fn.path}: ${body.error ?? ""}`).toBe(200);
        expect(
          body.exports?.some((name) => ["GET", "POST", "PUT", "PATCH", "DELETE"].includes(name)),
          `${fn.path} exports ${body.exports?.join(", ")}`,
        ).toBe(true);
      }
    }

    figures.coldStart = Object.fromEntries(
      [...site.functions.values()].map((fn) => [
        fn.path,
        {
          importMs: fn.instances.map((instance) => instance.loadedMs),
          firstRequestMs: fn.firstRequestMs.map(Math.round),
          warmMedianMs: fn.warmRequestMs.length ? Math.round(fn.warmRequestMs.toSorted((a, b) => a - b)[Math.floor(fn.warmRequestMs.length / 2)] ?? 0) : null,
          requests: fn.requests,
        },
      ]),
    );
  });
});
