import { serve, type ServerType } from "@hono/node-server";
import type { Page, Request as BrowserRequest } from "playwright-core";
import { bootRuntime } from "../lib/bootstrap";
import { assetVersions } from "../lib/console/assets";
import { seedDemo } from "../lib/seed";
import { chromiumPresent, CHROMIUM, launchOfflineChromium } from "../tests/helpers/chromium";
import { freePort } from "../tests/helpers/processes";
import { benchDataDir } from "./data-dir";

/**
 * The console's transferred bytes per page, as served: the embedded runtime with the Demo customer behind
 * @hono/node-server on loopback, an owner signed in through Debian's Chromium, then each page opened in turn.
 * Per page: the requests the page made and their bytes on the wire (response headers plus the body as sent,
 * i.e. compressed when it was) and decoded. The first page is the cold visit (shell, script, style sheet,
 * icon); the others reuse the cached assets. The assets are also fetched without the browser with
 * `Accept-Encoding: br`, `gzip` and none: what a client offering only gzip, or nothing, gets.
 * `node --import tsx bench/console-bytes.ts`.
 */
const OWNER = { email: "bytes.owner@example.com", password: "a long password for the bytes bench" };

type Sized = { url: string; wire: number; decoded: number };

async function sizeOf(request: BrowserRequest): Promise<Sized | null> {
  const response = await request.response();
  if (!response) return null;
  const sizes = await request.sizes();
  const body = await response.body().catch(() => Buffer.alloc(0));
  return { url: request.url(), wire: sizes.responseHeadersSize + sizes.responseBodySize, decoded: body.length };
}

async function visit(page: Page, origin: string, path: string, ready: (page: Page) => Promise<unknown>): Promise<Sized[]> {
  const requests: BrowserRequest[] = [];
  const listener = (request: BrowserRequest) => void requests.push(request);
  page.on("requestfinished", listener);
  if (path === "/sign-in") await page.goto(`${origin}/console/sign-in`);
  else await page.goto(`${origin}/console/#${path}`);
  await ready(page);
  await page.waitForTimeout(500);
  page.off("requestfinished", listener);
  return (await Promise.all(requests.map(sizeOf))).filter((s): s is Sized => s !== null);
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

async function main(): Promise<void> {
  if (!chromiumPresent) throw new Error(`${CHROMIUM} is absent: apt-get install -y chromium`);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const runtime = await bootRuntime({
    ...process.env,
    DATABASE_URL: undefined,
    DATA_DIR: benchDataDir("bench-console-bytes-"),
    PUBLIC_BASE_URL: origin,
    LOG_LEVEL: "warn",
  });
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: runtime.app.root.fetch, port, hostname: "127.0.0.1" }, () => resolve(s));
  });
  const browser = await launchOfflineChromium({ origin, profilePrefix: "bench-console-bytes-", viewport: { width: 1280, height: 800 } });
  try {
    const demo = await seedDemo(runtime.deps, runtime.app.adsDeps);
    const made = await runtime.app.root.request("/admin/v1/operators", {
      method: "POST",
      headers: { authorization: `Bearer ${runtime.deps.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ ...OWNER, role: "owner" }),
    });
    if (made.status !== 201) throw new Error(`owner not created: ${made.status} ${await made.text()}`);

    const page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(30_000);
    const heading = (name: string) => (p: Page) => p.getByRole("heading", { name, level: 1 }).waitFor();
    const drawn = (p: Page) =>
      p.waitForFunction(() => !!document.querySelector("#main h1") && !document.getElementById("main")?.textContent?.includes("Loading…"));

    const rows: [string, Sized[]][] = [];
    rows.push(["sign-in page (cold)", await visit(page, origin, "/sign-in", (p) => p.getByLabel("E-mail").waitFor())]);
    await page.getByLabel("E-mail").fill(OWNER.email);
    await page.getByLabel("Password").fill(OWNER.password);
    const signedIn: BrowserRequest[] = [];
    const listener = (request: BrowserRequest) => void signedIn.push(request);
    page.on("requestfinished", listener);
    await page.keyboard.press("Enter");
    await heading("Overview")(page);
    await page.waitForTimeout(500);
    page.off("requestfinished", listener);
    rows.push(["sign in → overview (first console visit)", (await Promise.all(signedIn.map(sizeOf))).filter((s): s is Sized => s !== null)]);

    const customer = `/customers/${demo.customerId}`;
    const pages: [string, string][] = [
      ["overview (cached assets)", "/overview"],
      ["overview, 30 days", "/overview?period=30d"],
      ["search by name", "/search?q=Demo"],
      ["customers", "/customers"],
      ["customer settings", customer],
      ["API keys", `${customer}/keys`],
      ["mail provider", `${customer}/mail/provider`],
      ["mail templates", `${customer}/mail/templates`],
      ["send jobs", `${customer}/send-jobs`],
      ["messages", `${customer}/messages`],
      ["webhooks", `${customer}/webhooks`],
      ["ads", `${customer}/ads`],
      ["ad sets and ads", `${customer}/adsets`],
      ["charts", `${customer}/stats`],
      ["block library", "/blocks"],
      ["ad templates", "/ad-templates"],
      ["system", "/system"],
      ["operators", "/operators"],
      ["audit log", "/audit-log"],
      ["my account", "/me"],
    ];
    for (const [label, path] of pages) rows.push([label, await visit(page, origin, path, drawn)]);

    console.log("console bytes per page (Chromium over http://127.0.0.1; wire = headers + body as sent, decoded = the body's bytes)");
    for (const [label, sized] of rows) {
      const wire = sized.reduce((sum, s) => sum + s.wire, 0);
      const decoded = sized.reduce((sum, s) => sum + s.decoded, 0);
      console.log(
        `  ${label.padEnd(42)} ${String(sized.length).padStart(3)} requests  ${kb(wire).padStart(9)} on the wire  ${kb(decoded).padStart(9)} decoded`,
      );
    }

    const first = rows[1]?.[1] ?? [];
    console.log("the first console visit, request by request");
    for (const r of first) console.log(`  ${new URL(r.url).pathname.padEnd(40)} ${kb(r.wire).padStart(9)} on the wire  ${kb(r.decoded).padStart(9)} decoded`);

    // The assets as a client asking for each encoding gets them, under the versioned URLs the pages name.
    const versions = await assetVersions();
    console.log("console assets by encoding (body bytes; what the server sent in brackets)");
    for (const asset of [`/console/app.js?v=${versions.script}`, `/console/console.css?v=${versions.style}`]) {
      const sizes: string[] = [];
      for (const encoding of ["br", "gzip", "identity"]) {
        const r = await runtime.app.root.request(asset, { headers: { "accept-encoding": encoding } });
        const bytes = (await r.arrayBuffer()).byteLength;
        sizes.push(`asked ${encoding}: ${kb(bytes)} (${r.headers.get("content-encoding") ?? "none"})`);
      }
      console.log(`  ${asset.split("?")[0]}: ${sizes.join(", ")}; cache-control: ${(await runtime.app.root.request(asset)).headers.get("cache-control")}`);
    }
  } finally {
    await browser.close();
    await new Promise((resolve) => server.close(resolve));
    await runtime.close();
  }
}

await main();
