import { createRequire } from "node:module";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { brotliCompressSync, constants } from "node:zlib";
import { basename, dirname, join } from "node:path";
import { build, type Plugin } from "esbuild";

/*
 * `npm run build` after the typecheck (Vercel's buildCommand): the functions' bundle and the console's
 * browser script. Invariants:
 * - One entry per function group (lib/functions/<name>.ts → `dist/functions/<name>.js`, which api/*.js export):
 *   each loads and builds only its own app at a cold start; what entries share is split into chunks.
 * - The entries (and the two worker entries) carry every JavaScript dependency inlined, so a
 *   function ships a few MB of our code and its libraries instead of whole `node_modules` folders; only what
 *   cannot be inlined stays external: native addons and binaries (sharp, resvg, ffmpeg, argon2), which Vercel's file
 *   tracing copies into the functions that need them (vercel.json).
 * - Development-only packages (esbuild, tsx, PGlite, typescript) are external and never reached in a function:
 *   `FUNCTION_BUNDLE` is defined as "1", which removes the dev-time branches (the console script bundled from
 *   source, lib/console/bundle.ts) from the bundle, so file tracing finds no import of esbuild.
 * - What the sources import lazily (`await import(...)`) stays lazy: code splitting puts it in a chunk of its own.
 * - Minified with names kept (stack traces name our functions; no sourcemap to ship).
 */

const FUNCTION_ENTRIES = readdirSync("lib/functions")
  .filter((name) => name.endsWith(".ts"))
  .map((name) => basename(name, ".ts"));
const WORKER_ENTRIES = ["lib/ads/templates/draw-worker.ts", "lib/mail/provider/batch-transport-worker.ts"];
rmSync("dist/functions", { recursive: true, force: true });
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

/**
 * zod's `locales` namespace (error messages in about 40 languages: 260 of the 1,140 KB api/mail loads at a cold
 * start) is reachable from the `z` object the OpenAPI extension patches, so tree shaking keeps all of it.
 * Nothing here switches zod's language (its English is set by zod's own schemas module, not through this
 * namespace), so the namespace keeps only `en`. Measured: every function 0.26 MB smaller; the cold start's
 * CPU unchanged (V8 only pre-parses functions that never run).
 */
const zodEnglishOnly: Plugin = {
  name: "zod-english-only",
  setup(build) {
    build.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/]/.test(args.importer) ? { path: join(dirname(args.importer), args.path), namespace: "zod-locales" } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "zod-locales" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(join(dirname(args.path), "en.js"))};`,
      loader: "js",
      resolveDir: dirname(args.path),
    }));
  },
};

await build({
  entryPoints: [...FUNCTION_ENTRIES.map((name) => `lib/functions/${name}.ts`), ...WORKER_ENTRIES],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  outdir: "dist/functions",
  entryNames: "[name]",
  // Dynamic imports stay lazy (MJML, satori, the database drivers): each its own chunk, loaded on first use.
  splitting: true,
  // Next to the entries (not in a subfolder): the sources' paths relative to their module (the migrations'
  // journal, the console script, the worker files) resolve the same from an entry as from a chunk.
  chunkNames: "[name]-[hash]",
  external: [...NATIVE, ...DEVELOPMENT_ONLY, ...OPTIONAL, ...AS_PACKAGE],
  define: { "process.env.FUNCTION_BUNDLE": '"1"' },
  banner: { js: banner },
  minify: true,
  keepNames: true,
  legalComments: "none",
  logLevel: "warning",
  plugins: [zodEnglishOnly],
  // Zod extended before any schema loads, in every file (lib/functions/zod-openapi.ts says why).
  inject: ["lib/functions/zod-openapi.ts"],
});

removeUnreachableChunks(
  "dist/functions",
  [...FUNCTION_ENTRIES, ...WORKER_ENTRIES.map((path) => basename(path, ".ts"))].map((name) => `${name}.js`),
);

/**
 * Chunks no entry reaches any more (their `import()` sat in a branch `FUNCTION_BUNDLE` removed, e.g. the
 * simulators) are deleted, so nothing ships them (vercel.json includes the worker entries by name).
 */
function removeUnreachableChunks(dir: string, entries: string[]): void {
  const chunks = new Set(readdirSync(dir).filter((name) => !entries.includes(name)));
  const reached = new Set<string>();
  const pending = entries.map((name) => join(dir, name));
  while (pending.length > 0) {
    const text = readFileSync(pending.pop() as string, "utf8");
    for (const [, name] of text.matchAll(/["/]([\w.-]+\.js)["]/g)) {
      if (!name || !chunks.has(name) || reached.has(name)) continue;
      reached.add(name);
      pending.push(join(dir, name));
    }
  }
  for (const name of chunks) if (!reached.has(name)) rmSync(join(dir, basename(name)));
}

compressFfmpeg("dist/ffmpeg/ffmpeg.br");

/**
 * The video function's ffmpeg (`@ffmpeg-installer/linux-x64`, 68 MB) brotli-compressed to ~19 MB, which
 * api/video ships instead of the package (vercel.json) and unpacks at its first render (lib/ads/templates/
 * video.ts). Kept between builds while the binary is unchanged (compressing takes several seconds).
 */
function compressFfmpeg(target: string): void {
  const require = createRequire(import.meta.url);
  let binary: string;
  try {
    binary = (require("@ffmpeg-installer/ffmpeg") as { path: string }).path;
  } catch {
    return; // no ffmpeg for this platform: video renders fail with their reason, as before
  }
  const stamp = `${target}.source`;
  const source = `${binary} ${statSync(binary).size} ${statSync(binary).mtimeMs}`;
  if (existsSync(target) && existsSync(stamp) && readFileSync(stamp, "utf8") === source) return;
  mkdirSync(dirname(target), { recursive: true });
  const bytes = readFileSync(binary);
  writeFileSync(
    target,
    brotliCompressSync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 6, [constants.BROTLI_PARAM_LGWIN]: 24, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
    }),
  );
  writeFileSync(stamp, source);
}

await build({
  entryPoints: ["lib/console/client/main.ts"],
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  outfile: "dist/console/app.js",
  // uPlot's style sheet, bundled as text and added to the page by the chart code (no CDN).
  loader: { ".css": "text" },
  logLevel: "warning",
});
