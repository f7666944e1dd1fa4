import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { freePort, repoRoot, startProcess, type StartedProcess } from "../helpers/processes";

/**
 * `npm start` as a user meets it (a real child process, a fresh data folder, embedded defaults): the banner
 * says the Demo's data is being prepared and `GET /health` agrees; once the start prints "Demo data: ready",
 * the guides' first insights call, as written in docs/portal-developers/ads-insights.md, answers the Demo's
 * rows at once, and the templates and sample images are listed. A restart on the same folder says the same.
 */
const children: ChildProcess[] = [];
const dataDir = mkdtempSync(join(tmpdir(), "demo-ready-"));

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
});

/** The guide's first insights call: `curl -s "$A/insights?level=adset&date_range=last_30d" "${K[@]}"`. */
function guideInsightsCall(): string {
  const page = readFileSync(join(repoRoot, "docs/portal-developers/ads-insights.md"), "utf8");
  const call = /curl -s "\$A\/(insights\?[^"]+)"/.exec(page)?.[1];
  if (!call) throw new Error("the guide's first insights call is not in docs/portal-developers/ads-insights.md");
  return call;
}

function waitForLine(server: StartedProcess, pattern: RegExp, ms: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + ms;
    const poll = () => {
      const line = server.lines.find((candidate) => pattern.test(candidate));
      if (line) return resolve(line);
      if (server.child.exitCode !== null) return reject(new Error(`the server exited:\n${server.output()}`));
      if (Date.now() > deadline) return reject(new Error(`no line ${pattern} within ${ms} ms:\n${server.output()}`));
      setTimeout(poll, 20);
    };
    poll();
  });
}

async function start(port: number): Promise<StartedProcess> {
  return startProcess(
    children,
    process.execPath,
    ["lib/start.mjs"],
    { DATABASE_URL: "", DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "warn" },
    /^Demo data: being prepared/,
  );
}

async function stop(server: StartedProcess): Promise<void> {
  const exited = new Promise((resolve) => server.child.once("exit", resolve));
  server.child.kill("SIGTERM");
  await exited;
}

test("the Demo's data is there when the start says so, on the first start and after a restart", async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const call = guideInsightsCall();
  let adsKey = "";
  for (const run of ["first start", "restart"]) {
    const server = await start(port);
    const banner = server.lines.join("\n");
    expect(banner, run).toContain("Mail and ads middleware is running");
    if (run === "first start") adsKey = /export ADS=(\S+)/.exec(banner)?.[1] ?? "";
    expect(adsKey, run).not.toBe("");

    const during = (await (await fetch(`${base}/health`)).json()) as { status: string; demo_data: string };
    expect(during.status, run).toBe("ok");
    expect(["preparing", "ready"], run).toContain(during.demo_data);

    await waitForLine(server, /^Demo data: ready/, 240_000);
    // Right after the line: no waiting, no retry.
    const headers = { authorization: `Bearer ${adsKey}` };
    const [health, insights, templates, images] = await Promise.all([
      fetch(`${base}/health`).then((r) => r.json() as Promise<{ demo_data: string }>),
      fetch(`${base}/ads/v1/${call}`, { headers }).then(async (r) => ({ status: r.status, body: (await r.json()) as { data: { platform_id: string }[] } })),
      fetch(`${base}/ads/v1/templates`, { headers }).then((r) => r.json() as Promise<{ data: unknown[] }>),
      fetch(`${base}/ads/v1/media/images`, { headers }).then((r) => r.json() as Promise<{ data: unknown[] }>),
    ]);
    expect(health.demo_data, run).toBe("ready");
    expect(insights.status, run).toBe(200);
    // The Demo's two ad sets (lib/ads/insights/demo.ts), each with 30 days of delivery.
    expect(insights.body.data.map((row) => row.platform_id).sort(), run).toEqual(["120200000000002001", "120200000000002002"]);
    expect(templates.data.length, run).toBeGreaterThanOrEqual(2);
    expect(images.data.length, run).toBeGreaterThanOrEqual(3);
    await stop(server);
  }
}, 600_000);
