import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { copyFileSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join, relative } from "node:path";

/*
 * The build output of `vercel build` (`.vercel/output`, Build Output API v3) served on loopback the way the
 * platform serves it: each function (`functions/**\/<name>.func`) is materialised as it is deployed (its
 * directory plus the `filePathMap` files `includeFiles` added) and runs in processes of its own through
 * tests/helpers/vercel-launcher.mjs, and a router applies `config.json`'s routes (filesystem phase, rewrites
 * with `check`, status routes) in front of them and the static files. Generic over whatever functions the
 * build produced.
 */

type Route = { src?: string; dest?: string; status?: number; check?: boolean; handle?: string; headers?: Record<string, string> };

export type FunctionInstance = { child: ChildProcess; port: number; output: () => string; loadedMs: number | null; served: number };

export type BuiltFunction = {
  /** The route path of the function, e.g. `/api/mail`. */
  path: string;
  dir: string;
  sizeBytes: number;
  instances: FunctionInstance[];
  requests: number;
  /** Milliseconds of each instance's first request (the import of the handler included). */
  firstRequestMs: number[];
  warmRequestMs: number[];
};

/** Functions of a build output, by route path (`/api/mail` for `functions/api/mail.func`). */
export function listFunctions(outputDir: string): { path: string; dir: string }[] {
  const root = join(outputDir, "functions");
  const found: { path: string; dir: string }[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory() && entry.name.endsWith(".func")) found.push({ path: `/${relative(root, full).replace(/\.func$/, "")}`, dir: full });
      else if (entry.isDirectory()) walk(full);
    }
  };
  if (existsSync(root)) walk(root);
  return found.sort((a, b) => a.path.localeCompare(b.path));
}

/** Bytes of a directory tree plus the files its `.vc-config.json` maps in: what gets deployed. */
function functionSize(dir: string, repoRoot: string): number {
  let total = 0;
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) walk(full);
      else total += statSync(full).size;
    }
  };
  walk(dir);
  const map = (JSON.parse(readFileSync(join(dir, ".vc-config.json"), "utf8")) as { filePathMap?: Record<string, string> }).filePathMap ?? {};
  for (const source of Object.values(map)) total += statSync(join(repoRoot, source)).size;
  return total;
}

/**
 * A function directory as the platform deploys it: the `.func` tree (hard-linked, it is large) plus every
 * `filePathMap` entry (files `includeFiles` added, which the build leaves in the project) at its path.
 */
export function materialise(func: string, into: string, repoRoot: string): void {
  rmSync(into, { recursive: true, force: true });
  mkdirSync(dirname(into), { recursive: true });
  if (spawnSync("cp", ["-al", func, into]).status !== 0 && spawnSync("cp", ["-a", func, into]).status !== 0) throw new Error(`cannot copy ${func}`);
  const map = (JSON.parse(readFileSync(join(func, ".vc-config.json"), "utf8")) as { filePathMap?: Record<string, string> }).filePathMap ?? {};
  for (const [target, source] of Object.entries(map)) {
    const to = join(into, target);
    mkdirSync(dirname(to), { recursive: true });
    try {
      linkSync(join(repoRoot, source), to);
    } catch {
      copyFileSync(join(repoRoot, source), to);
    }
  }
}

/** The Node binary the functions run on: `VERCEL_FUNCTION_NODE`, else this process's own. */
export function functionNode(): string {
  return process.env.VERCEL_FUNCTION_NODE || process.execPath;
}

function startInstance(launcher: string, dir: string, env: Record<string, string>): Promise<FunctionInstance> {
  return new Promise((resolve, reject) => {
    // Plain Node with only the function's environment: no tsx, no loader hooks, no inherited variables. The Node
    // binary is `VERCEL_FUNCTION_NODE` when set (.ci/run: the version package.json's engines pin, as Vercel runs it).
    const child = spawn(functionNode(), [launcher, dir], { cwd: dir, env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let all = "";
    const instance: FunctionInstance = { child, port: 0, output: () => all.slice(-6000), loadedMs: null, served: 0 };
    child.stderr?.on("data", (chunk: Buffer) => {
      all += chunk.toString("utf8");
      if (process.env.SMOKE_DEBUG) process.stderr.write(`[${dir}] ${chunk.toString("utf8")}`);
    });
    child.stdout?.on("data", (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      all += text;
      if (process.env.SMOKE_DEBUG) process.stdout.write(`[${dir}] ${text}`);
      const listening = /LISTENING (\d+)/.exec(text);
      if (listening) {
        instance.port = Number(listening[1]);
        resolve(instance);
      }
      const loaded = /LOADED ([\d.]+)/.exec(text);
      if (loaded) instance.loadedMs = Number(loaded[1]);
    });
    child.once("exit", (code, signal) => {
      if (!instance.port) reject(new Error(`function ${dir} exited (${code ?? signal}) before listening:\n${all}`));
    });
  });
}

const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "content-length", "content-encoding", "host"]);

export type RunningOutput = Awaited<ReturnType<typeof serveVercelOutput>>;

/**
 * Serves `outputDir` on 127.0.0.1 at `port` (0 = any). `env` is every function's whole environment (as the
 * project's environment variables on Vercel); `instances` runs more than one process of a function (e.g. the
 * queue worker, to see batches spread over instances), round-robin.
 */
