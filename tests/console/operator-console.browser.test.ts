import { serve, type ServerType } from "@hono/node-server";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { emitMailEvent } from "../../lib/mail/webhooks/emit";
import { CHROMIUM, chromiumPresent, launchOfflineChromium, seriousViolations, type OfflineBrowser } from "../helpers/chromium";
import { createHarness, describeResponse, type Harness } from "../helpers/harness";
import { startHttpsReceiver } from "../helpers/https-receiver";
import { readyMailCustomer } from "../helpers/mail";
import { makeOperator, type TestOperator } from "../helpers/operators";
import { postEvent, postmarkEvent, sendTransactional } from "../helpers/postmark-events";
import { freePort } from "../helpers/processes";

/**
 * The console an operator runs the business from, in Debian's Chromium over loopback, for every role: the
 * overview is the landing page and each figure equals the list it links to; the top bar's search finds a
 * message by its address only under the customer that sent it; a failed webhook delivery shows the
 * receiver's answer and the request we sent, and a redelivery updates its row in place; support sees no
 * write control it could use (disabled, the tooltip naming the role), admin and owner see them enabled;
 * the navigation fits 390 px. Nothing leaves our origin; every page passes axe-core.
 */
let h: Harness;
let server: ServerType;
let origin: string;
let page: Page;
let browser: OfflineBrowser | undefined;
let receiver: Awaited<ReturnType<typeof startHttpsReceiver>>;
let answer = 500;
const operators = {} as Record<"owner" | "admin" | "support", TestOperator>;
let a: Awaited<ReturnType<typeof readyMailCustomer>>;
let b: Awaited<ReturnType<typeof readyMailCustomer>>;
let sharedMessage = "";
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

/** Buttons in the page a click would use: enabled, not marked as a read (paging, search, previews). */
const enabledWrites = () =>
  page.locator("main").evaluate((main) =>
    Array.from(main.querySelectorAll("button"))
      .filter((b) => !b.disabled && !b.closest("[data-read]"))
      .map((b) => b.textContent ?? ""),
  );

