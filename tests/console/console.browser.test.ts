import { mkdirSync, readFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { createRequire } from "node:module";
import { serve, type ServerType } from "@hono/node-server";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SALE_BANNER } from "../../lib/ads/templates/demo";
import { graphControls, onboardedCustomer } from "../ads/support/ads-world";
import { CHROMIUM, chromiumPresent, launchOfflineChromium, type OfflineBrowser } from "../helpers/chromium";
import { createHarness, describeResponse, type Harness, type Admin, type ErrorEnvelope } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { addRecipients, createJob, createNewsletter, holdBatches, people, transientRows, waitForJob } from "../helpers/send-jobs";
import { startHttpsReceiver } from "../helpers/https-receiver";
import { postEvent, postmarkEvent, sendTransactional } from "../helpers/postmark-events";

/**
 * The operator console in a real browser: Debian's Chromium driven by playwright-core against the app served
 * over loopback HTTP (real PGlite, real migrations, the embedded simulators). One browser for the file; every
 * step is one operator task from the issue; each page passes an axe-core scan without serious or critical
 * violations; a failing step leaves a screenshot under test-output/console/.
 */
const SCREENSHOTS = join(process.cwd(), "test-output", "console");

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

let h: Harness;
let server: ServerType;
let origin: string;
let context: BrowserContext;
let page: Page;
let browser: OfflineBrowser | undefined;
/** A customer's webhook receiver (https on loopback); answers 500 on `/down` until told otherwise. */
let hooks: Awaited<ReturnType<typeof startHttpsReceiver>> | undefined;
let hooksDown = true;

/** Runs one operator task; on failure the page is photographed before the error goes on. */
async function step<T>(name: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, `${name.replace(/[^a-z0-9]+/gi, "-")}.png`), fullPage: true }).catch(() => undefined);
    throw error;
  }
}

type AxeViolation = { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] };

/**
 * axe-core in the page (evaluated through the DevTools protocol, so the page's CSP stays as it is). Previews of
 * a customer's design (`.customer-content`, sandboxed frames) are the customer's content and left out.
 */
