import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import sharp from "sharp";
import { chromiumPresent, CHROMIUM, launchOfflineChromium } from "../tests/helpers/chromium";
import { startHttpsReceiver } from "../tests/helpers/https-receiver";
import { freePort } from "../tests/helpers/processes";

/**
 * The pictures of the operator console (docs/operators/console.md): `npx tsx tools/screenshots.ts` (or `npm run screenshots`).
 *
 * Starts `npm start` on embedded defaults in a fresh data directory on a free loopback port, seeds a little
 * data through the public APIs (customers, labelled keys, a newsletter send job, a transactional mail, ads
 * with one disapproved in review, operators of each role), signs in as the owner in Debian's Chromium and
 * saves 1280×800 palette PNGs (at most 150 KB each) of the main pages to `docs/screenshots/`. Nothing leaves
 * loopback; the server and its data directory are removed at the end.
 */

const OUT = join(process.cwd(), "docs", "screenshots");
const MAX_BYTES = 150 * 1024;
const VIEWPORT = { width: 1280, height: 800 };
// Library blocks of the embedded defaults (docs/portal-developers/transactional-mail.md).
const HEADING = "b7beda4d-2265-4334-ba1f-176be459d030";
const BUTTON = "cf244abf-ecb9-45b9-961d-1991a28088b0";
const OWNER = { email: "olivia.owner@example.com", password: "a long owner password for the pictures" };

