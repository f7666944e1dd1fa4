import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { npmStartCommand } from "./npm-start";

/**
 * `npm run bench`: every figure the design targets name, printed in one run on this machine. Each bench runs
 * in a Node process of its own (the same flags as this one), one after the other: a figure (an RSS, a render's
 * ratio to its floor) is then that bench's, not the sum of what the benches before it left in one heap.
 * Each also gets the environment settings of `npm start` (the allocator's, see ADR 0152), so an in-process
 * engine's memory is what it uses in the server.
 */
const BENCHES = [
  "local-start",
  "cold-start",
  "health",
  "render",
  "ad-templates",
  "ads-insights",
  "send-jobs",
  "mail-stats",
  "storage",
  "bulk-bytes",
  "ads-audiences",
] as const;

let failed = 0;
for (const name of BENCHES) {
  const file = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
  const result = spawnSync(process.execPath, [...process.execArgv, file], { stdio: "inherit", env: { ...process.env, ...npmStartCommand().env } });
  if (result.status !== 0) {
    failed++;
    process.stderr.write(`bench ${name} failed (${result.status ?? result.signal})\n`);
  }
}
if (failed > 0) process.exitCode = 1;
