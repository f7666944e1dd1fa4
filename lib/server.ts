import { serve } from "@hono/node-server";
import { bootRuntime } from "./bootstrap";
import { ConfigError } from "./core/config";
import { startScheduler } from "./cron";
import { FILES_PATH } from "./mail/assets/storage";
import { pointSimulatorAtReceiver, registerSimulatorServers } from "./mail/seed";
import { createPostmarkProvider } from "./mail/provider/postmark";
import { recoverAfterRestart } from "./mail/send-jobs/recovery";
import { seedDemo } from "./seed";

/**
 * `npm start`: both services, the admin API and the embedded adapters in one local process.
 */
async function main(): Promise<void> {
  const runtime = await bootRuntime();
  const { config, deps } = runtime;
  const demo = await seedDemo(deps);
  await registerSimulatorServers(deps);
  // The in-process queue lost its messages with the previous process: in-flight sends are reconciled with
  // Postmark, running send jobs continue from their remaining recipients (with QStash the sweep cron does this).
  if (deps.queue.kind === "local") {
    const recovered = await recoverAfterRestart(deps, createPostmarkProvider({ apiUrl: deps.providers.postmarkApiUrl }));
    if (Object.values(recovered).some((n) => n > 0)) deps.logger.info("recovered send jobs after restart", { ...recovered });
  }
  const stopScheduler = startScheduler(deps);

  const server = serve({ fetch: runtime.app.root.fetch, port: config.PORT, hostname: config.HOST }, (info) => {
    const base = config.PUBLIC_BASE_URL ?? `http://localhost:${info.port}`;
    // The simulator posts provider events to our own receiver, over loopback when bound to every interface.
    const host = ["0.0.0.0", "::"].includes(config.HOST) ? "127.0.0.1" : config.HOST.includes(":") ? `[${config.HOST}]` : config.HOST;
    pointSimulatorAtReceiver(deps, `http://${host}:${info.port}`).catch((error: unknown) => deps.logger.error("the Postmark simulator could not be pointed at the receiver", { error: String(error) }));
    const lines = [
      "",
      "Mail and ads middleware is running (embedded mode).",
      `  mail service:  ${base}/mail/v1   (docs: ${base}/mail/v1/docs)`,
      `  ads service:   ${base}/ads/v1    (docs: ${base}/ads/v1/docs)`,
      `  admin API:     ${base}/admin/v1  (docs: ${base}/admin/v1/docs)`,
      `  webhooks:      ${base}/api/postmark/webhook/<customer_id>, ${base}/api/platform/webhook`,
      `  workers/crons: ${base}/api/queue/*, ${base}/api/cron/*`,
      `  image files:   ${config.BLOB_READ_WRITE_TOKEN ? "Vercel Blob (BLOB_READ_WRITE_TOKEN)" : `${base}${FILES_PATH}/assets/<sha256>.jpg|png (stored in ${config.DATA_DIR}/blobs)`}`,
      `  operator token: ${runtime.adminTokenSource}`,
      `  Postmark:      ${deps.providers.postmarkSimulator ? `simulator at ${deps.providers.postmarkApiUrl} (sent mail: ${deps.providers.postmarkApiUrl}/__sim/messages)` : deps.providers.postmarkApiUrl}`,
      `  Graph API:     ${deps.providers.graphSimulator ? `simulator at ${deps.providers.graphApiUrl}` : deps.providers.graphApiUrl}`,
      `  data:          ${config.DATABASE_URL ? "DATABASE_URL" : `${config.DATA_DIR}/ (PGlite)`}`,
    ];
    if (demo.keys) {
      lines.push(
        "",
        "Demo customer created. Its API keys are shown this once; store them now:",
        `  mail full:      ${demo.keys.mailFull}`,
        `  mail reporting: ${demo.keys.mailReporting}`,
        `  ads full:       ${demo.keys.adsFull}`,
        `  ads reporting:  ${demo.keys.adsReporting}`,
        "(Issue more with: npm run admin -- keys:create <customer-id> mail full)",
      );
    } else {
      lines.push("", `Demo customer: ${demo.customerId} (keys were printed on first start; npm run admin -- keys:create ${demo.customerId} mail full)`);
    }
    process.stdout.write(`${lines.join("\n")}\n\n`);
  });

  const stop = () => {
    stopScheduler();
    server.close();
    void runtime.close().finally(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
