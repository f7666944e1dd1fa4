import { readFileSync } from "node:fs";
import { serve, type ServerType } from "@hono/node-server";
import { eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SALE_BANNER } from "../../lib/ads/templates/demo";
import { auditLog, mailProviderConfigs } from "../../lib/db/schema";
import { registerSimulatorServers, seedDemoMail } from "../../lib/mail/seed";
import { createAdsWorld, onboardedCustomer, type AdsWorld } from "../ads/support/ads-world";
import { CHROMIUM, chromiumPresent, launchOfflineChromium, type OfflineBrowser } from "../helpers/chromium";
import { describeResponse, type Admin, type Ads, type Mail } from "../helpers/harness";
import { makeOperator, type TestOperator } from "../helpers/operators";
import { sendTransactional } from "../helpers/postmark-events";
import type { readyMailCustomer } from "../helpers/mail";
import { freePort } from "../helpers/processes";
import { createJob, createNewsletter } from "../helpers/send-jobs";

/**
 * Least privilege for secrets, probed for real: one customer with every kind of secret seeded (Postmark server
 * and account token, the Postmark webhook password, Meta system-user token and app secret, the signing secrets
 * of its mail and ads webhooks, its API keys) and operators of each role with their tokens and passwords.
 * - Every GET of the admin document, with the seeded ids filled in, read by each role: no answer holds a secret.
 * - Every console page (each route of lib/console/client/main.ts, customer pages included) in Chromium, signed
 *   in as each role: neither the DOM (with form values) nor any answer the page fetched holds a secret.
 * - The probe catches a leak: an admin reveals the webhook password in the console (asked to re-authenticate
 *   first, the session being older than CONSOLE_REAUTH_MINUTES), and the same search then finds it; the reveal
 *   is in the audit log as a secret read.
 */

type Role = "owner" | "admin" | "support";
const ROLES: Role[] = ["support", "admin", "owner"];

