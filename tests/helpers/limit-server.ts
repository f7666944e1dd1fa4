import { serve } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import { createHarness } from "./harness";

/*
 * The whole deployment served by `@hono/node-server` exactly as `lib/server.ts` serves it (`serve` with
 * its defaults and the runtime's root app), in a process of its own so a test can measure this process's
 * memory while it pushes bodies at it. No demo seed (unlike `npm start`): starts in seconds. Prints
 * `LISTENING <origin> <admin token>` when ready; stops on SIGTERM.
 */
const h = await createHarness({ env: { AUTH_FAILURES_PER_MINUTE: "1000000" } });
const server = serve({ fetch: h.root.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) => {
  process.stdout.write(`LISTENING http://127.0.0.1:${info.port} ${h.deps.adminToken}\n`);
});
process.on("SIGTERM", () => {
  server.close();
  void h.close().then(() => process.exit(0));
});
