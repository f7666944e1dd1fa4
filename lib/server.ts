import { serve, type ServerType } from "@hono/node-server";
import { bootRuntime, type Runtime } from "./bootstrap";
import { ConfigError } from "./core/config";
import { startScheduler } from "./cron";
import { FILES_PATH } from "./core/public-files";
import { pointSimulatorAtReceiver, registerSimulatorServers } from "./mail/seed";
import { recoverAfterRestart } from "./mail";
import { resumeVideoRenders } from "./ads";
import { pointGraphSimulatorAtReceiver } from "./ads/seed";
import { seedDemo } from "./seed";
import { createBootstrapGate } from "./admin/operators/accounts";
import { exportLines } from "./start-banner";
import { removeServerFile, writeServerFile } from "./data-dir";

/**
 * `npm start`: both services, the admin API and the embedded adapters in one local process.
 */
async function main(): Promise<void> {
  const runtime = await bootRuntime();
  const { config, deps } = runtime;
  const bootedAt = deps.clock.now();
  const demo = await seedDemo(deps, runtime.app.adsDeps, { media: "deferred" });
  await registerSimulatorServers(deps);
  const stopScheduler = startScheduler(runtime.app.cronDeps);
  const operatorLines = (await createBootstrapGate(deps.db).retired())
    ? [
        "  operators:     sign in to the console with your e-mail and password; the shared operator token is retired",
        "                 (break-glass: ADMIN_TOKEN_BREAK_GLASS=true, every use audited)",
      ]
    : [
        `  operator token: ${runtime.adminTokenSource} (bootstrap: works until the first owner account exists)`,
        "  first owner:   npm run admin -- operators:create --email you@example.com --role owner",
      ];

  // Only the embedded Graph simulator gets the Demo's ads data (media: "deferred" returns a no-op otherwise).
  const demoMedia = deps.providers.graphSimulator ? demo.media : null;
  if (demoMedia) runtime.app.startup.demoData = "preparing";
  const server = serve({ fetch: runtime.fetch, port: config.PORT, hostname: config.HOST }, (info) => {
    const base = config.PUBLIC_BASE_URL ?? `http://localhost:${info.port}`;
    // The simulator posts provider events to our own receiver, over loopback when bound to every interface.
    const host = ["0.0.0.0", "::"].includes(config.HOST) ? "127.0.0.1" : config.HOST.includes(":") ? `[${config.HOST}]` : config.HOST;
    // The admin CLI finds this server through the data directory, whatever port it got.
    writeServerFile(config.DATA_DIR, `http://${host}:${info.port}`, deps.cliToken);
    pointSimulatorAtReceiver(deps, `http://${host}:${info.port}`).catch((error: unknown) =>
      deps.logger.error("the Postmark simulator could not be pointed at the receiver", { error: String(error) }),
    );
    pointGraphSimulatorAtReceiver(deps, `http://${host}:${info.port}`).catch((error: unknown) =>
      deps.logger.error("the Graph simulator could not subscribe to the platform webhook receiver", { error: String(error) }),
    );
    const lines = [
      "",
      "Mail and ads middleware is running (embedded mode).",
      `  mail service:  ${base}/mail/v1   (docs: ${base}/mail/v1/docs)`,
      `  ads service:   ${base}/ads/v1    (docs: ${base}/ads/v1/docs)`,
      `  admin API:     ${base}/admin/v1  (docs: ${base}/admin/v1/docs)`,
      `  console:       ${base}/console   (operator console; sign in with e-mail and password, or the bootstrap token)`,
      `  webhooks:      ${base}/api/postmark/webhook/<customer_id>, ${base}/api/platform/webhook`,
      `  workers/crons: ${base}/api/queue/*, ${base}/api/cron/*`,
      `  image files:   ${config.BLOB_READ_WRITE_TOKEN ? "Vercel Blob (BLOB_READ_WRITE_TOKEN)" : `${base}${FILES_PATH}/assets/<sha256>.jpg|png (stored in ${config.DATA_DIR}/blobs)`}`,
      ...operatorLines,
      `  Postmark:      ${deps.providers.postmarkSimulator ? `simulator at ${deps.providers.postmarkApiUrl} (sent mail: ${deps.providers.postmarkApiUrl}/__sim/messages)` : deps.providers.postmarkApiUrl}`,
      `  Graph API:     ${deps.providers.graphSimulator ? `simulator at ${deps.providers.graphSimulator.url} (API under ${deps.providers.graphApiUrl})` : deps.providers.graphApiUrl}`,
      `  data:          ${config.DATABASE_URL ? "DATABASE_URL" : `${config.DATA_DIR}/ (PGlite)`}`,
    ];
    lines.push(`  Demo customer: ${demo.customerId}`);
    if (demo.keys) {
      lines.push(
        "",
        "Demo customer created. Its API keys are shown this once; store them now:",
        `  mail full:      ${demo.keys.mailFull}`,
        `  mail reporting: ${demo.keys.mailReporting}`,
        `  ads full:       ${demo.keys.adsFull}`,
        `  ads reporting:  ${demo.keys.adsReporting}`,
        `(Issue more with: npm run admin -- keys:create ${demo.customerId} mail full)`,
      );
    } else {
      lines.push(
        "",
        `The Demo's keys were printed on its first start; issue new ones with: npm run admin -- keys:create ${demo.customerId} mail|ads full|reporting`,
      );
    }
    const exports = exportLines({
      base,
      adminTokenFile: runtime.adminTokenSource === "environment" ? null : runtime.adminTokenSource,
      demo,
      postmarkSimulator: deps.providers.postmarkSimulator?.url ?? null,
      graphSimulator: deps.providers.graphSimulator?.url ?? null,
    });
    lines.push("", "Paste into your shell for the guides' walk-throughs (docs/portal-developers):", ...exports.map((line) => `  ${line}`));
    if (demoMedia)
      lines.push("", `Demo data: being prepared (${DEMO_DATA})… GET ${base}/health answers demo_data "preparing" until "Demo data: ready" is printed.`);
    process.stdout.write(`${lines.join("\n")}\n`);
    if (demoMedia) void prepareDemoData(runtime, demoMedia, base);
  });

  // The in-process queue lost its messages with the previous process: in-flight sends are reconciled with
  // Postmark, running send jobs continue from their remaining recipients (with QStash the sweep cron does
  // this). In the background, after the server listens: start-up never waits for the provider.
  if (deps.queue.kind === "local") void recoverInBackground(runtime, bootedAt);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    // A second signal means "now": whatever is unfinished stays in the database for `recoverAfterRestart`.
    if (stopping) process.exit(signal === "SIGINT" ? 130 : 143);
    stopping = true;
    // The safety net if a close hangs; unref'd so it never keeps an otherwise finished process alive.
    setTimeout(() => process.exit(1), HARD_EXIT_MS).unref();
    void shutDown(runtime, server, stopScheduler).then(
      (drained) => {
        deps.logger.info("stopped", { signal, queueDrained: drained });
        process.exit(0);
      },
      (error: unknown) => {
        deps.logger.error("shutdown failed", { signal, error: String(error) });
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

const DEMO_DATA = "templates, sample images, insights";

/**
 * The Demo's templates, sample images and insights need the renderers (satori, resvg, sharp, ffmpeg): they
 * are written while the server already answers, and `GET /health` says `demo_data: "preparing"` until they
 * are, then `ready`; the start prints a line at that moment, so a reader knows when the guides' insights
 * and template calls answer with the Demo's data.
 */
async function prepareDemoData(runtime: Runtime, media: () => Promise<void>, base: string): Promise<void> {
  const { startup } = runtime.app;
  const started = performance.now();
  try {
    await media();
    startup.demoData = "ready";
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    process.stdout.write(`Demo data: ready (${DEMO_DATA} written in ${seconds} s; GET ${base}/health answers demo_data "ready").\n\n`);
  } catch (error) {
    startup.demoData = "failed";
    runtime.deps.logger.error("the demo's media could not be prepared", { error: String(error) });
    process.stdout.write(`Demo data: could not be prepared (${String(error)}); the services answer, without the Demo's samples.\n\n`);
  }
}

async function recoverInBackground(runtime: Runtime, bootedAt: Date): Promise<void> {
  const { deps } = runtime;
  try {
    const recovered = await recoverAfterRestart(runtime.app.mailDeps, bootedAt);
    if (Object.values(recovered).some((n) => n > 0)) deps.logger.info("recovered send jobs after restart", { ...recovered });
    const renders = await resumeVideoRenders(runtime.app.adsDeps);
    if (renders > 0) deps.logger.info("resumed video renders after restart", { renders });
  } catch (error) {
    // The `send-jobs-sweep` cron tries again within a minute.
    deps.logger.error("recovery after restart failed", { error: String(error) });
  }
}

/** Running queue handlers (send-job batches) get this long to finish after a stop signal. */
const QUEUE_DRAIN_MS = 10_000;
const HARD_EXIT_MS = 15_000;

/**
 * Stops in the order that loses nothing: no new requests, no new cron runs, no queued message started,
 * running handlers given `QUEUE_DRAIN_MS`, then the simulators and the database. A batch still running at
 * the bound was claimed but not recorded: `recoverAfterRestart` reconciles it on the next start, so no
 * recipient is sent twice. Resolves whether the queue drained in time.
 */
async function shutDown(runtime: Runtime, server: ServerType, stopScheduler: () => void): Promise<boolean> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  if ("closeIdleConnections" in server) server.closeIdleConnections();
  stopScheduler();
  // Cancels delayed and not yet started messages; their work is in the database (recovered on start).
  runtime.deps.queue.close();
  let bound: NodeJS.Timeout | undefined;
  const drained = await Promise.race([
    runtime.deps.queue.idle().then(() => true),
    new Promise<boolean>((resolve) => (bound = setTimeout(() => resolve(false), QUEUE_DRAIN_MS))),
  ]);
  clearTimeout(bound);
  // Requests still open after the drain (a slow client, a held keep-alive) are cut.
  if ("closeAllConnections" in server) server.closeAllConnections();
  await closed;
  removeServerFile(runtime.config.DATA_DIR);
  await runtime.close();
  return drained;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
