import { serve, type ServerType } from "@hono/node-server";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CHROMIUM, chromiumPresent, launchOfflineChromium, seriousViolations, type OfflineBrowser } from "../helpers/chromium";
import { createHarness, describeResponse, type Admin, type Harness } from "../helpers/harness";
import { makeOperator, type TestOperator } from "../helpers/operators";
import { freePort } from "../helpers/processes";

/**
 * Operators in the console, in Debian's Chromium over loopback: an owner signs in
 * with e-mail and password, creates an operator, changes its role, makes it an API token, reads the audit
 * log filtered and its own sessions; a support operator sees no Operators page, is refused a settings change
 * (the admin API's 403, shown as text) and reads the audit entry of that refused change. Nothing leaves our
 * origin; each new page passes axe-core without serious or critical violations.
 */

let h: Harness;
let server: ServerType;
let origin: string;
let page: Page;
let browser: OfflineBrowser | undefined;
let owner: TestOperator;
let support: TestOperator;

async function signIn(operator: TestOperator): Promise<void> {
  await browser?.context.clearCookies();
  await page.goto(`${origin}/console/sign-in`);
  await page.getByLabel("E-mail").fill(operator.email);
  await page.getByLabel("Password").fill(operator.password);
  await page.keyboard.press("Enter");
  // The first console page of the process bundles the console's script; on a busy machine that takes a while.
  await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor({ timeout: 60_000 });
}

