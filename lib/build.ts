import { readdirSync, readFileSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { build } from "esbuild";

/*
 * `npm run build` after the typecheck (Vercel's buildCommand): the functions' bundle and the console's
 * browser script. Invariants:
 * - `dist/functions/vercel.js` (and the two worker entries) carry every JavaScript dependency inlined, so a
 *   function ships a few MB of our code and its libraries instead of whole `node_modules` folders; only what
 *   cannot be inlined stays external: native addons and binaries (sharp, resvg, ffmpeg, argon2), which Vercel's file
 *   tracing copies into the functions that need them (vercel.json).
 * - Development-only packages (esbuild, tsx, PGlite, typescript) are external and never reached in a function:
 *   `FUNCTION_BUNDLE` is defined as "1", which removes the dev-time branches (the console script bundled from
 *   source, lib/console/bundle.ts) from the bundle, so file tracing finds no import of esbuild.
 * - What the sources import lazily (`await import(...)`) stays lazy: code splitting puts it in a chunk of its own.
 * - Minified with names kept (stack traces name our functions; no sourcemap to ship).
 */

const NATIVE = ["sharp", "@resvg/resvg-js", "@ffmpeg-installer/ffmpeg", "@node-rs/argon2"];
const DEVELOPMENT_ONLY = ["esbuild", "tsx", "@electric-sql/pglite", "drizzle-orm/pglite", "drizzle-orm/pglite/migrator", "typescript"];
// Optional peers the bundled libraries probe for and do without (ws, pg).
const OPTIONAL = ["bufferutil", "utf-8-validate", "pg-native"];
// Kept as a package: the production smoke test points the function's own copy of the Neon driver at its local
// proxy (tests/helpers/vercel-launcher.mjs), which needs the module the function imports to be that file.
const AS_PACKAGE = ["@neondatabase/serverless"];

// CommonJS packages inlined into an ES module still call require() for Node's built-ins and read
// __dirname/__filename: the banner gives them the bundle's own.
const banner = [
  'import { createRequire as __bundleCreateRequire } from "node:module";',
  'import { fileURLToPath as __bundleFileURLToPath } from "node:url";',
  'import { dirname as __bundleDirname } from "node:path";',
  "const require = __bundleCreateRequire(import.meta.url);",
  "const __filename = __bundleFileURLToPath(import.meta.url);",
  "const __dirname = __bundleDirname(__filename);",
].join("\n");

await build({
  entryPoints: ["lib/vercel.ts", "lib/ads/templates/draw-worker.ts", "lib/mail/provider/batch-transport-worker.ts"],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  outdir: "dist/functions",
  entryNames: "[name]",
  // Dynamic imports stay lazy (MJML, satori, the database drivers): each its own chunk, loaded on first use.
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  external: [...NATIVE, ...DEVELOPMENT_ONLY, ...OPTIONAL, ...AS_PACKAGE],
  define: { "process.env.FUNCTION_BUNDLE": '"1"' },
  banner: { js: banner },
  minify: true,
  keepNames: true,
  legalComments: "none",
  logLevel: "warning",
});

removeUnreachableChunks("dist/functions", ["vercel.js", "draw-worker.js", "batch-transport-worker.js"]);

/**
 * Chunks no entry reaches any more (their `import()` sat in a branch `FUNCTION_BUNDLE` removed, e.g. the
 * simulators) are deleted, so nothing ships them (vercel.json includes the worker entries by name).
 */
function removeUnreachableChunks(dir: string, entries: string[]): void {
  const chunks = new Set(readdirSync(join(dir, "chunks")));
  const reached = new Set<string>();
  const pending = entries.map((name) => join(dir, name));
  while (pending.length > 0) {
    const text = readFileSync(pending.pop() as string, "utf8");
    for (const [, name] of text.matchAll(/["/]([\w.-]+\.js)["]/g)) {
      if (!name || !chunks.has(name) || reached.has(name)) continue;
      reached.add(name);
      pending.push(join(dir, "chunks", name));
    }
  }
  for (const name of chunks) if (!reached.has(name)) rmSync(join(dir, "chunks", basename(name)));
}

await build({
  entryPoints: ["lib/console/client/main.ts"],
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  outfile: "dist/console/app.js",
  logLevel: "warning",
});