async function accessibilityProblems(): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    // `.customer-content` shows a customer's own design (its colours are the customer's choice, not the console's).
    const result = await axe.run({ exclude: [[".customer-content"]] } as unknown as Document, { resultTypes: ["violations"] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target) }));
  });
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${JSON.stringify(v.nodes.slice(0, 3))}`);
}

const api = <T>(method: string, path: string, key: string, body?: unknown) => h.call<T>(method, path, { key, body });

(chromiumPresent ? describe : describe.skip)(
  chromiumPresent ? "operator console in Chromium" : `operator console in Chromium — skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`,
  () => {
    beforeAll(async () => {
      const port = await freePort();
      origin = `http://127.0.0.1:${port}`;
      hooks = await startHttpsReceiver("console-hooks.test", (request) => ({ status: request.path === "/down" && hooksDown ? 500 : 200 }));
      h = await createHarness({ env: { PUBLIC_BASE_URL: origin, ALLOW_LOOPBACK_OUTBOUND: "true", OUTBOUND_TRUSTED_CA: hooks.ca } });
      server = await new Promise<ServerType>((resolve) => {
        const s = serve({ fetch: h.root.fetch, port, hostname: "127.0.0.1" }, () => resolve(s));
      });
      // Nothing leaves our origin: any other request is recorded and refused.
      browser = await launchOfflineChromium({ origin, profilePrefix: "console-chromium-", viewport: { width: 1400, height: 900 } });
      context = browser.context;
      page = context.pages()[0] ?? (await context.newPage());
      // Well under the test timeout, so a step that waits in vain fails with its screenshot taken.
      page.setDefaultTimeout(10_000);
      // Leaving an editor with unsaved changes asks first; these walks leave pages freely.
      page.on("dialog", (dialog) => void dialog.accept());
    });

    afterAll(async () => {
      await browser?.close();
      await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
      await h?.close();
      await hooks?.close();
    });

    test("sign in: a customer's API key is refused, the operator token opens the console (keyboard only)", async () => {
      await step("sign-in", async () => {
        const c = await h.customer("Key holder");
        await page.goto(`${origin}/console`);
        expect(new URL(page.url()).pathname).toBe("/console/sign-in");
        expect(await accessibilityProblems()).toEqual([]);
        await page.getByLabel("Operator token").fill(c.mailFull);
        await page.keyboard.press("Enter");
        await expect.poll(() => page.locator("#token-error").textContent()).toContain("customer's API key does not open the console");
        expect(await page.getByLabel("Operator token").getAttribute("aria-invalid")).toBe("true");
        await page.getByLabel("Operator token").fill(h.deps.adminToken);
        await page.keyboard.press("Enter");
        await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
        const cookie = (await context.cookies(`${origin}/console/`)).find((k) => k.name === "console_session");
        expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/console" });
        expect(await page.evaluate(() => document.cookie)).not.toContain("console_session");
        expect(await accessibilityProblems()).toEqual([]);
      });
    });

    test("create a customer and a key: the key is shown once and works", async () => {
      await step("customer-and-key", async () => {
        await page.goto(`${origin}/console/#/customers`);
        await page.getByLabel("Name").fill("Console Customer GmbH");
        await page.getByRole("button", { name: "Create customer" }).click();
        await page.getByRole("heading", { name: "Console Customer GmbH", level: 1 }).waitFor();
        const customerId = (/#\/customers\/([0-9a-f-]{36})/.exec(page.url()) ?? [])[1] ?? "";
        expect((await h.admin<Admin["getCustomer"]>("GET", `/v1/customers/${customerId}`)).json.data.name).toBe("Console Customer GmbH");

        // API keys are a page of their own.
        await page.getByRole("navigation", { name: "Customer sections" }).getByRole("link", { name: "API keys" }).click();
        await page.getByLabel("Service").selectOption("mail");
        await page.getByLabel("Scope").selectOption("reporting");
        await page.getByRole("button", { name: "Create key" }).click();
        const key = (await page.getByTestId("issued-key").textContent()) ?? "";
        expect(key).toMatch(/^mk_live_/);
        const usage = await api("GET", "/mail/v1/usage", key);
        expect(usage.status, describeResponse(usage)).toBe(200);
        await page.getByRole("button", { name: /^Revoke key mk_live_/ }).waitFor();
        expect(await accessibilityProblems()).toEqual([]);

        // A field error from the API is shown next to its field.
        await page.getByRole("navigation", { name: "Customer sections" }).getByRole("link", { name: "Settings" }).click();
        await page.getByLabel("Mail: monthly limit").fill("-5");
        await page.getByRole("button", { name: "Save settings" }).click();
        const limitError = page.locator(".field", { has: page.getByLabel("Mail: monthly limit") }).locator(".error");
        await expect.poll(() => limitError.textContent()).toMatch(/^Error: /);
        await page.goto(`${origin}/console/#/customers`);
        await page.getByLabel("Search customers").fill("Console Customer");
        await expect.poll(() => page.getByRole("link", { name: "Console Customer GmbH" }).count()).toBe(1);
      });
    });

    test("edit a block: the preview follows the MJML as it is typed", async () => {
      await step("block-preview", async () => {
        const created = await h.admin<Admin["createMailBlock"]>("POST", "/v1/mail/blocks", {
          slug: "console-heading",
          name: "Console heading",
          mjml: "<mj-section><mj-column><mj-text><h1>First words {{title}}</h1></mj-text></mj-column></mj-section>",
          params: [{ name: "title", type: "text", label: "Title", required: true, fallback: "", hide_if_missing: false, example: "for the example" }],
        });
        expect(created.status, describeResponse(created)).toBe(201);
        await page.goto(`${origin}/console/#/blocks/${created.json.data.id}`);
        const frame = page.locator("iframe.preview");
        // The preview is rendered on the server: give it the time a loaded machine takes, as the other previews here.
        await expect.poll(() => frame.getAttribute("srcdoc"), { timeout: 20_000 }).toContain("First words for the example");
        expect(await page.frameLocator("iframe.preview").locator("h1").textContent()).toBe("First words for the example");

        await page.getByLabel("MJML").fill("<mj-section><mj-column><mj-text><h1>Second words {{title}}</h1></mj-text></mj-column></mj-section>");
        await expect.poll(() => page.frameLocator("iframe.preview").locator("h1").textContent(), { timeout: 20_000 }).toBe("Second words for the example");
        expect(await accessibilityProblems()).toEqual([]);

        // Broken parameters JSON (the advanced view beside the form) is named next to the field; nothing is saved.
        await page.getByRole("button", { name: "Edit parameters as JSON" }).click();
        await page.getByLabel(/^Parameters \(JSON/).fill("[{");
        await expect.poll(() => page.getByTestId("preview-state").textContent(), { timeout: 20_000 }).toContain("Preview failed");
        const paramsError = page.locator(".field", { has: page.getByLabel(/^Parameters \(JSON/) }).locator(".error");
        expect(await paramsError.textContent()).toContain("Not valid JSON");
        expect((await h.admin<Admin["getMailBlock"]>("GET", `/v1/mail/blocks/${created.json.data.id}`)).json.data.version).toBe(1);
      });
    });

    test("pause a target: the customer's ad-set creation is refused", async () => {
      await step("pause-target", async () => {
        const c = await onboardedCustomer({ h, sim: graphControls(h) }, "Console Ads");
        const before = await api("POST", "/ads/v1/adsets", c.adsFull, { target: "main", daily_budget_cents: 1500 });
        expect(before.status, describeResponse(before)).toBe(201);
        // One page per concern: the Ads tab lands on onboarding; each section shows its card and
        // nothing else, passes axe, and asks nothing of another origin.
        await page.goto(`${origin}/console/#/customers/${c.id}`);
        await page.getByRole("navigation", { name: "Customer sections" }).getByRole("link", { name: "Ads", exact: true }).click();
        await page.getByRole("heading", { name: "Onboarding", level: 2 }).waitFor();
        expect(await page.getByRole("navigation", { name: "Ads sections" }).getByRole("link", { name: "Onboarding" }).getAttribute("aria-current")).toBe(
          "page",
        );
        const sections: [string, string, string][] = [
          ["Targets", "targets", "Targets"],
          ["Templates", "templates", "Ad templates of this customer"],
          ["Plan and usage", "plan", "Plan and usage"],
          ["Insights", "insights", "Insights of the ad sets"],
          ["Onboarding", "onboarding", "Onboarding"],
        ];
        for (const [link, path, title] of sections) {
          await page.getByRole("navigation", { name: "Ads sections" }).getByRole("link", { name: link, exact: true }).click();
          await page.getByRole("heading", { name: title, level: 2 }).waitFor();
          expect(new URL(page.url()).hash).toBe(`#/customers/${c.id}/ads/${path}`);
          expect(await page.locator("main h2").allTextContents()).toEqual([title]);
          expect(await accessibilityProblems()).toEqual([]);
        }
        expect(browser?.outside).toEqual([]);
        await page.goto(`${origin}/console/#/customers/${c.id}/ads/targets`);
        await page.getByRole("button", { name: "Pause main" }).click();
        await page.getByRole("button", { name: "Activate main" }).waitFor();
        expect(await page.getByRole("status").filter({ hasText: "Target main is now paused." }).count()).toBe(1);
        const refused = await api<ErrorEnvelope>("POST", "/ads/v1/adsets", c.adsFull, { target: "main", daily_budget_cents: 1500 });
        expect(refused.status, describeResponse(refused)).toBe(409);
        expect(refused.json.error.details).toMatchObject({ reason: "target_inactive", target: "main" });
        expect(await accessibilityProblems()).toEqual([]);
      });
    });

    test("a small send job: its progress is watched until completed", async () => {
      await step("send-job", async () => {
        const c = await readyMailCustomer(h, "Console Sender");
        const templateId = await createNewsletter(h, c.mailFull);
        const batches = holdBatches(h);
        try {
          const job = await createJob(h, c.mailFull, { template_id: templateId });
          await addRecipients(h, c.mailFull, job.id, people(3, "console.example.com"));
          const started = await api("POST", `/mail/v1/send-jobs/${job.id}/start`, c.mailFull);
          expect(started.status, describeResponse(started)).toBe(200);
          await page.goto(`${origin}/console/#/customers/${c.id}/send-jobs`);
          // Jobs are listed by name (here the template's and the day).
          await page.getByRole("link", { name: job.name }).click();
          await expect.poll(() => page.getByTestId("job-status").textContent()).toBe("Status: running");
          expect(await page.locator("label[for=job-progress]").textContent()).toContain("0 of 3 recipients handled");
          expect(await accessibilityProblems()).toEqual([]);
          await batches.drain();
          await expect.poll(() => page.getByTestId("job-status").textContent(), { timeout: 10_000 }).toBe("Status: completed");
          expect(await page.locator("label[for=job-progress]").textContent()).toContain("3 of 3 recipients handled");
          expect(await page.locator("#job-progress").evaluate((p: HTMLProgressElement) => [p.value, p.max])).toEqual([3, 3]);
          await page.getByRole("img", { name: /Hourly timeline: accepted/ }).waitFor();
          // One uPlot chart, bundled with the console (no request leaves our origin), instead of five one-bar charts.
          expect(await page.locator(".uplot canvas").count()).toBe(1);
        } finally {
          batches.release();
        }
      });
    });

    test("the system page: waiting batches, provider figures, reconciliation backlog", async () => {
      await step("system", async () => {
        const c = await readyMailCustomer(h, "Console System");
        const templateId = await createNewsletter(h, c.mailFull);
        const batches = holdBatches(h);
        try {
          const job = await createJob(h, c.mailFull, { template_id: templateId });
          await addRecipients(h, c.mailFull, job.id, people(2, "system.example.com"));
          const started = await api("POST", `/mail/v1/send-jobs/${job.id}/start`, c.mailFull);
          expect(started.status, describeResponse(started)).toBe(200);
          await page.goto(`${origin}/console/#/customers`);
          await page.getByRole("link", { name: "System" }).click();
          await page.getByRole("heading", { name: "System", level: 1 }).waitFor();
          for (const title of ["Queue", "Send jobs", "Providers", "Webhook deliveries", "Reconciliation"]) {
            await page.getByRole("heading", { name: title, level: 2 }).waitFor();
          }
          const waiting = page.getByRole("row", { name: /^Send-job batches/ });
          expect(await waiting.getByRole("cell").nth(1).textContent()).toBe("1");
          expect(await page.getByRole("row", { name: /^Postmark/ }).count()).toBe(1);
          expect(await accessibilityProblems()).toEqual([]);
          await batches.drain();
          await waitForJob(h, c.mailFull, job.id, "completed");
        } finally {
          batches.release();
        }
      });
    });

    test("an ad template: live previews of a draft in three ratios, and a customer's previews", async () => {
      await step("ad-template-previews", async () => {
        const made = await h.admin<Admin["createLibraryAdTemplate"]>("POST", "/v1/ads/templates", {
          name: SALE_BANNER.name,
          description: SALE_BANNER.description,
          type: "image",
          params: SALE_BANNER.params,
          layouts: SALE_BANNER.layouts,
          highlight: SALE_BANNER.highlight,
        });
        expect(made.status, describeResponse(made)).toBe(201);
        const templateId: string = made.json.data.id;
        await page.goto(`${origin}/console/#/ad-templates/${templateId}`);
        const images = page.getByTestId("ratio-previews").locator("img");
        // The first drawing starts the render workers (fonts, layout engine): on a loaded 2-core machine that alone took 20 s.
        await expect.poll(() => images.count(), { timeout: 60_000 }).toBe(3);
        const sizes = async () => images.evaluateAll((list: HTMLImageElement[]) => list.map((img) => [img.alt, img.naturalWidth, img.naturalHeight]));
        await expect.poll(sizes).toEqual([
          [`${SALE_BANNER.name} in 1:1`, 360, 360],
          [`${SALE_BANNER.name} in 4:5`, 360, 450],
          [`${SALE_BANNER.name} in 9:16`, 360, 640],
        ]);
        const first = await images.first().getAttribute("src");
        await page.getByLabel("Preview: Headline").fill("Console [[preview]] text");
        await expect.poll(() => images.first().getAttribute("src"), { timeout: 20_000 }).not.toBe(first);
        expect(await accessibilityProblems()).toEqual([]);

        const c = await h.customer("Template customer");
        await page.goto(`${origin}/console/#/customers/${c.id}/ads/templates`);
        await page.getByLabel(`Assign ${SALE_BANNER.name}`).check();
        await expect.poll(() => page.getByText(`${SALE_BANNER.name} assigned.`).count()).toBe(1);
        await page.getByRole("button", { name: `Previews of ${SALE_BANNER.name}` }).click();
        const customerImages = page.getByTestId("ratio-previews").locator("img");
        await expect
          .poll(async () => customerImages.evaluateAll((list: HTMLImageElement[]) => list.map((img) => [img.naturalWidth, img.naturalHeight])), {
            timeout: 20_000,
          })
          .toEqual([
            [1080, 1080],
            [1080, 1350],
            [1080, 1920],
          ]);
      });
    });

    test("a customer's mail: readiness, events on unconfigured streams, usage, design rules with a live sample, template preview, suppression lookup", async () => {
      await step("customer-mail", async () => {
        const c = await readyMailCustomer(h, "Console Mail");
        await createNewsletter(h, c.mailFull, "Console newsletter");
        // One page per concern: each section's cards, and nothing but them.
        const sections: [string, string[]][] = [
          ["Usage and suppressions", ["Usage of", "Suppression lookup"]],
          ["Design and brand", ["Design rules", "Brand and frame"]],
          ["Templates and blocks", ["Templates", "Enabled blocks"]],
          ["Senders and domains", ["Senders and domains"]],
          ["Provider and webhook", ["Provider (Postmark) and readiness", "Postmark webhook credentials"]],
        ];
        await page.goto(`${origin}/console/#/customers/${c.id}/mail`);
        for (const [section, titles] of sections) {
          await page.getByRole("navigation", { name: "Mail sections" }).getByRole("link", { name: section }).click();
          for (const title of titles) {
            await page.getByRole("heading", { name: new RegExp(`^${title.replace(/[()]/g, "\\$&")}`), level: 2 }).waitFor();
          }
          expect(await page.locator("main h2").count()).toBe(titles.length);
          expect(await accessibilityProblems()).toEqual([]);
        }
        // The webhook password is fetched only by an explicit reveal (audited), then masked until shown.
        const webhook = (await h.admin<Admin["revealCustomerPostmarkWebhook"]>("POST", `/v1/customers/${c.id}/mail/postmark-webhook/reveal`)).json.data;
        expect(await page.locator("main").textContent()).not.toContain(webhook.password);
        await page.getByRole("button", { name: "Show the webhook URL with its password" }).click();
        const secret = page.getByTestId("secret-value");
        await expect.poll(() => secret.textContent()).toContain("••••••••");
        await page.getByRole("button", { name: "Reveal webhook URL" }).click();
        expect(await secret.textContent()).toBe(webhook.url_with_credentials);
        await page.getByRole("button", { name: "Hide webhook URL" }).click();
        expect(await secret.textContent()).not.toBe(webhook.url_with_credentials);
        expect(await page.getByText("✓ Ready to send.").count()).toBe(1);
        expect(await page.getByTestId("unconfigured-streams").textContent()).toContain("Events on unconfigured streams: 0.");
        expect(await accessibilityProblems()).toEqual([]);

        // A delivery on a stream id the configuration does not name: applied, and counted for the operator with the stream.
        const messageId = await sendTransactional(h, c, "console-stream@example.com");
        const delivered = await postEvent(
          h,
          postmarkEvent.delivery({ message_id: messageId }, "2026-11-22T10:00:00Z", "outbound-2026", "console-stream@example.com"),
        );
        expect(delivered.json.data, describeResponse(delivered)).toMatchObject({ outcome: "stored" });
        await page.reload();
        const unconfigured = page.getByTestId("unconfigured-streams");
        await expect.poll(() => unconfigured.textContent()).toContain("Events on unconfigured streams: 1.");
        expect(await unconfigured.textContent()).toContain("not named below (outbound-2026;");

        await page.getByRole("link", { name: "Design and brand" }).click();
        const primary = page.getByLabel("Brand colour (buttons, accents)", { exact: true });
        await primary.fill("#e11d48");
        const button = page.getByTestId("design-sample").getByText("Button");
        await expect.poll(() => button.evaluate((b) => getComputedStyle(b).backgroundColor)).toBe("rgb(225, 29, 72)");
        await primary.fill("pink");
        await page.getByRole("button", { name: "Save design rules" }).click();
        const primaryError = page.locator(".field", { has: primary }).locator(".error");
        await expect.poll(() => primaryError.textContent()).toContain("hex colour");

        await page.getByRole("link", { name: "Templates and blocks" }).click();
        await page.getByRole("button", { name: "Preview Console newsletter" }).click();
        await expect.poll(() => page.locator("iframe[title='Template preview']").getAttribute("srcdoc")).toContain("Spring is here");

        await page.getByRole("link", { name: "Usage and suppressions" }).click();
        await page.getByLabel("Addresses (one per line)").fill("nobody@example.com");
        await page.getByRole("button", { name: "Look up" }).click();
        await expect.poll(() => page.getByText("0 of 1 suppressed.").count()).toBe(1);
      });
    });

    test("a customer's activity: a message found by address after its job's retention, a suppression reactivated, a failed webhook redelivered", async () => {
      await step("customer-activity", async () => {
        const c = await readyMailCustomer(h, "Console Activity");
        const templateId = await createNewsletter(h, c.mailFull, "Activity newsletter");
        const job = await createJob(h, c.mailFull, { template_id: templateId });
        await addRecipients(h, c.mailFull, job.id, [{ email: "Anna Activity <anna.activity@example.com>" }, ...people(2, "activity.example.com")]);
        expect((await api("POST", `/mail/v1/send-jobs/${job.id}/start`, c.mailFull)).status).toBe(200);
        await waitForJob(h, c.mailReporting, job.id, "completed");
        expect(await transientRows(h, job.id)).toBe(0);

        await page.goto(`${origin}/console/#/customers/${c.id}`);
        await page.getByRole("navigation", { name: "Customer sections" }).getByRole("link", { name: "Messages" }).click();
        await page.getByLabel("Recipient address").fill("ANNA.activity@example.com");
        // The activity form's own button (the top bar has a search box of its own).
        await page
          .locator("form")
          .filter({ has: page.getByLabel("Recipient address") })
          .getByRole("button", { name: "Search" })
          .click();
        await expect.poll(() => page.locator("table tbody tr").count()).toBe(1);
        expect(await accessibilityProblems()).toEqual([]);
        await page.locator("table tbody tr a").first().click();
        await page.getByRole("heading", { name: "Timeline", level: 2 }).waitFor();
        expect(await page.locator("table").last().textContent()).toContain("Created");
        expect(await accessibilityProblems()).toEqual([]);

        const suppressed = await postEvent(
          h,
          postmarkEvent.subscriptionChange({
            at: new Date().toISOString(),
            suppress: true,
            reason: "ManualSuppression",
            recipient: "back@example.com",
            messageId: null,
          }),
          { customerId: c.id },
        );
        expect(suppressed.status, describeResponse(suppressed)).toBe(200);
        await page.getByRole("navigation", { name: "Customer sections" }).getByRole("link", { name: "Suppressions" }).click();
        await page.getByRole("button", { name: "Reactivate back@example.com" }).click();
        await page.getByText("✓ back@example.com reactivated on the newsletter stream.").waitFor();
        expect(await page.getByRole("link", { name: "Download CSV" }).getAttribute("href")).toContain("format=csv");
        expect(await accessibilityProblems()).toEqual([]);

        const hook = await api("POST", "/mail/v1/webhooks", c.mailFull, { url: `${hooks?.origin}/down`, events: ["suppression.changed"] });
        expect(hook.status, describeResponse(hook)).toBe(201);
        await postEvent(
          h,
          postmarkEvent.subscriptionChange({
            at: new Date().toISOString(),
            suppress: true,
            reason: "HardBounce",
            recipient: "gone@example.com",
            messageId: null,
          }),
          { customerId: c.id },
        );
        await expect.poll(() => hooks?.received.filter((r) => r.path === "/down").length, { timeout: 10_000 }).toBe(1);
        await page.getByRole("navigation", { name: "Customer sections" }).getByRole("link", { name: "Webhooks" }).click();
        await page.getByRole("link", { name: `${hooks?.origin}/down` }).click();
        // Each delivery is a row that opens (details.delivery); its summary shows the status.
        const delivery = () => page.locator("details.delivery").first().locator("summary").textContent();
        await expect.poll(delivery, { timeout: 10_000 }).toContain("500");
        expect(await accessibilityProblems()).toEqual([]);
        hooksDown = false;
        await page.locator("details.delivery").first().locator("summary").click();
        await page.getByRole("button", { name: /^Redeliver suppression.changed/ }).click();
        await page
          .getByText(/queued/)
          .first()
          .waitFor();
        await expect.poll(() => hooks?.received.filter((r) => r.path === "/down").length, { timeout: 10_000 }).toBe(2);
        await expect
          .poll(
            async () => {
              await page.getByRole("button", { name: "Reload" }).click();
              return delivery();
            },
            { timeout: 10_000 },
          )
          .toMatch(/delivered/i);
      });
    });

    test("sign out: the session ends and the console refuses", async () => {
      await step("sign-out", async () => {
        await page.goto(`${origin}/console/#/customers`);
        await page.getByRole("button", { name: "Sign out" }).click();
        await page.getByText("You are signed out.").waitFor();
        expect(await page.evaluate(async () => (await fetch("/console/api/customers")).status)).toBe(401);
        await page.goto(`${origin}/console/#/customers`);
        expect(new URL(page.url()).pathname).toBe("/console/sign-in");
        expect(browser?.outside).toEqual([]);
      });
    });
  },
);
