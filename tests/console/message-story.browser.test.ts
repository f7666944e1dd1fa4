import { serve, type ServerType } from "@hono/node-server";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { CHROMIUM, chromiumPresent, launchOfflineChromium, seriousViolations, type OfflineBrowser } from "../helpers/chromium";
import { createHarness, describeResponse, type Harness, type Mail } from "../helpers/harness";
import { startHttpsReceiver } from "../helpers/https-receiver";
import { readyMailCustomer } from "../helpers/mail";
import { makeOperator, type TestOperator } from "../helpers/operators";
import { postEvent, postmarkEvent, sendTransactional } from "../helpers/postmark-events";
import { freePort } from "../helpers/processes";
import { addRecipients, createJob, createNewsletter } from "../helpers/send-jobs";

/**
 * The whole story of a mail and a webhook endpoint an operator can debug, in Debian's Chromium over
 * loopback: a transactional message's page shows its events in words (the bounce's type and description),
 * the HTML as sent in a sandboxed frame without scripts and its text part; a newsletter's page shows the
 * job's template with its placeholders and says why; a named job lists with its progress and links to its
 * messages; "Send a test event" reaches a receiver on loopback and its row shows the answer. Nothing leaves
 * our origin; every page passes axe-core.
 */
let h: Harness;
let server: ServerType;
let origin: string;
let page: Page;
let browser: OfflineBrowser | undefined;
let receiver: Awaited<ReturnType<typeof startHttpsReceiver>>;
let support: TestOperator;
let c: Awaited<ReturnType<typeof readyMailCustomer>>;
let transactional = "";
let newsletter = "";
let jobId = "";
let webhookId = "";

async function signIn(operator: TestOperator): Promise<void> {
  await browser?.context.clearCookies();
  await page.goto(`${origin}/console/sign-in`);
  await page.getByLabel("E-mail").fill(operator.email);
  await page.getByLabel("Password").fill(operator.password);
  await page.keyboard.press("Enter");
  // The first page of a fresh server bundles the script (esbuild) first: slow on a loaded machine.
  await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor({ timeout: 30_000 });
}

