import { parseArgs } from "node:util";
import { startGraphSimulator } from "./ads/platform/simulator/server";
import { startPostmarkSimulator } from "./mail/provider/simulator/server";

/**
 * `npm run simulators`: the Postmark and Graph API simulators as a process of their own, for building a
 * portal offline against a service pointed at them (`POSTMARK_API_URL`, `GRAPH_API_URL`), and for tests
 * and benchmarks whose provider must outlive (or not share a CPU with) the service.
 *
 *   npm run simulators -- [--postmark-port 3001] [--graph-port 3002] [--no-webhooks]
 *                         [--webhook-url http://127.0.0.1:3000/api/postmark/webhook --webhook-user u --webhook-password p]
 *                         [--delivery-delay-ms 50] [--max-stored-messages 1000] [--max-tracked-messages 10000]
 *                         [--webhook-retry-delays-ms 100,500,2000]
 *
 * `--webhook-retry-delays-ms` is the wait before each retry of a refused webhook post (default 100,500,2000: a
 * test sees a retry at once); Postmark retries for hours, so a receiver that is slow or restarting loses nothing
 * there, which a longer list imitates.
 *
 * Port 0 picks a free port. The last line printed is `SIMULATORS {"postmark":…,"graph":…}` for programs.
 * Servers (tokens and streams) are registered over `POST /__sim/servers`; the built-in `simulator-server-token`
 * exists from the start.
 *
 * Run with `--max-semi-space-size=64` (the npm script does): every message of a 20 MB Postmark batch
 * becomes a 30 KB string that lives until the batch is answered; in V8's default 16 MB young generation
 * they are copied into the old generation and collected there, which cost the simulator a fifth of its
 * CPU on the 100,000-recipient bench (19 s → 15 s).
 */
const { values } = parseArgs({
  options: {
    "postmark-port": { type: "string", default: process.env.POSTMARK_SIMULATOR_PORT ?? "3001" },
    "graph-port": { type: "string", default: process.env.GRAPH_SIMULATOR_PORT ?? "3002" },
    "no-webhooks": { type: "boolean", default: false },
    "webhook-url": { type: "string" },
    "webhook-user": { type: "string" },
    "webhook-password": { type: "string" },
    "delivery-delay-ms": { type: "string" },
    "max-stored-messages": { type: "string" },
    "max-tracked-messages": { type: "string" },
    "webhook-retry-delays-ms": { type: "string" },
  },
});

function port(name: string, value: string | undefined): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`--${name} must be a port number (0 = any free port), got "${value}"`);
  return n;
}

function delays(value: string | undefined): number[] | undefined {
  if (value === undefined) return undefined;
  const list = value.split(",").map((part) => Number(part.trim()));
  if (list.length === 0 || list.some((n) => !Number.isInteger(n) || n < 0)) {
    throw new Error(`--webhook-retry-delays-ms must be a comma-separated list of non-negative whole milliseconds, got "${value}"`);
  }
  return list;
}

function optionalNumber(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a non-negative number, got "${value}"`);
  return n;
}

async function main(): Promise<void> {
  const postmark = await startPostmarkSimulator({
    port: port("postmark-port", values["postmark-port"]),
    webhooks: !values["no-webhooks"],
    webhook: values["webhook-url"] ? { url: values["webhook-url"], username: values["webhook-user"], password: values["webhook-password"] } : null,
    deliveryDelayMs: optionalNumber("delivery-delay-ms", values["delivery-delay-ms"]),
    maxStoredMessages: optionalNumber("max-stored-messages", values["max-stored-messages"]),
    maxTrackedMessages: optionalNumber("max-tracked-messages", values["max-tracked-messages"]),
    webhookRetryDelaysMs: delays(values["webhook-retry-delays-ms"]),
  });
  const graph = await startGraphSimulator({ port: port("graph-port", values["graph-port"]) });
  process.stdout.write(
    [
      `Postmark simulator:  ${postmark.url}   (sent mail: ${postmark.url}/__sim/messages, stats: ${postmark.url}/__sim/stats)`,
      `Graph API simulator: ${graph.graphUrl}`,
      `Point the service at them: POSTMARK_API_URL=${postmark.url} GRAPH_API_URL=${graph.graphUrl} npm start`,
      `SIMULATORS ${JSON.stringify({ postmark: postmark.url, graph: graph.graphUrl })}`,
      "",
    ].join("\n"),
  );
  const stop = () => {
    void Promise.all([postmark.close(), graph.close()]).finally(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