(chromiumPresent ? describe : describe.skip)(
  chromiumPresent ? "the operator's console" : `the operator's console — skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`,
  () => {
    beforeAll(async () => {
      receiver = await startHttpsReceiver("receiver.test", () => ({
        status: answer,
        headers: { "content-type": "application/json" },
        body: answer === 500 ? '{"error":"receiver database is down"}' : '{"ok":true}',
      }));
      const port = await freePort();
      origin = `http://127.0.0.1:${port}`;
      h = await createHarness({ env: { PUBLIC_BASE_URL: origin, ALLOW_LOOPBACK_OUTBOUND: "true", OUTBOUND_TRUSTED_CA: receiver.ca } });
      server = await new Promise<ServerType>((resolve) => {
        const s = serve({ fetch: h.root.fetch, port, hostname: "127.0.0.1" }, () => resolve(s));
      });
      for (const role of ["owner", "admin", "support"] as const) operators[role] = await makeOperator(h, role);
      a = await readyMailCustomer(h, "Console Alpha");
      b = await readyMailCustomer(h, "Console Beta");
      sharedMessage = await sendTransactional(h, a, "same@example.com");
      const bounced = await sendTransactional(h, a, "gone@example.com");
      await sendTransactional(h, b, "someone@example.com");
      const at = h.clock.now().toISOString();
      expect((await postEvent(h, postmarkEvent.delivery({ message_id: sharedMessage }, at))).status).toBe(200);
      expect((await postEvent(h, postmarkEvent.bounce({ message_id: bounced }, { at }))).status).toBe(200);
      const hook = await h.call<{ data: { id: string } }>("POST", "/mail/v1/webhooks", {
        key: a.mailFull,
        body: { url: `${receiver.origin}/hooks`, events: ["job.completed"] },
      });
      expect(hook.status, describeResponse(hook)).toBe(201);
      webhookId = hook.json.data.id;
      await emitMailEvent(h.deps, a.id, "job.completed", { send_job_id: crypto.randomUUID(), recipients: { total: 1, accepted: 1, suppressed: 0 } });
      browser = await launchOfflineChromium({ origin, profilePrefix: "operator-console-", viewport: { width: 1280, height: 800 } });
      page = browser.context.pages()[0] ?? (await browser.context.newPage());
      page.setDefaultTimeout(10_000);
      page.on("dialog", (dialog) => void dialog.accept());
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
      await h?.close();
      await receiver?.close();
    });

    test("every role lands on the overview; each figure equals the list it links to", async () => {
      for (const role of ["owner", "admin", "support"] as const) {
        await signIn(operators[role]);
        const figure = page.locator(`[data-figure="${a.id}:delivered"]`);
        await expect.poll(() => figure.textContent()).toBe("1");
        expect(await page.locator(`[data-figure="${a.id}:bounced"]`).textContent()).toBe("1");
        expect(await seriousViolations(page)).toEqual([]);
      }
      for (const state of ["delivered", "bounced", "accepted"]) {
        await page.goto(`${origin}/console/#/overview`);
        const figure = page.locator(`[data-figure="${a.id}:${state}"]`);
        const shown = Number(await figure.textContent());
        await figure.click();
        await page.getByRole("heading", { name: "Messages", level: 2, exact: true }).waitFor();
        await expect.poll(() => page.locator("main table tbody tr").count()).toBe(shown);
        if (shown === 0) await page.getByText("No message matches.").waitFor();
      }
      await page.goto(`${origin}/console/#/overview`);
      const total = page.locator('[data-figure="all:delivered"]');
      const all = Number(await total.textContent());
      await total.click();
      await page.getByRole("heading", { name: "Search", level: 1 }).waitFor();
      await expect.poll(() => page.locator("main table tbody tr").count()).toBe(all);
    });

    test("a search by address finds the message under the customer that sent it only, above the fold", async () => {
      await signIn(operators.support);
      await page.getByRole("searchbox", { name: "Search" }).fill("Same@Example.com");
      await page.keyboard.press("Enter");
      await page.getByRole("heading", { name: "Messages (1)" }).waitFor();
      const rows = page.locator("main table tbody tr");
      expect(await rows.count()).toBe(1);
      expect(await rows.first().textContent()).toContain("Console Alpha");
      expect(await page.locator("main").textContent()).not.toContain("Console Beta");
      const box = await rows.first().boundingBox();
      expect((box?.y ?? 1000) + (box?.height ?? 0)).toBeLessThanOrEqual(800);
      await rows.first().getByRole("link").click();
      await page.getByText("Postmark message id").waitFor();
      expect(page.url()).toContain(sharedMessage);
      expect(await seriousViolations(page)).toEqual([]);
    });

    test("a failed delivery shows the receiver's answer and our request; Redeliver updates the row in place", async () => {
      await signIn(operators.support);
      await page.goto(`${origin}/console/#/customers/${a.id}/webhooks/mail/${webhookId}`);
      const row = page.locator("details.delivery").first();
      await expect
        .poll(async () => {
          await page.getByRole("button", { name: "Reload" }).click();
          return page.locator("details.delivery").first().locator("summary").textContent();
        })
        .toContain("HTTP 500");
      await row.locator("summary").click();
      expect(await row.getByTestId("response-body").textContent()).toBe('{"error":"receiver database is down"}');
      expect(await row.getByTestId("request-body").textContent()).toContain('"event": "job.completed"');
      const text = (await row.textContent()) ?? "";
      expect(text).toContain("X-Service-Signature: t=");
      expect(text).not.toContain("whsec_");
      expect(await seriousViolations(page)).toEqual([]);
      answer = 200;
      const before = await page.locator("details.delivery").count();
      await row.getByRole("button", { name: /^Redeliver/ }).click();
      await expect.poll(() => page.locator("details.delivery").first().getByTestId("delivery-state").textContent(), { timeout: 15_000 }).toMatch(/^Delivered/);
      expect(await page.locator("details.delivery").count()).toBe(before);
      expect(await page.locator("details.delivery").first().textContent()).toContain("HTTP 200");
    });

    test("support sees no write control it cannot use; admin and owner see them; the navigation fits 390 px", async () => {
      await signIn(operators.support);
      for (const path of [
        "#/customers",
        `#/customers/${a.id}`,
        `#/customers/${a.id}/keys`,
        `#/customers/${a.id}/mail/provider`,
        `#/customers/${a.id}/webhooks`,
      ]) {
        await page.goto(`${origin}/console/${path}`);
        await page.locator("main h1, main h2").first().waitFor();
        await page.waitForLoadState("networkidle");
        expect(await enabledWrites(), path).toEqual([]);
      }
      await page.goto(`${origin}/console/#/customers/${a.id}/keys`);
      const create = page.getByRole("button", { name: "Create key" });
      expect(await create.isDisabled()).toBe(true);
      expect(await create.getAttribute("title")).toBe("Needs the admin role; you are signed in as support.");
      await signIn(operators.admin);
      await page.goto(`${origin}/console/#/customers/${a.id}/keys`);
      expect(await page.getByRole("button", { name: "Create key" }).isDisabled()).toBe(false);
      await signIn(operators.owner);
      await page.setViewportSize({ width: 390, height: 800 });
      await page.goto(`${origin}/console/#/overview`);
      await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await page.getByRole("link", { name: "Customers" }).click();
      await page.getByRole("heading", { name: "Customers", level: 1 }).waitFor();
      await page.setViewportSize({ width: 1280, height: 800 });
    });
  },
);
