import { serve } from "@hono/node-server";
import { bootRuntime } from "./bootstrap";
import { ConfigError } from "./core/config";
import { startScheduler } from "./cron";
import { registerSimulatorServers } from "./mail/seed";
import { seedDemo } from "./seed";

/**
 * `npm start`: both services, the admin API and the embedded adapters in one local process.
 */
async function main(): Promise<void> {
  const runtime = await bootRuntime();
  const { config, deps } = runtime;
  const demo = await seedDemo(deps);
  await registerSimulatorServers(deps);
  const stopScheduler = startScheduler(deps);

  const server = serve({ fetch: runtime.app.root.fetch, port: config.PORT, hostname: config.HOST }, (info) => {
    const base = config.PUBLIC_BASE_URL ?? `http://localhost:${info.port}`;
    const lines = [
      "",
      "Mail and ads middleware is running (embedded mode).",
      `  mail service:  ${base}/mail/v1   (docs: ${base}/mail/v1/docs)`,
      `  ads service:   ${base}/ads/v1    (docs: ${base}/ads/v1/docs)`,
      `  admin API:     ${base}/admin/v1  (docs: ${base}/admin/v1/docs)`,
      `  webhooks:      ${base}/api/postmark/webhook, ${base}/api/platform/webhook`,
      `  workers/crons: ${base}/api/queue/*, ${base}/api/cron/*`,
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
