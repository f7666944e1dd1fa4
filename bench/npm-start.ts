import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * What `npm start` runs, read from package.json's `start` script (`VAR=value … exec node <flags> lib/start.mjs`):
 * its environment settings and Node flags, so the process measured is the one a user starts (the script's
 * heap flags and allocator settings change its memory). A bench starts the server with them directly rather
 * than through npm, whose own process would otherwise be the one measured.
 */
export function npmStartCommand(): { env: Record<string, string>; args: string[] } {
  const script: string = JSON.parse(readFileSync(fileURLToPath(new URL("../package.json", import.meta.url)), "utf8")).scripts.start;
  const match = /^((?:\w+=\S+\s+)*)exec node\s+(.*)$/.exec(script.trim());
  if (!match) throw new Error(`package.json's start script has an unexpected form: ${script}`);
  const env = Object.fromEntries(
    (match[1] ?? "")
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map((setting) => [setting.slice(0, setting.indexOf("=")), setting.slice(setting.indexOf("=") + 1)]),
  );
  return { env, args: (match[2] ?? "").split(/\s+/) };
}