(chromiumPresent ? describe : describe.skip)(
  chromiumPresent ? "operators in the console" : `operators in the console — skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`,
  () => {
    beforeAll(async () => {
      const port = await freePort();
      origin = `http://127.0.0.1:${port}`;
      h = await createHarness({ env: { PUBLIC_BASE_URL: origin } });
      server = await new Promise<ServerType>((resolve) => {
        const s = serve({ fetch: h.root.fetch, port, hostname: "127.0.0.1" }, () => resolve(s));
      });
      owner = await makeOperator(h, "owner");
      support = await makeOperator(h, "support");
      browser = await launchOfflineChromium({ origin, profilePrefix: "operators-chromium-", viewport: { width: 1400, height: 900 } });
      page = browser.context.pages()[0] ?? (await browser.context.newPage());
      page.setDefaultTimeout(10_000);
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
      await h?.close();
    });

    test("an owner manages operators and tokens, reads the audit log and their sessions", async () => {
      await page.goto(`${origin}/console/sign-in`);
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByLabel("E-mail").fill(owner.email);
      await page.getByLabel("Password").fill("not the password");
      await page.keyboard.press("Enter");
      await expect.poll(() => page.locator("#password-error").textContent()).toContain("E-mail or password wrong");
      await signIn(owner);

      await page.getByRole("link", { name: "Operators" }).click();
      await page.getByRole("heading", { name: "Operators", level: 1 }).waitFor();
      const email = `new-admin-${crypto.randomUUID()}@operators.example`;
      await page.getByLabel("E-mail").fill(email);
      await page.getByLabel("Role", { exact: true }).selectOption("admin");
      await page.getByLabel("Initial password").fill("a long initial password");
      await page.getByRole("button", { name: "Create operator" }).click();
      await page.getByRole("heading", { name: email, level: 1 }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByLabel("Role", { exact: true }).selectOption("support");
      await page.getByRole("button", { name: "Save" }).click();
      await page.getByText("Saved: support, enabled.").waitFor();
      await page.getByLabel("Label").fill("nightly export");
      await page.getByRole("button", { name: "Create token" }).click();
      const token = (await page.getByTestId("issued-token").textContent()) ?? "";
      expect(token).toMatch(/^op_live_/);
      expect((await h.call<Admin["getCurrentOperator"]>("GET", "/admin/v1/me", { key: token })).json.data).toMatchObject({ role: "support", email });
      await page.getByRole("button", { name: "Revoke token nightly export" }).waitFor();

      await page.goto(`${origin}/console/#/audit-log`);
      await page.getByLabel("Operation").fill("updateOperator");
      await page.getByLabel("Operator", { exact: true }).fill(owner.email);
      await page.getByRole("button", { name: "Filter" }).click();
      await expect.poll(() => page.getByRole("table").textContent()).toContain("Update operator");
      expect(page.url()).toContain("operation=updateOperator");
      expect(page.url()).toContain(`operator_email=${encodeURIComponent(owner.email)}`);
      expect(await seriousViolations(page)).toEqual([]);

      await page.getByRole("link", { name: "My account" }).click();
      await page.getByText("this session").waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByRole("button", { name: "Sign out" }).first().click();
      await page.waitForURL(/sign-in/);
      expect(browser?.outside).toEqual([]);
    });

    test("a support operator has no Operators page, sees the settings read-only, is refused a change by the API and reads its audit entry", async () => {
      const customer = await h.customer("Support view");
      await signIn(support);
      expect(await page.getByRole("link", { name: "Operators" }).count()).toBe(0);
      await page.goto(`${origin}/console/#/customers/${customer.id}`);
      // The form is there to read, disabled before anyone fills it in; the API refuses the write all the same.
      expect(await page.getByLabel("Mail: monthly limit").isDisabled()).toBe(true);
      expect(await page.getByRole("button", { name: "Save settings" }).getAttribute("title")).toBe("Needs the admin role; you are signed in as support.");
      const refused = await page.evaluate(async (customerId) => {
        const csrf = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? "";
        const r = await fetch(`/console/api/customers/${customerId}`, {
          method: "PATCH",
          headers: { "content-type": "application/json", "x-csrf-token": csrf },
          body: JSON.stringify({ mail: { monthly_limit: 42 } }),
        });
        return r.status;
      }, customer.id);
      expect(refused).toBe(403);
      await page.goto(`${origin}/console/#/audit-log?customer_id=${customer.id}&operator_id=${support.id}`);
      await expect.poll(() => page.getByRole("table").textContent()).toContain("Update customer");
      await expect.poll(() => page.getByRole("table").textContent()).toContain("403");
      // Filters by id from a link are said, since the form shows names.
      expect(await page.getByTestId("carried-filters").textContent()).toContain("one operator's and one customer's entries");
      expect(browser?.outside).toEqual([]);
    });

    test("the audit log filters by a customer's name, suggested as it is typed, and by an operator's e-mail, which each entry links to", async () => {
      const admin = await makeOperator(h, "admin");
      const name = `Picker ${crypto.randomUUID().slice(0, 8)}`;
      const picked = await h.customer(name);
      const near = await h.customer(`${name} nearby`);
      for (const customer of [picked, near]) {
        const r = await h.call("PATCH", `/admin/v1/customers/${customer.id}`, { key: admin.token, body: { mail: { monthly_limit: 77 } } });
        expect(r.status, describeResponse(r)).toBe(200);
      }
      await signIn(support);
      await page.goto(`${origin}/console/#/audit-log`);
      await page.getByRole("heading", { name: "Audit log", level: 1 }).waitFor();
      const customerField = page.getByLabel("Customer", { exact: true });
      await customerField.fill(name.slice(0, -2));
      // The names suggested are the server's matches for what was typed.
      const suggested = () => customerField.evaluate((input) => Array.from((input as HTMLInputElement).list?.options ?? [], (o) => o.value).sort());
      await expect.poll(suggested).toEqual([name, `${name} nearby`]);
      await customerField.fill(name);
      await page.getByRole("button", { name: "Filter" }).click();
      // The unfiltered page was there first: wait for the filtered one.
      const customerColumn = () => page.getByRole("row").locator("td:nth-child(5)").allTextContents();
      await expect.poll(async () => new Set(await customerColumn())).toEqual(new Set([name]));
      expect(await page.getByRole("table").textContent()).toContain("Update customer");
      expect(page.url()).toContain(`customer_name=${encodeURIComponent(name).replace(/%20/g, "+")}`);

      await page.getByRole("link", { name: admin.email }).first().click();
      await expect.poll(() => page.getByLabel("Operator", { exact: true }).inputValue()).toBe(admin.email);
      await expect.poll(customerColumn).toContain(`${name} nearby`);
      expect(await customerColumn()).toContain(name);
      const who = await page.getByRole("row").locator("td:nth-child(2) a").allTextContents();
      expect(new Set(who)).toEqual(new Set([admin.email]));
      expect(await seriousViolations(page)).toEqual([]);
      expect(browser?.outside).toEqual([]);
    });
  },
);