type Json = { data?: unknown; error?: unknown; [key: string]: unknown };

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** `npm start` in `dataDir` on `port`; resolves with the banner's `export` values once it printed them. */
async function startServer(dataDir: string, port: number, extra: Record<string, string>): Promise<{ child: ChildProcess; env: Record<string, string> }> {
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ["lib/start.mjs"], {
    env: { ...process.env, ...extra, DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", PUBLIC_BASE_URL: base, LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
  });
  try {
    const env = await until(
      "the start banner",
      async () => {
        if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${out}`);
        if (!/^\s*export DEMO=/m.test(out) || !/^\s*export GRAPH_SIM=/m.test(out)) return undefined;
        return Object.fromEntries([...out.matchAll(/^\s*export (\w+)=(.*)$/gm)].map((m) => [m[1] as string, m[2] as string]));
      },
      60_000,
    );
    return { child, env };
  } catch (error) {
    child.kill("SIGTERM");
    throw error;
  }
}

async function main(): Promise<void> {
  if (!chromiumPresent) throw new Error(`${CHROMIUM} is missing (apt-get install -y chromium)`);
  const dataDir = mkdtempSync(join(tmpdir(), "console-screenshots-"));
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  // The Demo's webhook receiver, on loopback with its own certificate, answering 500 with a body: the
  // delivery page shows a failed delivery and what the receiver said.
  const receiver = await startHttpsReceiver("hooks.demo.test", () => ({
    status: 500,
    headers: { "content-type": "application/json" },
    body: '{"error":"order database unavailable","retry":true}',
  }));
  const { child, env } = await startServer(dataDir, port, { ALLOW_LOOPBACK_OUTBOUND: "true", OUTBOUND_TRUSTED_CA: receiver.ca });
  const adminToken = readFileSync(join(dataDir, "admin-token"), "utf8").trim();
  const demo = env.DEMO ?? "";
  const call = async (method: string, path: string, key: string, body?: unknown): Promise<Json> => {
    const response = await fetch(`${origin}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json().catch(() => ({}))) as Json;
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  const data = <T>(json: Json) => json.data as T;
  const admin = (method: string, path: string, body?: unknown) => call(method, `/admin${path}`, adminToken, body);
  const mailKey = env.MAIL ?? "";
  const adsKey = env.ADS ?? "";
  const browser = await launchOfflineChromium({ origin, profilePrefix: "screenshots-chromium-", viewport: VIEWPORT });
  try {
    // Customers and the Demo's labelled keys (one revoked).
    for (const name of ["Acme GmbH", "Nordwind Reisen", "Bäckerei Sonnenschein", "Kiosk am Markt"]) await admin("POST", "/v1/customers", { name });
    await admin("POST", `/v1/customers/${demo}/keys`, { service: "mail", scope: "full", label: "shop backend" });
    await admin("POST", `/v1/customers/${demo}/keys`, { service: "ads", scope: "reporting", label: "reporting dashboard" });
    const old = data<{ id: string }>(await admin("POST", `/v1/customers/${demo}/keys`, { service: "mail", scope: "reporting", label: "old export" }));
    await admin("DELETE", `/v1/keys/${old.id}`);

    // Mail: a newsletter send job of four recipients (one bounces), and a transactional mail.
    const template = data<{ id: string }>(
      await call("POST", "/mail/v1/templates", mailKey, {
        name: "Spring news",
        subject: "News for {{first_name}}",
        blocks: [
          { block_id: HEADING, values: { title: "Hello {{first_name}}", subtitle: "" } },
          { block_id: BUTTON, values: { label: "Shop now", url: "https://shop.example.com/spring" } },
        ],
      }),
    );
    const hook = data<{ id: string }>(await call("POST", "/mail/v1/webhooks", mailKey, { url: `${receiver.origin}/hooks/mail`, events: ["job.completed"] }));
    const job = data<{ id: string }>(await call("POST", "/mail/v1/send-jobs", mailKey, { template_id: template.id, params: { first_name: "friend" } }));
    await call("POST", `/mail/v1/send-jobs/${job.id}/recipients`, mailKey, {
      recipients: [
        { email: "Ann <ann@example.com>", data: { first_name: "Ann" } },
        { email: "bob@example.com" },
        { email: "carla@example.com" },
        { email: "hardbounce@bounce-testing.postmarkapp.com" },
      ],
    });
    await call("POST", `/mail/v1/send-jobs/${job.id}/start`, mailKey);
    const templates = data<{ id: string; name: string }[]>(await call("GET", "/mail/v1/templates?limit=20", mailKey));
    const order = templates.find((t) => t.name === "Order confirmation");
    let orderMessage = "";
    if (order) {
      orderMessage = data<{ message_id: string }>(
        await call("POST", `/mail/v1/templates/${order.id}/send`, mailKey, {
          to: "Jane <jane@example.com>",
          params: { order_number: "A-1", order_url: "https://shop.example.com/o/A-1" },
        }),
      ).message_id;
    }

    // Ads: an ad set with an ad that passes review and one that is disapproved.
    // The Demo's sample images are made just after the server starts answering.
    const square = await until("the Demo's sample images", async () =>
      data<{ image_hash: string; width: number; height: number }[]>(await call("GET", "/ads/v1/media/images", adsKey)).find((i) => i.width === i.height),
    );
    const adSet = data<{ id: string; name: string }>(
      await call("POST", "/ads/v1/adsets", adsKey, { target: "demo", daily_budget_cents: 2500, targeting: { age_min: 25, age_max: 54 } }),
    );
    const ads: { id: string }[] = [];
    for (const message of ["Summer sale: 30 % off.", "Lose 10 kg in a week! SIM_DISAPPROVE"]) {
      const creative = data<{ id: string }>(await call("POST", "/ads/v1/creatives", adsKey, { image_hash: square.image_hash, name: "Summer square" }));
      ads.push(
        data<{ id: string }>(
          await call("POST", "/ads/v1/ads", adsKey, {
            ad_set_id: adSet.id,
            creative_id: creative.id,
            link: "https://shop.example.com/summer",
            message,
            status: "ACTIVE",
          }),
        ),
      );
    }
    const graph = await fetch(`${env.GRAPH_SIM}/__sim/advance`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"ms":30000}' });
    if (!graph.ok) throw new Error(`the Graph simulator did not advance: ${graph.status}`);
    for (const ad of ads) await call("GET", `/ads/v1/status/${ad.id}`, adsKey);
    await until("the send job to complete", async () => {
      const state = data<{ status: string }>(await call("GET", `/mail/v1/send-jobs/${job.id}`, mailKey));
      return state.status === "completed" ? true : undefined;
    });

    // Ids the pages need, then the operators; the owner comes last (the bootstrap token retires with it).
    const blocks = data<{ id: string; name: string }[]>(await admin("GET", "/v1/mail/blocks"));
    const adTemplates = data<{ id: string; name: string }[]>(await admin("GET", "/v1/ads/templates"));
    await admin("POST", "/v1/operators", { email: "ana.admin@example.com", role: "admin", password: "a long admin password here" });
    await admin("POST", "/v1/operators", { email: "sam.support@example.com", role: "support", password: "a long support password" });
    await admin("POST", "/v1/operators", { ...OWNER, role: "owner" });

    const page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(20_000);
    await page.goto(`${origin}/console/sign-in`);
    await shot(page, "sign-in");
    await page.getByLabel("E-mail").fill(OWNER.email);
    await page.getByLabel("Password").fill(OWNER.password);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    await page.getByRole("heading", { name: "Mail by customer", level: 2 }).waitFor();
    await shot(page, "overview");
    await page.goto(`${origin}/console/#/customers`);
    await page.getByRole("heading", { name: "Customers", level: 1 }).waitFor();
    await page
      .getByTestId("page-status")
      .filter({ hasText: /^Page 1/ })
      .waitFor();
    await shot(page, "customers");

    const visit = async (hash: string, ready: (page: Page) => Promise<unknown>, name: string) => {
      await page.goto(`${origin}/console/#${hash}`);
      await ready(page);
      await page.locator("main").filter({ hasNotText: "Loading…" }).waitFor();
      await shot(page, name);
    };
    const heading =
      (text: string, level = 2) =>
      (p: Page) =>
        p.getByRole("heading", { name: text, level }).first().waitFor();
    await visit(`/customers/${demo}`, heading("Settings and switches"), "customer-settings");
    await visit(`/customers/${demo}/keys`, heading("API keys"), "api-keys");
    await visit(`/customers/${demo}/mail/provider`, heading("Provider (Postmark) and readiness"), "mail-provider");
    await visit(`/customers/${demo}/send-jobs/${job.id}`, (p) => p.getByTestId("job-status").filter({ hasText: "completed" }).waitFor(), "send-job");
    await visit(`/customers/${demo}/messages`, (p) => p.locator("main table tbody tr").first().waitFor(), "messages");
    if (orderMessage) await visit(`/customers/${demo}/messages/${orderMessage}`, (p) => p.locator("main table").first().waitFor(), "message");
    await until("a failed delivery to the Demo's webhook", async () => (receiver.received.length > 0 ? true : undefined), 60_000);
    await visit(
      `/customers/${demo}/webhooks/mail/${hook.id}`,
      async (p) => {
        const first = p.locator("main details").first();
        await first.waitFor();
        await first.locator("summary").click();
      },
      "delivery",
    );
    await visit(
      `/customers/${demo}/adsets`,
      async (p) => {
        // The new ad set's ads (one disapproved in review), scrolled into view by "Show its ads".
        await p.getByRole("button", { name: `Show its ads (${adSet.name})` }).click();
        await p.getByTestId("ads-scope").filter({ hasText: adSet.name }).waitFor();
        await p.getByRole("cell", { name: "✗ disapproved (DISAPPROVED)" }).first().waitFor();
      },
      "ad-sets-and-ads",
    );
    await visit(`/customers/${demo}/ads/insights`, heading("Insights of the ad sets"), "ads");
    const block = blocks.find((b) => b.id === HEADING) ?? blocks[0];
    if (block) await visit(`/blocks/${block.id}`, (p) => p.frameLocator("iframe.preview").locator("body").waitFor(), "block-editor");
    const adTemplate = adTemplates.find((t) => /sale/i.test(t.name)) ?? adTemplates[0];
    if (adTemplate) {
      await visit(
        `/ad-templates/${adTemplate.id}`,
        (p) =>
          until("three previews", async () =>
            (await p
              .getByTestId("ratio-previews")
              .locator("img")
              .evaluateAll((list: HTMLImageElement[]) => list.length === 3 && list.every((img) => img.complete && img.naturalWidth > 0)))
              ? true
              : undefined,
          ),
        "ad-template-editor",
      );
    }
    await visit("/audit-log", (p) => p.getByRole("table").waitFor(), "audit-log");
    await visit("/operators", heading("All operators"), "operators");
    await visit("/system", heading("Reconciliation"), "system");
    if (browser.outside.length > 0) throw new Error(`requests left our origin: ${browser.outside.join(", ")}`);
  } finally {
    await browser.close();
    await receiver.close();
    child.kill("SIGTERM");
    await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once("exit", resolve)));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The viewport as a palette PNG; fewer colours (then a smaller width) until it is at most 150 KB. */
async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  // The focus ring of the page's first focus and the caret are noise in a picture.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  const raw = await page.screenshot({ animations: "disabled", caret: "hide" });
  const file = join(OUT, `${name}.png`);
  for (const [colours, width] of [
    [128, VIEWPORT.width],
    [64, VIEWPORT.width],
    [32, VIEWPORT.width],
    [32, 1024],
  ] as const) {
    await sharp(raw).resize({ width }).png({ palette: true, colours, compressionLevel: 9, effort: 10 }).toFile(file);
    if (statSync(file).size <= MAX_BYTES) break;
  }
  console.log(`${file} ${Math.round(statSync(file).size / 1024)} KB`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