let world: AdsWorld;
let server: ServerType;
let origin: string;
let page: Page;
let browser: OfflineBrowser | undefined;
const operators = {} as Record<Role, TestOperator>;
/** Each seeded secret by a name that says what leaked. */
const secrets: Record<string, string> = {};
const ids = {
  customer: "",
  mailTemplate: "",
  message: "",
  job: "",
  mailWebhook: "",
  adsWebhook: "",
  block: "",
  adTemplate: "",
  key: "",
};

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  world = await createAdsWorld({ PUBLIC_BASE_URL: origin });
  const { h } = world;
  for (const role of ROLES) operators[role] = await makeOperator(h, role);
  const c = await onboardedCustomer(world, "Secrets");
  ids.customer = c.id;
  await seedDemoMail(h.deps, c.id);
  await registerSimulatorServers(h.deps, c.id);
  const [config] = await h.db.select().from(mailProviderConfigs).where(eq(mailProviderConfigs.customerId, c.id));
  const serverToken = config?.serverTokenSealed ? h.deps.secrets.open(config.serverTokenSealed) : "";
  expect(serverToken).not.toBe("");
  const accountToken = `pm-account-${crypto.randomUUID()}`;
  const account = await h.admin("PATCH", `/v1/customers/${c.id}/mail/provider`, { account_token: accountToken });
  expect(account.status, describeResponse(account)).toBe(200);
  const revealed = await h.admin<Admin["revealCustomerPostmarkWebhook"]>("POST", `/v1/customers/${c.id}/mail/postmark-webhook/reveal`);
  expect(revealed.status, describeResponse(revealed)).toBe(200);
  const mailHook = await h.call<Mail["createWebhook"]>("POST", "/mail/v1/webhooks", {
    key: c.mailFull,
    body: { url: "https://portal.example.com/hooks/mail", events: ["suppression.changed"] },
  });
  expect(mailHook.status, describeResponse(mailHook)).toBe(201);
  const adsHook = await h.call<Ads["createAdsWebhook"]>("POST", "/ads/v1/webhooks", {
    key: c.adsFull,
    body: { url: "https://portal.example.com/hooks/ads", events: ["ad.status_changed"] },
  });
  expect(adsHook.status, describeResponse(adsHook)).toBe(201);
  ids.mailWebhook = mailHook.json.data.id;
  ids.adsWebhook = adsHook.json.data.id;
  const mailCustomer = { ...c, serverToken } as unknown as Awaited<ReturnType<typeof readyMailCustomer>>;
  ids.message = await sendTransactional(h, mailCustomer);
  ids.job = (await createJob(h, c.mailFull, { template_id: await createNewsletter(h, c.mailFull) })).id;
  ids.mailTemplate = (await h.admin<Admin["listCustomerMailTemplates"]>("GET", `/v1/customers/${c.id}/mail/templates`)).json.data[0]?.id ?? "";
  ids.block = (await h.admin<Admin["listMailBlocks"]>("GET", "/v1/mail/blocks")).json.data[0]?.id ?? "";
  const adTemplate = await h.admin<Admin["createLibraryAdTemplate"]>("POST", "/v1/ads/templates", {
    name: "Sale banner",
    type: "image",
    params: SALE_BANNER.params,
    layouts: SALE_BANNER.layouts,
    highlight: SALE_BANNER.highlight,
  });
  expect(adTemplate.status, describeResponse(adTemplate)).toBe(201);
  ids.adTemplate = adTemplate.json.data.id;
  // Assigned to the customer, so the customer's template reads answer it.
  const assigned = await h.admin("PUT", `/v1/customers/${c.id}/ads/templates/${ids.adTemplate}`);
  expect(assigned.status, describeResponse(assigned)).toBe(200);
  ids.key = (await h.admin<Admin["listApiKeys"]>("GET", `/v1/customers/${c.id}/keys`)).json.data[0]?.id ?? "";
  for (const [name, value] of Object.entries(ids)) expect(value, name).not.toBe("");

  Object.assign(secrets, {
    "Postmark server token": serverToken,
    "Postmark account token": accountToken,
    "Postmark webhook password": revealed.json.data.password,
    "Postmark webhook password (URL-encoded)": encodeURIComponent(revealed.json.data.password),
    "Meta system-user token": c.accessToken,
    "Meta app secret": c.appSecret,
    "mail webhook signing secret": mailHook.json.data.signing_secret,
    "ads webhook signing secret": adsHook.json.data.signing_secret,
    "mail API key (full)": c.mailFull,
    "mail API key (reporting)": c.mailReporting,
    "ads API key (full)": c.adsFull,
    "ads API key (reporting)": c.adsReporting,
    "the shared admin token": h.deps.adminToken,
  });
  for (const role of ROLES) {
    secrets[`${role}'s operator token`] = operators[role].token;
    secrets[`${role}'s password`] = operators[role].password;
  }
  for (const [name, value] of Object.entries(secrets)) expect(value.length, name).toBeGreaterThanOrEqual(12);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  await world?.close();
});

/** The names of the secrets `text` holds. */
const leaksIn = (text: string) =>
  Object.entries(secrets)
    .filter(([, value]) => text.includes(value))
    .map(([name]) => name);

describe("every admin API GET, read by each role", () => {
  type Parameter = { name: string; in: string; required?: boolean; schema?: { example?: unknown } };
  type Document = { paths: Record<string, Record<string, { operationId: string; parameters?: Parameter[] }>> };

  /** A path of the document with the seeded ids in it (each parameter by its name and where it sits). */
  function filled(path: string): string {
    return path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      if (name === "id") {
        if (path.startsWith("/v1/operators/")) return operators.owner.id;
        if (path.startsWith("/v1/mail/blocks/")) return ids.block;
        if (path.startsWith("/v1/keys/")) return ids.key;
        return ids.customer;
      }
      if (name === "template_id") return ids.adTemplate;
      if (name === "templateId") return ids.mailTemplate;
      if (name === "messageId") return ids.message;
      if (name === "jobId") return ids.job;
      if (name === "webhookId") return path.includes("/ads/") ? ids.adsWebhook : ids.mailWebhook;
      if (name === "key") return "main";
      return crypto.randomUUID();
    });
  }

  test("no answer holds a seeded secret", async () => {
    const { h } = world;
    const document = await h.call<Document>("GET", "/admin/v1/openapi.json");
    const leaks: string[] = [];
    const answered: Record<Role, number> = { support: 0, admin: 0, owner: 0 };
    let gets = 0;
    for (const [path, item] of Object.entries(document.json.paths)) {
      const get = item.get;
      if (!get) continue;
      gets++;
      const query = (get.parameters ?? [])
        .filter((p) => p.in === "query" && p.required)
        .map((p) => `${p.name}=${encodeURIComponent(String(p.schema?.example ?? ids.customer))}`);
      for (const role of ROLES) {
        const r = await h.call("GET", `/admin${filled(path)}${query.length > 0 ? `?${query.join("&")}` : ""}`, { key: operators[role].token });
        expect(r.status, `${role} ${get.operationId}: ${describeResponse(r)}`).toBeLessThan(500);
        if (r.status === 200) answered[role]++;
        for (const name of leaksIn(r.text)) leaks.push(`${role} ${get.operationId}: ${name}`);
      }
    }
    // The answers read are real ones, not 404s of made-up ids.
    expect(gets).toBeGreaterThan(40);
    expect(answered.owner).toBeGreaterThanOrEqual(gets * 0.9);
    expect(answered.support).toBeGreaterThanOrEqual(gets * 0.75);
    expect(leaks).toEqual([]);
  }, 300_000);
});