(chromiumPresent ? describe : describe.skip)(
  chromiumPresent ? "the story of a mail" : `the story of a mail — skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`,
  () => {
    beforeAll(async () => {
      receiver = await startHttpsReceiver("story-receiver.test", () => ({ status: 200, headers: { "content-type": "text/plain" }, body: "thanks, test seen" }));
      const port = await freePort();
      origin = `http://127.0.0.1:${port}`;
      h = await createHarness({ env: { PUBLIC_BASE_URL: origin, ALLOW_LOOPBACK_OUTBOUND: "true", OUTBOUND_TRUSTED_CA: receiver.ca } });
      server = await new Promise<ServerType>((resolve) => {
        const s = serve({ fetch: h.root.fetch, port, hostname: "127.0.0.1" }, () => resolve(s));
      });
      support = await makeOperator(h, "support");
      c = await readyMailCustomer(h, "Story Shop");
      transactional = await sendTransactional(h, c, "reader@example.com");
      expect((await postEvent(h, postmarkEvent.bounce({ message_id: transactional }, { at: h.clock.now().toISOString() }))).status).toBe(200);

      const templateId = await createNewsletter(h, c.mailFull, "Story letter");
      const job = await createJob(h, c.mailFull, { template_id: templateId, name: "Autumn readers", params: { campaign: "Autumn" } });
      jobId = job.id;
      const added = await addRecipients(h, c.mailFull, job.id, [{ email: "rita@example.com", data: { first_name: "Rita" } }]);
      newsletter = added.recipients[0]?.message_id ?? "";
      const started = await h.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: c.mailFull });
      expect(started.status, describeResponse(started)).toBe(200);
      // A loaded machine (browser tests beside each other) may take longer than the helper's 15 s.
      await vi.waitFor(
        async () => expect((await h.call<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${job.id}`, { key: c.mailFull })).json.data.status).toBe("completed"),
        { timeout: 90_000, interval: 100 },
      );

      const hook = await h.call<Mail["createWebhook"]>("POST", "/mail/v1/webhooks", {
        key: c.mailFull,
        body: { url: `${receiver.origin}/story`, events: ["job.completed"] },
      });
      expect(hook.status, describeResponse(hook)).toBe(201);
      webhookId = hook.json.data.id;
      browser = await launchOfflineChromium({ origin, profilePrefix: "message-story-", viewport: { width: 1280, height: 800 } });
      page = browser.context.pages()[0] ?? (await browser.context.newPage());
      page.setDefaultTimeout(10_000);
    }, 180_000);

    afterAll(async () => {
      await browser?.close();
      await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
      await h?.close();
      await receiver?.close();
    });

    test("a transactional message: its events in words, the HTML as sent in a sandboxed frame without scripts, and the text part", async () => {
      await signIn(support);
      await page.goto(`${origin}/console/#/customers/${c.id}/messages/${transactional}`);
      await page.getByRole("heading", { name: "Content as sent", level: 2 }).waitFor();
      expect(await page.getByTestId("message-state").textContent()).toBe("Bounced");
      const timeline = (await page.getByRole("table").nth(1).textContent()) ?? "";
      expect(timeline).toContain("HardBounce");
      expect(timeline).toContain("unable to deliver your message");

      const frame = page.getByTestId("mail-html");
      // No allow-scripts (nor anything else): the customer's HTML cannot run or reach the console.
      expect(await frame.getAttribute("sandbox")).toBe("");
      const srcdoc = (await frame.evaluate((f) => (f as HTMLIFrameElement).srcdoc)) ?? "";
      expect(srcdoc).toContain("Content-Security-Policy");
      expect(srcdoc).not.toContain("reader@example.com");
      const shown = page.frameLocator('[data-testid="mail-html"]').locator("body");
      expect(await shown.textContent()).toContain("We have received your order A-1");
      const textPart = (await page.getByTestId("mail-text").textContent()) ?? "";
      expect(textPart).toContain("We have received your order A-1");
      expect(textPart).not.toContain("<");
      // Exactly the text part Postmark received (this mail's text carries no address to replace).
      const sent = c.simulator.messages().messages.find((m) => m.Metadata.message_id === transactional);
      expect(textPart).toBe(c.simulator.message(sent?.MessageID ?? "").TextBody);
      expect(await page.getByRole("heading", { name: "Text part", level: 3, exact: true }).isVisible()).toBe(true);
      expect(await page.getByTestId("text-derived").count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);
    });

    test("a newsletter message shows the job's template with placeholders and says the recipient's values are not kept; the job lists with its name and links to its messages", async () => {
      await signIn(support);
      await page.goto(`${origin}/console/#/customers/${c.id}/messages/${newsletter}`);
      await page.getByRole("heading", { name: "Content: the template with its placeholders", level: 2 }).waitFor();
      expect(await page.getByTestId("content-note").textContent()).toMatch(/not kept/);
      const srcdoc = (await page.getByTestId("mail-html").evaluate((f) => (f as HTMLIFrameElement).srcdoc)) ?? "";
      expect(srcdoc).toContain("{{first_name}}");
      expect(srcdoc).not.toContain("Rita");
      // Newsletters go out as HTML only: the text shown is derived from it, and the page says so.
      expect(await page.getByRole("heading", { name: "Text part (derived from the HTML)", level: 3 }).isVisible()).toBe(true);
      expect(await page.getByTestId("text-derived").textContent()).toMatch(/No text part was sent/);
      await page.getByRole("link", { name: "Autumn readers" }).click();
      await page.getByRole("heading", { name: "Autumn readers", level: 2 }).waitFor();
      expect(await page.getByRole("heading", { name: "Rates", level: 2 }).isVisible()).toBe(true);

      await page.goto(`${origin}/console/#/customers/${c.id}/send-jobs`);
      const listed = page.getByRole("row").filter({ hasText: "Autumn readers" });
      await listed.waitFor();
      expect(await listed.textContent()).toContain("News for {{first_name}}");
      expect(await listed.locator("progress").getAttribute("value")).toBe("1");
      await listed.getByRole("link", { name: "Autumn readers" }).click();
      await page.getByRole("link", { name: "Its messages" }).click();
      await expect.poll(() => page.getByRole("link", { name: newsletter.slice(0, 8) }).count()).toBe(1);
      expect(page.url()).toContain(`send_job_id=${jobId}`);
      expect(await seriousViolations(page)).toEqual([]);
    });

    test("Send a test event: the receiver gets it and its row shows the answer, without a reload", async () => {
      await signIn(support);
      await page.goto(`${origin}/console/#/customers/${c.id}/webhooks/mail/${webhookId}`);
      await page.getByText("No deliveries yet.").waitFor();
      const before = receiver.received.length;
      await page.getByRole("button", { name: "Send a test event" }).click();
      const row = page.locator("details.delivery").first();
      await expect.poll(() => row.getByTestId("delivery-state").textContent(), { timeout: 20_000 }).toBe("Delivered");
      expect(receiver.received.length).toBe(before + 1);
      expect(receiver.received.at(-1)?.headers["x-service-event"]).toBe("webhook.test");
      expect(await row.locator("summary").textContent()).toContain("webhook.test");
      // The row that followed the attempt stays open.
      expect(await row.getAttribute("open")).toBe("");
      expect(await row.getByTestId("response-body").textContent()).toBe("thanks, test seen");
      const attempts = row.getByRole("table");
      expect(await attempts.getByRole("row").count()).toBe(2);
      expect(await attempts.textContent()).toContain("HTTP 200");
      expect(await row.getByTestId("request-body").textContent()).toContain('"test": true');
      expect(await seriousViolations(page)).toEqual([]);
    });
  },
);