export async function serveVercelOutput(options: {
  outputDir: string;
  repoRoot: string;
  workDir: string;
  /** The environment for the router's origin (e.g. PUBLIC_BASE_URL). */
  env: (origin: string) => Record<string, string>;
  port?: number;
  instances?: Record<string, number>;
}) {
  const config = JSON.parse(readFileSync(join(options.outputDir, "config.json"), "utf8")) as { version: number; routes: Route[] };
  if (config.version !== 3) throw new Error(`Build Output API version ${config.version} is not 3`);
  const launcher = join(options.repoRoot, "tests", "helpers", "vercel-launcher.mjs");
  const functions = new Map<string, BuiltFunction>();
  const staticDir = join(options.outputDir, "static");
  let server: Server | null = null;

  const listen = await new Promise<{ server: Server; port: number }>((resolve) => {
    const created = createServer((req, res) => {
      void handle(req)
        .then(async (response) => {
          const headers: Record<string, string> = {};
          response.headers.forEach((value, name) => {
            if (!HOP_BY_HOP.has(name)) headers[name] = value;
          });
          const body = Buffer.from(await response.arrayBuffer());
          res.writeHead(response.status, headers).end(body);
        })
        .catch((error: unknown) => {
          res.writeHead(502, { "content-type": "text/plain" }).end(`router: ${String(error)}`);
        });
    });
    created.listen(options.port ?? 0, "127.0.0.1", () => resolve({ server: created, port: (created.address() as AddressInfo).port }));
  });
  server = listen.server;
  const origin = `http://127.0.0.1:${listen.port}`;

  const env = options.env(origin);
  for (const { path, dir } of listFunctions(options.outputDir)) {
    const deployed = join(options.workDir, `${path.slice(1)}.func`);
    materialise(dir, deployed, options.repoRoot);
    const count = options.instances?.[path] ?? 1;
    const instances = await Promise.all(Array.from({ length: count }, () => startInstance(launcher, deployed, env)));
    functions.set(path, { path, dir: deployed, sizeBytes: functionSize(dir, options.repoRoot), instances, requests: 0, firstRequestMs: [], warmRequestMs: [] });
  }

  const staticFile = (path: string): string | null => {
    const file = join(staticDir, path);
    if (!file.startsWith(staticDir) || path.endsWith("/")) return null;
    return existsSync(file) && statSync(file).isFile() ? file : null;
  };

  async function invoke(fn: BuiltFunction, req: IncomingMessage, body: Buffer): Promise<Response> {
    const instance = fn.instances[fn.requests % fn.instances.length] as FunctionInstance;
    const first = instance.served === 0;
    instance.served++;
    fn.requests++;
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || HOP_BY_HOP.has(name)) continue;
      headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
    headers.set("host", new URL(origin).host);
    headers.set("x-forwarded-host", new URL(origin).host);
    headers.set("x-forwarded-proto", "http");
    headers.set("x-forwarded-for", req.socket.remoteAddress?.replace(/^::ffff:/, "") ?? "127.0.0.1");
    headers.set("x-real-ip", req.socket.remoteAddress?.replace(/^::ffff:/, "") ?? "127.0.0.1");
    const started = performance.now();
    // The function sees the request's own URL (path and query); the rewrite only chose the function.
    const response = await fetch(`http://127.0.0.1:${instance.port}${req.url ?? "/"}`, {
      method: req.method,
      headers,
      body: req.method === "GET" || req.method === "HEAD" ? undefined : new Uint8Array(body),
      redirect: "manual",
    });
    const buffered = new Response(response.status === 204 || response.status === 304 ? null : await response.arrayBuffer(), {
      status: response.status,
      headers: response.headers,
    });
    (first ? fn.firstRequestMs : fn.warmRequestMs).push(performance.now() - started);
    return buffered;
  }

  async function handle(req: IncomingMessage): Promise<Response> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    let path = new URL(req.url ?? "/", origin).pathname;
    let phase: string | null = null;
    for (const route of config.routes) {
      if (route.handle) {
        phase = route.handle;
        if (phase === "filesystem") {
          const fn = functions.get(path);
          if (fn) return invoke(fn, req, body);
          const file = staticFile(path);
          if (file) return new Response(readFileSync(file), { status: 200 });
        }
        continue;
      }
      // Only the main phase and the one after the filesystem check route requests; `error` and `miss`
      // shape what is answered when nothing matched, which here is a plain 404.
      if (phase !== null && phase !== "filesystem") continue;
      const match = route.src ? new RegExp(route.src).exec(path) : null;
      if (!match) continue;
      if (route.dest) {
        const dest = route.dest.replace(/\$(\d+)/g, (_, n: string) => match[Number(n)] ?? "");
        const destPath = dest.split("?")[0] ?? dest;
        if (route.check) {
          const fn = functions.get(destPath);
          if (fn) return invoke(fn, req, body);
          const file = staticFile(destPath);
          if (file) return new Response(readFileSync(file), { status: 200 });
          continue;
        }
        path = destPath;
        continue;
      }
      if (route.status) return new Response(null, { status: route.status });
    }
    const fn = functions.get(path);
    if (fn) return invoke(fn, req, body);
    const file = staticFile(path);
    if (file) return new Response(readFileSync(file), { status: 200 });
    return new Response("Not Found", { status: 404 });
  }

  return {
    url: origin,
    functions,
    close: async () => {
      for (const fn of functions.values()) for (const instance of fn.instances) instance.child.kill("SIGKILL");
      server?.closeAllConnections();
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    },
  };
}
