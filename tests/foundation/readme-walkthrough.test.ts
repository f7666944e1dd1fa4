import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { freePort, repoRoot, startProcess } from "../helpers/processes";

/**
 * The guides' curl walk-throughs, run as a newcomer would: the block marked
 * `<!-- walkthrough: before-start -->` (the throw-away certificate), then a fresh `npm start` (a real child
 * process on a free port, embedded defaults, its own data folder) with the two test-only outbound settings
 * the quick start gives its first start, its printed `export` lines pasted first, then every block marked
 * `<!-- walkthrough: run -->` (the https recipes, the video render and the webhook deliveries included) of the
 * portal developers' guides and then the operators' guides, page by page in the order of each folder's
 * numbered index, in one bash. `curl` is wrapped: a plain call must answer below 400 and one with `-i` (the
 * error examples) below 500, so a step that breaks fails the test with its output. The number of steps run
 * is printed. Blocks that are not run say why (`<!-- not-run: … -->`; tests/foundation/docs.test.ts).
 */
const MARKER = "<!-- walkthrough: run -->";
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterAll(async () => {
  // The service writes into its data folder until it has exited: the folder goes once the process is gone
  // (a removal while it still wrote failed with ENOTEMPTY).
  const running = children.filter((child) => child.exitCode === null && child.signalCode === null);
  const exited = running.map((child) => new Promise<void>((resolve) => child.once("exit", () => resolve())));
  for (const child of running) child.kill("SIGTERM");
  const bound = new Promise<void>((resolve) => setTimeout(resolve, 15_000).unref());
  await Promise.race([Promise.all(exited), bound]);
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}, 30_000);

function walkthroughBlocks(markdown: string, kind: "run" | "before-start" = "run"): string[] {
  const blocks: string[] = [];
  const fence = new RegExp(`<!-- walkthrough: ${kind} -->\\n\`\`\`sh\\n([\\s\\S]*?)\\n\`\`\``, "g");
  for (let match = fence.exec(markdown); match; match = fence.exec(markdown)) blocks.push(match[1] ?? "");
  return blocks;
}

/** The guide pages in walk-through order: each folder's numbered index, portal developers first. */
function guidePages(): string[] {
  return ["docs/portal-developers", "docs/operators"].flatMap((dir) =>
    [...readFileSync(join(repoRoot, dir, "README.md"), "utf8").matchAll(/^\d+\. \[[^\]]+\]\(([^)#]+)\)/gm)]
      .map((m) => join(dir, m[1] ?? ""))
      .filter((page) => existsSync(join(repoRoot, page))),
  );
}

/** Runs before the README's blocks: strict bash and the checking `curl`. */
const PRELUDE = `
set -euo pipefail
STEPS_FILE=$(mktemp)
curl() {
  local body code lenient=0
  for arg in "$@"; do [ "$arg" = "-i" ] && lenient=1; done
  body=$(mktemp)
  code=$(command curl -sS -o "$body" -w '%{http_code}' "$@") || { cat "$body" >&2; rm -f "$body"; echo "curl failed: curl $*" >&2; return 1; }
  cat "$body"; rm -f "$body"
  echo "HTTP $code curl $*" >> "$STEPS_FILE"   # a file: calls inside $(…) run in subshells
  echo "[step] HTTP $code curl $*" >&2
  if [ "$code" -ge 500 ] || { [ "$lenient" = 0 ] && [ "$code" -ge 400 ]; }; then echo "unexpected HTTP $code: curl $*" >&2; return 1; fi
}
`;

test("the guides' walk-throughs run as written against a fresh npm start", async () => {
  const pages = guidePages().map((page) => readFileSync(join(repoRoot, page), "utf8"));
  const blocks = pages.flatMap((page) => walkthroughBlocks(page));
  expect(blocks.length, `blocks marked ${MARKER}`).toBeGreaterThanOrEqual(5);
  // The recipes that once were left to the reader run too: an image by URL, the video render, the webhooks.
  for (const recipe of ["square.jpg", "templates/render/$RENDER", "deliveries.log", "audiences/$LOOKALIKE"]) {
    expect(
      blocks.some((block) => block.includes(recipe)),
      recipe,
    ).toBe(true);
  }
  const started = Date.now();

  const dataDir = mkdtempSync(join(tmpdir(), "readme-data-"));
  const workDir = mkdtempSync(join(tmpdir(), "readme-work-"));
  dirs.push(dataDir, workDir);
  const beforeStart = pages.flatMap((page) => walkthroughBlocks(page, "before-start"));
  expect(beforeStart.length, "the certificate block").toBe(1);
  execFileSync("bash", ["-c", ["set -euo pipefail", ...beforeStart].join("\n")], { cwd: workDir, stdio: "pipe" });
  const port = await freePort();
  const server = await startProcess(
    children,
    process.execPath,
    ["lib/start.mjs"],
    {
      DATABASE_URL: "",
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      // What the quick start gives the first start for its https recipes.
      ALLOW_LOOPBACK_OUTBOUND: "true",
      OUTBOUND_TRUSTED_CA: readFileSync(join(workDir, "cert.pem"), "utf8"),
    },
    // As the quick start says: the guides run once the Demo's data is written.
    /^Demo data: ready/,
  );
  const exports = server.lines.filter((line) => /^\s+export [A-Z_]+=/.test(line)).map((line) => line.trim());
  expect(exports.map((line) => line.split("=")[0]).sort()).toEqual([
    "export ADMIN",
    "export ADS",
    "export BASE",
    "export DEMO",
    "export GRAPH_SIM",
    "export MAIL",
    "export POSTMARK_SIM",
  ]);
  expect(exports.find((line) => line.startsWith("export GRAPH_SIM="))).toMatch(/^export GRAPH_SIM=http:\/\/127\.0\.0\.1:\d+$/);

  const script = [PRELUDE, ...exports, ...blocks, 'echo "WALKTHROUGH_STEPS=$(wc -l < "$STEPS_FILE")"'].join("\n");
  const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    // node -e "require('sharp')…" resolves from the repository's node_modules, as at the repository root.
    const child = spawn("bash", ["-c", script], {
      cwd: workDir,
      env: { ...process.env, NODE_PATH: join(repoRoot, "node_modules") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
  });
  const steps = Number(/WALKTHROUGH_STEPS=(\d+)/.exec(result.stdout)?.[1] ?? 0);
  expect(result.code, `${result.stderr.slice(-6000)}\n--- stdout ---\n${result.stdout.slice(-3000)}\n--- server ---\n${server.output()}`).toBe(0);
  process.stdout.write(
    `Guides' walk-through: ${steps} curl steps in ${blocks.length} blocks of ${pages.length} pages ran against npm start in ${Math.round((Date.now() - started) / 1000)} s\n`,
  );
  expect(steps).toBeGreaterThanOrEqual(50);
  if (process.env.README_WALKTHROUGH_DEBUG) process.stdout.write(`${result.stderr}\n${result.stdout}\n`);
  // What the guides' comments promise, seen in the answers.
  for (const shown of [
    '"width":1360',
    '"status":"completed"',
    '"unique_clicks":1',
    '"reason":"unsubscribe"',
    '"reactivated":true',
    '"active":false',
    '"effective_status":"ACTIVE"',
    '"image_hash":"',
    '"status":"delivered"',
    '"status":"READY","reason":null,"video_id":"',
    "signature verified",
    "WITH_ISSUES",
    '"status":"scheduled"',
    '"status":"cancelled"',
    '"idempotency_key_reused"',
    '"batches_in_doubt"',
  ]) {
    expect(result.stdout, shown).toContain(shown);
  }
}, 420_000);
