import { serve, type ServerType } from "@hono/node-server";
import { Secret, TOTP } from "otpauth";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CHROMIUM, chromiumPresent, launchOfflineChromium, seriousViolations, type OfflineBrowser } from "../helpers/chromium";
import { createHarness, type Admin, type Harness } from "../helpers/harness";
import { makeOperator, type TestOperator } from "../helpers/operators";
import { freePort } from "../helpers/processes";

/**
 * The second factor in Debian's Chromium over loopback, with Chromium's virtual authenticator (DevTools
 * protocol `WebAuthn.addVirtualAuthenticator`) standing in for a passkey and TOTP codes generated from the
 * secret at the harness clock:
 * - "My account": a passkey registered (recovery codes shown once), the sign-in with it, its removal;
 * - "My account": an authenticator app set up from the secret shown once (QR code drawn), a wrong then a right
 *   code, new recovery codes; the sign-in with wrong, right, reused and skewed codes and with recovery codes;
 * - the owner's sign-in policy in the console: an operator without a factor is led to set one up, by
 *   authenticator app (a wrong code keeps the secret) or by passkey on the enrolment page;
 * - every sign-in method is in the audit log.
 * The origin is `localhost` (a WebAuthn relying party is a host name, never an address).
 */

let h: Harness;
let server: ServerType;
let origin: string;
let page: Page;
let browser: OfflineBrowser | undefined;
let storedPasskeys: () => Promise<number>;

async function passwordStep(operator: TestOperator): Promise<void> {
  await browser?.context.clearCookies();
  await page.goto(`${origin}/console/sign-in`);
  await page.getByLabel("E-mail").fill(operator.email);
  await page.getByLabel("Password").fill(operator.password);
  await page.keyboard.press("Enter");
  await page.waitForLoadState();
}

async function toOverview(): Promise<void> {
  // The first console page of the process bundles the console's script: slow on a loaded machine.
  await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor({ timeout: 60_000 });
}

async function myAccount(): Promise<void> {
  await page.goto(`${origin}/console/#/me`);
  await page.getByRole("heading", { name: "Second factor", level: 2 }).waitFor();
}

/** A virtual authenticator on the page (a platform passkey with user verification, touched at once). */
async function virtualAuthenticator(): Promise<() => Promise<number>> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable", { enableUI: false });
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return async () => (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials.length;
}

async function methodsOf(operator: TestOperator): Promise<string[]> {
  const r = await h.admin<Admin["listAuditLog"]>("GET", `/v1/audit-log?operation=signIn&operator_id=${operator.id}&limit=100`);
  return r.json.data.map((e) => e.target.method ?? "");
}

const recoveryCodes = async () => page.getByTestId("recovery-codes").locator("code").allTextContents();