/** Every console page, by the hash its route matches, with the seeded ids. */
function consolePages(): string[] {
  const c = `/customers/${ids.customer}`;
  return [
    "/overview",
    "/search?q=Secrets",
    "/customers",
    c,
    `${c}/keys`,
    `${c}/mail`,
    `${c}/mail/provider`,
    `${c}/mail/senders`,
    `${c}/deliverability`,
    `${c}/mail/usage`,
    `${c}/mail/design`,
    `${c}/mail/templates`,
    `${c}/mail/templates/${ids.mailTemplate}`,
    `${c}/send-jobs`,
    `${c}/send-jobs/${ids.job}`,
    `${c}/stats`,
    `${c}/messages`,
    `${c}/messages/${ids.message}`,
    `${c}/suppressions`,
    `${c}/webhooks`,
    `${c}/webhooks/mail/${ids.mailWebhook}`,
    `${c}/webhooks/ads/${ids.adsWebhook}`,
    `${c}/ads`,
    `${c}/ads/onboarding`,
    `${c}/ads/targets`,
    `${c}/ads/templates`,
    `${c}/ads/plan`,
    `${c}/ads/insights`,
    `${c}/adsets`,
    "/blocks",
    `/blocks/${ids.block}`,
    "/ad-templates",
    `/ad-templates/${ids.adTemplate}`,
    "/system",
    "/operators",
    `/operators/${operators.admin.id}`,
    "/me",
    "/audit-log",
  ];
}

