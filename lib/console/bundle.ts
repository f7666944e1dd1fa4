import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

/**
 * Where `npm run build` writes the bundle for the Vercel functions: `<root>/dist/console/app.js`, two levels
 * up from this module both in the sources (`lib/console/`) and in the function bundle (`dist/functions/`).
 */
const BUILT_CONSOLE_SCRIPT = new URL("../../dist/console/app.js", import.meta.url);

let script: Promise<string> | null = null;

/**
 * The console's browser script, bundled once per process. From the TypeScript source with esbuild when the
 * source is here (`npm start` under tsx, tests: no build step), else the bundle `npm run build` made (the
 * Vercel functions ship that file, not the sources or esbuild). In the functions' bundle `FUNCTION_BUNDLE` is
 * the constant "1" (lib/commands/build.ts), so the esbuild branch is dropped from it and file tracing never ships esbuild.
 */
export function consoleScript(): Promise<string> {
  script ??= load().catch((error: unknown) => {
    script = null;
    throw error;
  });
  return script;
}

async function load(): Promise<string> {
  if (process.env.FUNCTION_BUNDLE === "1") return readFile(BUILT_CONSOLE_SCRIPT, "utf8");
  const source = fileURLToPath(new URL("./client/main.ts", import.meta.url));
  if (!existsSync(source)) return readFile(BUILT_CONSOLE_SCRIPT, "utf8");
  const { build } = await import("esbuild");
  const result = await build({
    entryPoints: [source],
    bundle: true,
    format: "esm",
    target: "es2022",
    minify: true,
    write: false,
    logLevel: "silent",
    loader: { ".css": "text" },
  });
  const [output] = result.outputFiles;
  if (!output) throw new Error("esbuild produced no console script");
  return output.text;
}
