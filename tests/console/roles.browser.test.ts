import { serve, type ServerType } from "@hono/node-server";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createAd, createAdsWorld, onboardedCustomer, type AdsWorld, type OnboardedCustomer } from "../ads/support/ads-world";
import { CHROMIUM, chromiumPresent, launchOfflineChromium, seriousViolations, type OfflineBrowser } from "../helpers/chromium";
import { describeResponse, type Admin } from "../helpers/harness";
import { makeOperator, type TestOperator } from "../helpers/operators";
import { freePort } from "../helpers/processes";
import { operationLabel } from "../../lib/console/client/words";

/**
 * The three roles in the console, in Debian's Chromium over loopback, on a customer's API keys
 * page and its ad sets and ads with their review state (one ad disapproved by the Graph simulator's review):
 * - support sees both pages, is refused a key (the admin API's 403, shown as an alert) and reads the audit
 *   entry of that refused write;
 * - admin has no Operators page (the API's 403 when the address is typed), revokes a key after a
 *   confirmation and reads its audit entry;
 * - owner manages operators, creates a key (shown once, copied to the clipboard) and reads its audit entry.
 * Nothing leaves our origin; every page passes axe-core without serious or critical violations.
 */

let world: AdsWorld;
let server: ServerType;
let origin: string;
let page: Page;
let browser: OfflineBrowser | undefined;
let c: OnboardedCustomer;
let disapprovedAdSet = "";
const operators = {} as Record<"owner" | "admin" | "support", TestOperator>;

async function signIn(operator: TestOperator): Promise<void> {
  await browser?.context.clearCookies();
  await page.goto(`${origin}/console/sign-in`);
  await page.getByLabel("E-mail").fill(operator.email);
  await page.getByLabel("Password").fill(operator.password);
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
}

/** The audit log filtered to this operator and operation: the table's text once the entry is there. */
async function auditEntry(operator: TestOperator, operation: string, status: string): Promise<void> {
  await page.goto(`${origin}/console/#/audit-log?operator_id=${operator.id}&operation=${operation}`);
  await expect.poll(() => page.getByRole("table").textContent()).toContain(operationLabel(operation));
  // The operator by e-mail, never by id.
  expect(await page.getByRole("table").locator("tbody tr").first().locator("td").nth(1).textContent()).toContain(operator.email);
  expect(await page.getByRole("table").locator("tbody tr").first().locator("td").nth(3).textContent()).toBe(status);
  expect(await seriousViolations(page)).toEqual([]);
}