(chromiumPresent ? describe : describe.skip)(
  chromiumPresent ? "the second factor in the console" : `the second factor in the console — skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`,
  () => {
    beforeAll(async () => {
      const port = await freePort();
      origin = `http://localhost:${port}`;
      h = await createHarness({ env: { PUBLIC_BASE_URL: origin } });
      server = await new Promise<ServerType>((resolve) => {
        const s = serve({ fetch: h.root.fetch, port, hostname: "127.0.0.1" }, () => resolve(s));
      });
      browser = await launchOfflineChromium({ origin, profilePrefix: "second-factor-chromium-", viewport: { width: 1400, height: 900 } });
      page = browser.context.pages()[0] ?? (await browser.context.newPage());
      page.setDefaultTimeout(15_000);
      // Removing a factor and making new recovery codes ask for a confirmation first.
      page.on("dialog", (dialog) => void dialog.accept());
      storedPasskeys = await virtualAuthenticator();
    }, 90_000);

    afterAll(async () => {
      await h?.admin("PATCH", "/v1/sign-in-policy", { require_second_factor: false });
      await browser?.close();
      await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
      await h?.close();
    });

    test("a passkey registered in My account with the virtual authenticator signs in, and is removed", async () => {
      const operator = await makeOperator(h, "admin");
      await passwordStep(operator);
      await toOverview();
      await myAccount();
      await page.getByTestId("no-second-factor").waitFor();
      expect(await page.getByTestId("recovery-codes-left").textContent()).toBe("None: they come with a second factor.");
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByLabel("Name of the passkey").fill("Laptop");
      await page.getByRole("button", { name: "Register a passkey" }).click();
      await expect.poll(recoveryCodes).toHaveLength(10);
      expect((await recoveryCodes()).every((code) => /^[2-9A-Z]{5}-[2-9A-Z]{5}$/.test(code))).toBe(true);
      await page.getByRole("button", { name: "Remove passkey Laptop" }).waitFor();
      expect(await storedPasskeys()).toBe(1);
      const factors = await h.call<Admin["listMySecondFactors"]>("GET", "/admin/v1/me/second-factors", { key: operator.token });
      expect(factors.json.data.map((f) => [f.kind, f.label])).toEqual([["passkey", "Laptop"]]);
      expect(await seriousViolations(page)).toEqual([]);

      // The password alone no longer opens the console: the passkey does.
      await passwordStep(operator);
      await page.getByRole("heading", { name: "Second factor", level: 1 }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByRole("button", { name: "Use a passkey" }).click();
      await toOverview();
      expect(await methodsOf(operator)).toContain("password+passkey");

      await myAccount();
      await page.getByRole("button", { name: "Remove passkey Laptop" }).click();
      await page.getByTestId("no-second-factor").waitFor();
      await passwordStep(operator);
      await toOverview();
      expect(browser?.outside).toEqual([]);
    });

    test("an authenticator app set up in My account; sign-in with wrong, right, reused and skewed codes and recovery codes", async () => {
      const operator = await makeOperator(h, "support");
      await passwordStep(operator);
      await toOverview();
      await myAccount();
      await page.getByLabel("Name of the app or phone").fill("Phone");
      await page.getByRole("button", { name: "Show the secret" }).click();
      const secret = (await page.getByTestId("totp-secret").textContent()) ?? "";
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      expect(await page.getByTestId("totp-qr").evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
      expect(await seriousViolations(page)).toEqual([]);
      const totp = new TOTP({ secret: Secret.fromBase32(secret) });
      const code = (offsetMs = 0) => totp.generate({ timestamp: h.clock.now().getTime() + offsetMs });
      const wrong = () => (code() === "000000" ? "111111" : "000000");

      await page.getByLabel("Code from the authenticator app").fill(wrong());
      await page.getByRole("button", { name: "Confirm the app" }).click();
      await expect.poll(() => page.locator("main").textContent()).toContain("does not match the authenticator's secret");
      await page.getByLabel("Code from the authenticator app").fill(code());
      await page.getByRole("button", { name: "Confirm the app" }).click();
      await expect.poll(recoveryCodes).toHaveLength(10);
      const first = await recoveryCodes();
      await page.getByRole("button", { name: "Remove authenticator app Phone" }).waitFor();
      await page.getByRole("button", { name: "Make new recovery codes" }).click();
      await expect.poll(async () => (await recoveryCodes())[0]).not.toBe(first[0]);
      const second = await recoveryCodes();
      expect(second).toHaveLength(10);
      // Shown once: drawn again, the page has neither the secret nor the codes.
      await page.reload();
      await page.getByRole("button", { name: "Remove authenticator app Phone" }).waitFor();
      expect(await page.getByTestId("totp-secret").count()).toBe(0);
      expect(await page.getByTestId("recovery-codes").count()).toBe(0);
      expect(await page.content()).not.toContain(secret);

      // The confirming code's step is taken: sign-ins start a step later.
      h.clock.advance(30_000);
      const codeStep = async (value: string) => {
        await page.getByLabel("Code from the authenticator app").fill(value);
        await page.getByRole("button", { name: "Verify" }).click();
        await page.waitForLoadState();
      };
      await passwordStep(operator);
      await page.getByRole("heading", { name: "Second factor", level: 1 }).waitFor();
      await codeStep(wrong());
      await expect.poll(() => page.locator("#factor-error").textContent()).toContain("This code is wrong, expired or used already.");
      const right = code();
      await codeStep(right);
      await toOverview();

      await passwordStep(operator);
      await codeStep(right);
      await expect.poll(() => page.locator("#factor-error").textContent()).toContain("This code is wrong, expired or used already.");

      h.clock.advance(60_000);
      await codeStep(code(-30_000));
      await toOverview();
      h.clock.advance(60_000);
      await passwordStep(operator);
      await codeStep(code(-90_000));
      await expect.poll(() => page.locator("#factor-error").textContent()).toContain("This code is wrong, expired or used already.");

      const recoveryStep = async (value: string) => {
        await page.getByText("Use a recovery code").click();
        await page.getByLabel("Recovery code").fill(value);
        await page.getByRole("button", { name: "Use the recovery code" }).click();
        await page.waitForLoadState();
      };
      await recoveryStep(first[0] as string);
      await expect.poll(() => page.locator("#factor-error").textContent()).toContain("This recovery code is wrong or used already.");
      await recoveryStep(second[0] as string);
      await toOverview();
      await myAccount();
      await expect.poll(() => page.getByTestId("recovery-codes-left").textContent()).toBe("9 of 10 unused.");

      const methods = await methodsOf(operator);
      expect(methods.filter((m) => m === "password+totp")).toHaveLength(2);
      expect(methods).toContain("password+recovery_code");
      expect(methods).toContain("password");
      expect(browser?.outside).toEqual([]);
    });

    test("the owner requires a second factor in the console; operators without one set one up at sign-in", async () => {
      const owner = await makeOperator(h, "owner");
      await passwordStep(owner);
      await toOverview();
      await page.getByRole("link", { name: "Operators" }).click();
      await page.getByRole("heading", { name: "Sign-in policy", level: 2 }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByLabel("Every password account needs a second factor").check();
      await page.getByRole("button", { name: "Save the policy" }).click();
      await page.getByText("Saved: a second factor is required.").waitFor();
      const policy = await h.admin<Admin["getSignInPolicy"]>("GET", "/v1/sign-in-policy");
      expect(policy.json.data.require_second_factor).toBe(true);
      const audited = await h.admin<Admin["listAuditLog"]>("GET", `/v1/audit-log?operation=updateSignInPolicy&operator_id=${owner.id}`);
      expect(audited.json.data[0]?.status).toBe(200);

      // An authenticator app: a wrong code keeps the secret on the page; the right one opens the console.
      const byApp = await makeOperator(h, "support");
      await passwordStep(byApp);
      await page.getByRole("heading", { name: "Set up a second factor", level: 1 }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      expect(await page.getByTestId("totp-qr").evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
      const secret = (await page.getByTestId("totp-secret").textContent()) ?? "";
      const totp = new TOTP({ secret: Secret.fromBase32(secret) });
      const now = () => totp.generate({ timestamp: h.clock.now().getTime() });
      await page.getByLabel("Code from the authenticator app").fill(now() === "000000" ? "111111" : "000000");
      await page.getByRole("button", { name: "Confirm and continue" }).click();
      await expect.poll(() => page.locator("#factor-error").textContent()).toContain("does not match");
      expect(await page.getByTestId("totp-secret").textContent()).toBe(secret);
      await page.getByLabel("Code from the authenticator app").fill(now());
      await page.getByRole("button", { name: "Confirm and continue" }).click();
      await page.getByRole("heading", { name: "Recovery codes", level: 1 }).waitFor();
      expect(await recoveryCodes()).toHaveLength(10);
      await page.getByRole("link", { name: /Continue/ }).click();
      await toOverview();
      expect(await methodsOf(byApp)).toEqual(["password+totp"]);

      // A passkey, registered on the enrolment page.
      const byPasskey = await makeOperator(h, "admin");
      await passwordStep(byPasskey);
      await page.getByRole("heading", { name: "Set up a second factor", level: 1 }).waitFor();
      await page.getByRole("button", { name: "Register a passkey" }).click();
      await page.getByRole("heading", { name: "Recovery codes", level: 1 }).waitFor();
      expect(await recoveryCodes()).toHaveLength(10);
      await page.getByRole("link", { name: /Continue/ }).click();
      await toOverview();
      expect(await methodsOf(byPasskey)).toEqual(["password+passkey"]);
      await passwordStep(byPasskey);
      await page.getByRole("button", { name: "Use a passkey" }).click();
      await toOverview();
      expect(await methodsOf(byPasskey)).toEqual(["password+passkey", "password+passkey"]);

      const enrolments = await h.admin<Admin["listAuditLog"]>("GET", "/v1/audit-log?operation=enrolSecondFactor&limit=100");
      const kinds = enrolments.json.data.filter((e) => [byApp.id, byPasskey.id].includes(e.actor.operator_id ?? "")).map((e) => e.target.kind);
      expect(kinds.sort()).toEqual(["passkey", "totp"]);
      expect(browser?.outside).toEqual([]);
    });
  },
);