/** The route patterns of the console's router, read from its source (so a new page cannot be missed here). */
function routePatterns(): RegExp[] {
  const source = readFileSync(new URL("../../lib/console/client/main.ts", import.meta.url), "utf8");
  return [...source.matchAll(/\[\s*\/(\^.*?\$)\/,/g)].map((m) => new RegExp(m[1] as string));
}

(chromiumPresent ? describe : describe.skip)(
  chromiumPresent
    ? "every console page, read by each role"
    : `every console page, read by each role — skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`,
  () => {
    /** What the page holds now: its markup, every form control's value and the bodies of the answers it fetched. */
    let fetched: string[] = [];
    const inflight = new Set<string>();

    async function settle(): Promise<void> {
      await page.locator("main h1").first().waitFor();
      await expect.poll(() => page.locator("main").textContent()).not.toMatch(/^Loading…$/);
      // Ad previews are drawn on worker threads: on a loaded machine they take a while.
      await expect.poll(() => [...inflight], { timeout: 60_000 }).toEqual([]);
    }

    async function pageText(): Promise<string> {
      const dom = await page.evaluate(() => {
        const values = Array.from(document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>("input, textarea, select")).map(
          (control) => control.value,
        );
        return `${document.documentElement.outerHTML}\n${values.join("\n")}`;
      });
      return `${dom}\n${fetched.join("\n")}`;
    }

    async function signIn(operator: TestOperator): Promise<void> {
      // Leave the console first: a page still loading would meet the cleared session and go to the sign-in page
      // itself, aborting this navigation.
      await page.goto("about:blank");
      await browser?.context.clearCookies();
      await page.goto(`${origin}/console/sign-in`);
      await page.getByLabel("E-mail").fill(operator.email);
      await page.getByLabel("Password").fill(operator.password);
      await page.keyboard.press("Enter");
      // The first console page of the process bundles the console's script: slow on a loaded machine.
      await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor({ timeout: 60_000 });
    }

    beforeAll(async () => {
      const port = Number(new URL(origin).port);
      server = await new Promise<ServerType>((resolve) => {
        const s = serve({ fetch: world.h.root.fetch, port, hostname: "127.0.0.1" }, () => resolve(s));
      });
      browser = await launchOfflineChromium({ origin, profilePrefix: "least-privilege-chromium-", viewport: { width: 1400, height: 900 } });
      page = browser.context.pages()[0] ?? (await browser.context.newPage());
      page.setDefaultTimeout(15_000);
      let requests = 0;
      const named = new WeakMap<object, string>();
      page.on("request", (request) => {
        const name = `${++requests} ${request.method()} ${request.url()}`;
        named.set(request, name);
        inflight.add(name);
      });
      page.on("requestfailed", (request) => inflight.delete(named.get(request) ?? ""));
      page.on("requestfinished", async (request) => {
        try {
          const response = await request.response();
          if (response && request.url().startsWith(`${origin}/console/`)) fetched.push(await response.text().catch(() => ""));
        } finally {
          inflight.delete(named.get(request) ?? "");
        }
      });
    }, 90_000);

    test("the pages visited are every route of the console", () => {
      const patterns = routePatterns();
      expect(patterns.length).toBeGreaterThan(20);
      const pages = consolePages();
      const unvisited = patterns.filter((pattern) => !pages.some((path) => pattern.test(path))).map(String);
      expect(unvisited).toEqual([]);
      const unrouted = pages.filter((path) => !patterns.some((pattern) => pattern.test(path)));
      expect(unrouted).toEqual([]);
    });

    for (const role of ROLES) {
      test(`${role}: no console page shows or fetches a secret`, async () => {
        await signIn(operators[role]);
        const leaks: string[] = [];
        const broken: string[] = [];
        for (const path of consolePages()) {
          fetched = [];
          await page.goto(`${origin}/console/#${path}`);
          await settle();
          const heading = (await page.locator("main h1").first().textContent()) ?? "";
          if (heading === "This page could not load" || heading === "Not found") broken.push(`${path}: ${await page.locator("main").textContent()}`);
          for (const name of leaksIn(await pageText())) leaks.push(`${path}: ${name}`);
        }
        expect(leaks).toEqual([]);
        // The pages drew their content: an owner reads every one; the others are refused the owner's pages only.
        const refusedPages = role === "owner" ? [] : ["/operators", `/operators/${operators.admin.id}`];
        expect(broken.filter((b) => !refusedPages.some((p) => b.startsWith(`${p}:`)))).toEqual([]);
        expect(browser?.outside).toEqual([]);
      }, 300_000);
    }

    test("the probe finds a secret that is shown: an admin's reveal, after re-authenticating, is found and audited as a secret read", async () => {
      const { h } = world;
      await signIn(operators.admin);
      await page.goto(`${origin}/console/#/customers/${ids.customer}/mail/provider`);
      await settle();
      expect(leaksIn(await pageText())).toEqual([]);
      h.clock.advance((h.deps.config.CONSOLE_REAUTH_MINUTES + 1) * 60_000);
      fetched = [];
      await page.getByRole("button", { name: "Show the webhook URL with its password" }).click();
      const dialog = page.getByRole("dialog", { name: "Confirm it is you" });
      await dialog.waitFor();
      await dialog.getByLabel("Password").fill("not the password");
      await dialog.getByRole("button", { name: "Confirm" }).click();
      await expect.poll(() => dialog.getByRole("alert").textContent()).toContain("Error:");
      await dialog.getByLabel("Password").fill(operators.admin.password);
      await dialog.getByRole("button", { name: "Confirm" }).click();
      await page.getByRole("button", { name: "Reveal webhook URL" }).click();
      await expect.poll(() => page.getByTestId("webhook-secret").textContent()).toContain(secrets["Postmark webhook password (URL-encoded)"]);
      await expect.poll(async () => leaksIn(await pageText())).toContain("Postmark webhook password (URL-encoded)");
      expect(leaksIn(fetched.join("\n"))).toContain("Postmark webhook password");

      const reads = await h.db.select().from(auditLog).where(eq(auditLog.operationId, "revealCustomerPostmarkWebhook"));
      const mine = reads.filter((e) => e.operatorId === operators.admin.id);
      expect(mine.filter((e) => e.status === 200).map((e) => (e.target as Record<string, string>).secret)).toEqual(["postmark_webhook_password"]);
      expect(JSON.stringify(mine)).not.toContain(secrets["Postmark webhook password"]);
    }, 120_000);
  },
);