(chromiumPresent ? describe : describe.skip)(
  chromiumPresent ? "roles in the console" : `roles in the console — skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`,
  () => {
    beforeAll(async () => {
      const port = await freePort();
      origin = `http://127.0.0.1:${port}`;
      world = await createAdsWorld({ PUBLIC_BASE_URL: origin });
      server = await new Promise<ServerType>((resolve) => {
        const s = serve({ fetch: world.h.root.fetch, port, hostname: "127.0.0.1" }, () => resolve(s));
      });
      for (const role of ["owner", "admin", "support"] as const) operators[role] = await makeOperator(world.h, role);
      c = await onboardedCustomer(world, "Roles");
      const disapproved = await createAd(world, c, { status: "ACTIVE", message: "Miracle cure SIM_DISAPPROVE:TEXT_OVERLAY" });
      disapprovedAdSet = disapproved.ad_set_id;
      world.h.clock.advance(1000);
      await createAd(world, c, { status: "ACTIVE" });
      world.sim.advance(30_000);
      const read = await world.h.call("GET", `/ads/v1/status/${disapproved.id}`, { key: c.adsReporting });
      expect(read.status, describeResponse(read)).toBe(200);
      browser = await launchOfflineChromium({ origin, profilePrefix: "roles-chromium-", viewport: { width: 1400, height: 900 } });
      await browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
      page = browser.context.pages()[0] ?? (await browser.context.newPage());
      page.setDefaultTimeout(10_000);
      // Revoking asks for a confirmation first.
      page.on("dialog", (dialog) => void dialog.accept());
    }, 90_000);

    afterAll(async () => {
      await browser?.close();
      await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
      await world?.close();
    });

    test("support: sees the keys and the ads' review state, sees the new-key form disabled (the API refuses it: 403), reads the audit entry of the refusal", async () => {
      await signIn(operators.support);
      await page.goto(`${origin}/console/#/customers/${c.id}/keys`);
      await expect.poll(() => page.getByTestId("key-count").textContent()).toMatch(/^\d+ valid, 0 revoked\.$/);
      expect(await seriousViolations(page)).toEqual([]);
      // The form is there to read, disabled, its button naming the role it needs; the API refuses anyway.
      expect(await page.getByLabel("Key label").isDisabled()).toBe(true);
      const create = page.getByRole("button", { name: "Create key" });
      expect(await create.isDisabled()).toBe(true);
      expect(await create.getAttribute("title")).toBe("Needs the admin role; you are signed in as support.");
      const refused = await page.evaluate(async (customerId) => {
        const csrf = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? "";
        const r = await fetch(`/console/api/customers/${customerId}/keys`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-csrf-token": csrf },
          body: JSON.stringify({ service: "mail", scope: "full", label: "support tries" }),
        });
        return { status: r.status, text: await r.text() };
      }, c.id);
      expect(refused.status).toBe(403);
      expect(refused.text).toContain("This operation needs the admin role; you are signed in as support.");
      expect(await page.getByTestId("issued-key").count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);

      await page.getByRole("navigation", { name: "Customer sections" }).getByRole("link", { name: "Ad sets and ads" }).click();
      await page.getByRole("heading", { name: "Ad sets", level: 2 }).waitFor();
      const adSets = await world.h.admin<Admin["listCustomerAdSets"]>("GET", `/v1/customers/${c.id}/ads/adsets`);
      const name = adSets.json.data.find((s) => s.id === disapprovedAdSet)?.name ?? "";
      expect(name).not.toBe("");
      await expect.poll(() => page.locator("main").textContent()).toContain("1 disapproved");
      await page.getByLabel("Review state").selectOption("DISAPPROVED");
      const ads = page.getByRole("table").nth(1);
      await expect.poll(() => ads.locator("tbody tr").count()).toBe(1);
      const row = (await ads.locator("tbody tr").textContent()) ?? "";
      expect(row).toContain(name);
      expect(row).toContain("✗ disapproved (DISAPPROVED)");
      expect(row).toContain("Review: TEXT_OVERLAY: Simulated disapproval for policy TEXT_OVERLAY.");
      // Labelled by names, never by a platform id.
      expect(await page.locator("main").textContent()).not.toMatch(/\d{15,}/);
      await page.getByLabel("Review state").selectOption("");
      await page.getByRole("button", { name: `Show its ads (${name})` }).click();
      await expect.poll(() => page.getByTestId("ads-scope").textContent()).toBe(`Ads of the ad set ${name}.`);
      await expect.poll(() => ads.locator("tbody tr").count()).toBe(1);
      expect(await seriousViolations(page)).toEqual([]);

      await auditEntry(operators.support, "issueApiKey", "403");
      expect(browser?.outside).toEqual([]);
    });

    test("admin: no Operators page (403 shown when typed), revokes a key after confirming, reads its audit entry", async () => {
      await signIn(operators.admin);
      expect(await page.getByRole("link", { name: "Operators" }).count()).toBe(0);
      await page.goto(`${origin}/console/#/operators`);
      await page.getByRole("heading", { name: "This page could not load", level: 1 }).waitFor();
      expect(await page.getByRole("alert").textContent()).toContain("This operation needs the owner role; you are signed in as admin.");

      await page.goto(`${origin}/console/#/customers/${c.id}/keys`);
      await page
        .getByRole("button", { name: /^Revoke key / })
        .first()
        .click();
      await expect.poll(() => page.getByTestId("key-count").textContent()).toMatch(/^\d+ valid, 1 revoked\.$/);
      expect(await page.getByRole("status").filter({ hasText: "revoked." }).count()).toBe(1);
      expect(await seriousViolations(page)).toEqual([]);
      await auditEntry(operators.admin, "revokeApiKey", "200");
      expect(browser?.outside).toEqual([]);
    });

    test("owner: manages operators, creates a key shown once and copied, reads its audit entry", async () => {
      await signIn(operators.owner);
      await page.getByRole("link", { name: "Operators" }).click();
      await page.getByRole("link", { name: operators.admin.email }).click();
      await page.getByRole("heading", { name: operators.admin.email, level: 1 }).waitFor();

      await page.goto(`${origin}/console/#/customers/${c.id}/keys`);
      await page.getByLabel("Key label").fill("owner's export");
      await page.getByLabel("Service").selectOption("ads");
      await page.getByLabel("Scope").selectOption("reporting");
      await page.getByRole("button", { name: "Create key" }).click();
      const key = (await page.getByTestId("issued-key").textContent()) ?? "";
      expect(key).toMatch(/^ak_live_/);
      await page.getByRole("button", { name: "Copy key" }).click();
      await page.getByText("Copied.").waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
      await page.getByRole("button", { name: "Revoke key owner's export" }).waitFor();
      const health = await world.h.call("GET", "/ads/v1/health", { key });
      expect(health.status, describeResponse(health)).toBe(200);
      expect(await seriousViolations(page)).toEqual([]);
      await auditEntry(operators.owner, "issueApiKey", "201");
      expect(browser?.outside).toEqual([]);
    });
  },
);
