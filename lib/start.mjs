import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/*
 * `npm start`: runs lib/server.ts from a bundle of our sources instead of through tsx's loader. tsx transpiles
 * and resolves each of ~450 modules through a loader thread of its own: about a second of CPU and 65 MB of
 * memory on every start. Invariants:
 * - The bundle always matches the sources: it is rebuilt (esbuild, under a second) whenever any file it was
 *   built from changed (size or modification time); `npm install`'s postinstall builds it ahead of the first start.
 * - It behaves as the sources do under tsx: packages stay external (resolved from node_modules as before),
 *   `import()` stays lazy (code splitting: a lazily imported module and its packages load on first use), and
 *   `import.meta.url` is each source file's own URL, so paths next to a module (migrations, data files,
 *   worker entries, which then start under tsx as before) resolve as they do from the sources.
 * - Nothing depends on it: without esbuild (an install without dev dependencies) or when the build fails,
 *   the server starts through tsx as before.
 * - A build goes to a directory of its own and `current.json` is replaced atomically, so a concurrent start
 *   never loads half a build. A server loads lazy chunks of its build for as long as it runs, so each start
 *   records its pid in the build it runs; a build is removed only when it is not current, no recorded process
 *   is alive and it is older than a minute (a concurrent start may be about to record itself).
 */

const root = fileURLToPath(new URL("..", import.meta.url));
const cacheDir = join(root, "node_modules", ".cache", "local-server");
const currentFile = join(cacheDir, "current.json");
const entry = join(root, "lib", "server.ts");
const BUILD_GRACE_MS = 60_000;

/** The current build's entry file when every input is unchanged, else null. */
function currentBuild() {
  if (!existsSync(currentFile)) return null;
  try {
    const current = JSON.parse(readFileSync(currentFile, "utf8"));
    for (const [path, size, mtimeMs] of current.inputs) {
      const stat = statSync(join(root, path), { throwIfNoEntry: false });
      if (!stat || stat.size !== size || stat.mtimeMs !== mtimeMs) return null;
    }
    const file = join(cacheDir, current.dir, "server.mjs");
    return existsSync(file) ? file : null;
  } catch {
    return null;
  }
}

/** `import.meta.url` (and `dirname`/`filename`) of a bundled source file: that file's own. */
const sourceLocationPlugin = {
  name: "source-location",
  setup(build) {
    build.onLoad({ filter: /\.[cm]?ts$/ }, (args) => {
      if (args.path.includes(`${join("node_modules", "")}`)) return undefined;
      const text = readFileSync(args.path, "utf8");
      if (!text.includes("import.meta.")) return undefined;
      const url = pathToFileURL(args.path).href;
      const contents = text
        .replaceAll("import.meta.url", JSON.stringify(url))
        .replaceAll("import.meta.dirname", JSON.stringify(join(args.path, "..")))
        .replaceAll("import.meta.filename", JSON.stringify(args.path));
      return { contents, loader: "ts" };
    });
  },
};

/** Builds the bundle and makes it current; returns its entry file. */
export async function buildLocalServer() {
  const { build, stop } = await import("esbuild");
  const dir = `build-${Date.now().toString(36)}-${process.pid}`;
  const outdir = join(cacheDir, dir);
  const result = await build({
    entryPoints: { server: entry },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outdir,
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    // Under node_modules no package.json says "module": the extension does.
    outExtension: { ".js": ".mjs" },
    packages: "external",
    sourcemap: "linked",
    metafile: true,
    logLevel: "silent",
    plugins: [sourceLocationPlugin],
  });
  // esbuild's service process is not needed again in this process.
  await stop();
  const inputs = Object.keys(result.metafile.inputs).map((path) => {
    const stat = statSync(join(root, path));
    return [relative(root, join(root, path)), stat.size, stat.mtimeMs];
  });
  const partial = `${currentFile}.${process.pid}.partial`;
  writeFileSync(partial, JSON.stringify({ dir, inputs }));
  renameSync(partial, currentFile);
  removeUnusedBuilds(dir);
  return join(outdir, "server.mjs");
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

function removeUnusedBuilds(current) {
  for (const name of readdirSync(cacheDir)) {
    if (!name.startsWith("build-") || name === current) continue;
    const path = join(cacheDir, name);
    if (Date.now() - statSync(path).mtimeMs < BUILD_GRACE_MS) continue;
    const users = existsSync(join(path, "pids")) ? readdirSync(join(path, "pids")) : [];
    if (users.some((pid) => alive(Number(pid)))) continue;
    rmSync(path, { recursive: true, force: true });
  }
}

/** This process runs the build of `file`: its lazy chunks must stay while it lives. */
function recordUser(file) {
  const pids = join(file, "..", "pids");
  mkdirSync(pids, { recursive: true });
  for (const pid of readdirSync(pids)) if (!alive(Number(pid))) rmSync(join(pids, pid), { force: true });
  writeFileSync(join(pids, String(process.pid)), "");
}

async function bundledServer() {
  const fresh = currentBuild();
  if (fresh) return fresh;
  try {
    mkdirSync(cacheDir, { recursive: true });
    return await buildLocalServer();
  } catch (error) {
    process.stderr.write(`npm start: running through tsx (the bundle could not be built: ${error instanceof Error ? error.message : String(error)})\n`);
    return null;
  }
}

if (process.argv.includes("--build-only") && process.env.VERCEL) {
  process.stdout.write("local server bundle: skipped on Vercel\n");
} else if (process.argv.includes("--build-only")) {
  // postinstall: a failure only costs the first start its speed, so it never fails the install.
  const started = performance.now();
  mkdirSync(cacheDir, { recursive: true });
  await buildLocalServer().then(
    (file) => process.stdout.write(`local server bundle built in ${Math.round(performance.now() - started)} ms: ${relative(root, file)}\n`),
    (error) => process.stdout.write(`local server bundle not built (npm start builds it): ${String(error)}\n`),
  );
} else {
  const bundle = await bundledServer();
  if (bundle) {
    recordUser(bundle);
    // Stack traces name the TypeScript sources, as under tsx.
    process.setSourceMapsEnabled(true);
    await import(pathToFileURL(bundle).href);
  } else {
    const { register } = await import("tsx/esm/api");
    register();
    await import(pathToFileURL(entry).href);
  }
}
