import { serve, type ServerType } from "@hono/node-server";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CHROMIUM, chromiumPresent, launchOfflineChromium, seriousViolations, type OfflineBrowser } from "../helpers/chromium";
import { createHarness, describeResponse, type Admin, type Harness } from "../helpers/harness";
import { startTestProvider, type TestProvider } from "../helpers/oidc-provider";
import { freePort } from "../helpers/processes";

/**
 * Single sign-on in Debian's Chromium against a real OpenID Connect provider in this process (`oidc-provider`
 * on loopback, its own development login and consent pages): the sign-in page offers the provider, the
 * browser goes through the provider's login and consent and comes back signed in with the role its group
 * maps to ("My account" shows it), signing out ends the session; a user of another e-mail domain comes back
 * to the sign-in page with the refusal in words. The browser reaches the console and the provider only.
 */

let h: Harness;
let idp: TestProvider;
let server: ServerType;
let origin: string;
let page: Page;
let browser: OfflineBrowser | undefined;

/** The provider's development pages: the login form (any password; the login names the account), then consent. */
async function throughProvider(accountId: string): Promise<void> {
  await page.getByRole("link", { name: "Sign in with Test IdP" }).click();
  await page.waitForURL((url) => url.origin === idp.issuer);
  await page.locator('input[name="login"]').fill(accountId);
  await page.locator('input[name="password"]').fill("any password at the test provider");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.waitForURL((url) => url.origin === origin);
}

async function auditEntries(operation: string) {
  const r = await h.admin<Admin["listAuditLog"]>("GET", `/v1/audit-log?operation=${operation}&limit=100`);
  expect(r.status, describeResponse(r)).toBe(200);
  return r.json.data;
}

(chromiumPresent ? describe : describe.skip)(
  chromiumPresent ? "single sign-on in the console" : `single sign-on in the console — skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`,
  () => {
    beforeAll(async () => {
      const port = await freePort();
      origin = `http://localhost:${port}`;
      idp = await startTestProvider({ redirectUri: `${origin}/console/sso/callback`, interactive: true });
      idp.accounts.set("ada", { email: "ada@corp.example", groups: ["ops-admins"] });
      idp.accounts.set("mallory", { email: "mallory@elsewhere.example", groups: ["ops-owners"] });
      h = await createHarness({
        env: {
          PUBLIC_BASE_URL: origin,
          OIDC_ISSUER_URL: idp.issuer,
          OIDC_CLIENT_ID: idp.clientId,
          OIDC_CLIENT_SECRET: idp.clientSecret,
          OIDC_PROVIDER_NAME: "Test IdP",
          OIDC_SCOPES: "openid email groups",
          OIDC_ALLOWED_DOMAINS: "corp.example",
          OIDC_ROLE_MAPPING: "ops-owners=owner,ops-admins=admin,ops-support=support",
        },
      });
      server = await new Promise<ServerType>((resolve) => {
        const s = serve({ fetch: h.root.fetch, port, hostname: "127.0.0.1" }, () => resolve(s));
      });
      browser = await launchOfflineChromium({
        origin,
        alsoOrigins: [idp.issuer],
        profilePrefix: "sso-chromium-",
        viewport: { width: 1400, height: 900 },
      });
      page = browser.context.pages()[0] ?? (await browser.context.newPage());
      page.setDefaultTimeout(15_000);
    }, 90_000);

    afterAll(async () => {
      await browser?.close();
      await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
      await h?.close();
      await idp?.close();
    });

    test("sign-in through the provider's login and consent pages gives the mapped role; sign-out ends the session", async () => {
      await page.goto(`${origin}/console/sign-in`);
      expect(await seriousViolations(page)).toEqual([]);
      await throughProvider("ada");
      // The first console page of the process bundles the console's script: slow on a loaded machine.
      await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor({ timeout: 60_000 });

      await page.getByRole("link", { name: "My account" }).click();
      await page.getByRole("heading", { name: "My account", level: 1 }).waitFor();
      await expect.poll(() => page.locator("main").textContent()).toContain("ada@corp.example · role Admin");
      const created = (await auditEntries("createOperatorBySso")).find((e) => e.target.email === "ada@corp.example");
      expect(created?.target).toMatchObject({ role: "admin", groups: "ops-admins" });

      const me = await page.request.get(`${origin}/console/api/me`);
      expect(me.status()).toBe(200);
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.waitForURL(`${origin}/console/sign-in**`);
      await page.getByRole("link", { name: "Sign in with Test IdP" }).waitFor();
      expect((await page.request.get(`${origin}/console/api/me`)).status()).toBe(401);
      await page.goto(`${origin}/console/`);
      await page.waitForURL(`${origin}/console/sign-in**`);
      expect((await auditEntries("signOut")).some((e) => e.actor.operator_id === (created?.target.operator ?? "?"))).toBe(true);
      expect(browser?.outside).toEqual([]);
    });

    test("a user outside the allowed domain comes back to the sign-in page with the refusal in words", async () => {
      // A fresh provider session, so the provider asks who signs in.
      await browser?.context.clearCookies();
      await page.goto(`${origin}/console/sign-in`);
      await throughProvider("mallory");
      await page.getByRole("heading", { name: "Operator console", level: 1 }).waitFor();
      expect(await page.getByRole("alert").textContent()).toContain("E-mail addresses of elsewhere.example are not admitted to this console.");
      await page.getByRole("link", { name: "Sign in with Test IdP" }).waitFor();
      expect((await page.request.get(`${origin}/console/api/me`)).status()).toBe(401);
      expect(await seriousViolations(page)).toEqual([]);
      const refused = (await auditEntries("signInFailed")).find((e) => e.target.email === "mallory@elsewhere.example");
      expect(refused?.target).toMatchObject({ method: "sso", reason: "not_admitted" });
      expect(browser?.outside).toEqual([]);
    });
  },
);
