import { serve, type ServerType } from "@hono/node-server";
import { count } from "drizzle-orm";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { adsSettings, customers, mailSettings } from "../../lib/db/schema";
import { CHROMIUM, chromiumPresent, launchOfflineChromium, seriousViolations, type OfflineBrowser } from "../helpers/chromium";
import { createHarness, type Harness } from "../helpers/harness";
import { makeOperator, type TestOperator } from "../helpers/operators";
import { freePort } from "../helpers/processes";

/**
 * Server-side lists in the console, in Debian's Chromium over loopback: 5,000 customers
 * (inserted straight into the tables, a few hundred milliseconds) are paged through to the last page 100 at
 * a time, sorted by name on the server, and one is found by the start of its id. Nothing leaves our origin;
 * each page passes axe-core without serious or critical violations.
 */
const MANY = 5000;

let h: Harness;
let server: ServerType;
let origin: string;
let page: Page;
let browser: OfflineBrowser | undefined;
let admin: TestOperator;

(chromiumPresent ? describe : describe.skip)(
  chromiumPresent ? "server-side lists in the console" : `server-side lists in the console — skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`,
  () => {
    beforeAll(async () => {
      const port = await freePort();
      origin = `http://127.0.0.1:${port}`;
      h = await createHarness({ env: { PUBLIC_BASE_URL: origin } });
      server = await new Promise<ServerType>((resolve) => {
        const s = serve({ fetch: h.root.fetch, port, hostname: "127.0.0.1" }, () => resolve(s));
      });
      admin = await makeOperator(h, "admin");
      const base = Date.parse("2026-01-01T00:00:00Z");
      for (let start = 0; start < MANY; start += 1000) {
        const rows = Array.from({ length: 1000 }, (_, i) => ({
          name: `Bulk customer ${String(start + i).padStart(4, "0")}`,
          createdAt: new Date(base + (start + i) * 1000),
        }));
        const ids = await h.db.insert(customers).values(rows).returning({ id: customers.id });
        await h.db.insert(mailSettings).values(ids.map(({ id }) => ({ customerId: id })));
        await h.db.insert(adsSettings).values(ids.map(({ id }) => ({ customerId: id })));
      }
      browser = await launchOfflineChromium({ origin, profilePrefix: "lists-chromium-", viewport: { width: 1400, height: 900 } });
      page = browser.context.pages()[0] ?? (await browser.context.newPage());
      page.setDefaultTimeout(10_000);
      await page.goto(`${origin}/console/sign-in`);
      await page.getByLabel("E-mail").fill(admin.email);
      await page.getByLabel("Password").fill(admin.password);
      await page.keyboard.press("Enter");
      await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
      await page.goto(`${origin}/console/#/customers`);
      await page.getByRole("heading", { name: "Customers", level: 1 }).waitFor();
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
      await h?.close();
    });

    test("pages through 5,000 customers to the last page, sorts by name and finds one by id prefix", async () => {
      const [{ total } = { total: 0 }] = await h.db.select({ total: count() }).from(customers);
      expect(total).toBeGreaterThanOrEqual(MANY);
      const status = page.getByTestId("page-status");
      await expect.poll(() => status.textContent()).toBe("Page 1, 100 shown, more on the next page.");
      expect(await seriousViolations(page)).toEqual([]);
      let seen = 100;
      for (let n = 2; ; n++) {
        await page.getByRole("button", { name: "Next page" }).click();
        await expect.poll(() => status.textContent()).toMatch(new RegExp(`^Page ${n}, `));
        const text = (await status.textContent()) ?? "";
        seen += Number(/, (\d+) shown/.exec(text)?.[1]);
        if (text.endsWith("last page.")) break;
        expect(n).toBeLessThan(100);
      }
      expect(seen).toBe(total);
      expect(await page.getByRole("button", { name: "Next page" }).count()).toBe(0);
      await page.getByRole("button", { name: "Previous page" }).click();
      await expect.poll(() => status.textContent()).toMatch(/more on the next page/);

      await page.getByLabel("Sort").selectOption("-name");
      await expect.poll(() => page.getByRole("table").locator("tbody tr").first().textContent()).toContain("Bulk customer 4999");

      const [one] = await h.db.select({ id: customers.id, name: customers.name }).from(customers).limit(1).offset(1234);
      if (!one) throw new Error("no customer");
      await page.getByLabel("Search customers").fill(one.id.slice(0, 8));
      await expect.poll(() => status.textContent()).toBe("Page 1, 1 shown, last page.");
      expect(await page.getByRole("table").textContent()).toContain(one.name);
      await page.getByLabel("Search customers").fill("customer 012");
      await expect.poll(() => status.textContent()).toBe("Page 1, 10 shown, last page.");
      expect(await seriousViolations(page)).toEqual([]);

      await page.getByRole("link", { name: "Bulk customer 0123" }).click();
      await page.getByRole("link", { name: "Send jobs" }).click();
      await page.getByText("No send jobs match").waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      expect(browser?.outside).toEqual([]);
    }, 120_000);

    test("editors ask before unsaved changes are lost; keys show their label and last use; the plan stage has one source", async () => {
      const c = await h.customer("Editor guard");
      await h.call("POST", "/ads/v1/plan/upgrade", { key: c.adsFull, body: { stage: "growth" } });
      await page.goto(`${origin}/console/#/customers/${c.id}`);
      await expect.poll(() => page.getByLabel("Ads: plan stage (selected for this cycle)").inputValue()).toBe("growth");
      expect(await page.locator("main").textContent()).toContain("This cycle runs at Growth.");

      await page.goto(`${origin}/console/#/customers/${c.id}/keys`);
      await expect.poll(() => page.getByRole("table").textContent()).toContain("never");
      await page.getByLabel("Key label").fill("shop backend");
      await page.getByRole("button", { name: "Create key" }).click();
      await page.getByRole("button", { name: "Revoke key shop backend" }).waitFor();

      await page.getByRole("navigation", { name: "Customer sections" }).getByRole("link", { name: "Settings" }).click();
      await page.getByLabel("Mail: monthly limit").fill("4242");
      const asked: string[] = [];
      page.once("dialog", (dialog) => {
        asked.push(dialog.type());
        void dialog.dismiss();
      });
      await page.getByRole("link", { name: "Send jobs" }).click();
      await expect.poll(() => asked).toEqual(["confirm"]);
      expect(page.url()).toMatch(new RegExp(`#/customers/${c.id}$`));
      expect(await page.getByLabel("Mail: monthly limit").inputValue()).toBe("4242");

      page.once("dialog", (dialog) => {
        asked.push(dialog.type());
        void dialog.dismiss();
      });
      await page.reload({ timeout: 3000 }).catch(() => undefined);
      await expect.poll(() => asked).toEqual(["confirm", "beforeunload"]);

      await page.getByRole("button", { name: "Save settings" }).click();
      await page.getByText("Settings saved.").waitFor();
      await page.getByRole("link", { name: "Send jobs" }).click();
      await page.getByText("No send jobs match").waitFor();
      expect(asked).toHaveLength(2);
      expect(await seriousViolations(page)).toEqual([]);

      await page.getByRole("link", { name: "Mail", exact: true }).click();
      await page.getByRole("navigation", { name: "Mail sections" }).getByRole("link", { name: "Templates" }).click();
      await page.getByRole("heading", { name: "Templates" }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      expect(await page.locator("iframe.preview").isHidden()).toBe(true);
      expect(browser?.outside).toEqual([]);
    }, 60_000);
  },
);
