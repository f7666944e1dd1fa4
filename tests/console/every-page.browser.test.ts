import { serve, type ServerType } from "@hono/node-server";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createAd, createAdsWorld, onboardedCustomer, type AdsWorld } from "../ads/support/ads-world";
import { CHROMIUM, chromiumPresent, launchOfflineChromium, type OfflineBrowser } from "../helpers/chromium";
import { describeResponse, type Admin, type Mail } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { makeOperator, type TestOperator } from "../helpers/operators";
import { postEvent, postmarkEvent, sendTransactional } from "../helpers/postmark-events";
import { freePort } from "../helpers/processes";
import { createJob, createNewsletter } from "../helpers/send-jobs";

/**
 * Every console page, as each role, in Debian's Chromium over loopback:
 * - support finds no write control it cannot use: each one is absent, or disabled with the role it needs in
 *   its tooltip (or in its form's "Read only" note); the enabled ones are those the API lets support do.
 *   A write control is told by its name (Create, Save, Revoke, Pause, …), by being a field or button of a
 *   form that is not a search or filter, or by being a toggle outside a form;
 * - admin and owner find those controls enabled (owner-only ones disabled for admin, naming owner);
 * - the overview's figures equal the lists they link to (each link followed, its messages counted);
 * - a search by address finds the message only under the customer that sent it, across two customers.
 * No page error, nothing leaves our origin.
 */

let world: AdsWorld;
let server: ServerType;
let origin: string;
let page: Page;
let browser: OfflineBrowser | undefined;
const operators = {} as Record<"owner" | "admin" | "support", TestOperator>;
const pageErrors: string[] = [];
/** Console pages (the part after `#`), filled in once the data exists. */
let pages: string[] = [];
let mailA = { id: "", name: "" };
let mailB = { id: "", name: "" };
let sharedMessage = "";

const WRITE_VERB =
  /^(Create|Save|Revoke|Delete|Remove|Pause|Activate|Add|Rotate|Assign|Enable|Disable|Archive|Upload|Cancel|Resume|Send|Set|Reset|Reactivate|Redeliver|Publish|Update|Verify|Start|Schedule|Retry|Rename|Change|Generate|Replace|Sign out)\b/;
const ROLE_TITLE = /^Needs the (admin|owner) role; you are signed in as (support|admin)\.$/;

type Control = {
  kind: string;
  name: string;
  disabled: boolean;
  title: string;
  read: boolean;
  needs: string | null;
  inForm: boolean;
  formNote: string | null;
};

async function signIn(operator: TestOperator): Promise<void> {
  await browser?.context.clearCookies();
  await page.goto(`${origin}/console/sign-in`);
  await page.getByLabel("E-mail").fill(operator.email);
  await page.getByLabel("Password").fill(operator.password);
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
}

/** Opens a console page and waits until it is drawn (its heading there, no "Loading…" left, no refusal). */
async function open(path: string): Promise<void> {
  await page.goto(`${origin}/console/#${path}`);
  await page.waitForFunction(
    () => {
      const main = document.getElementById("main");
      return !!main?.querySelector("h1") && !(main.textContent ?? "").includes("Loading…");
    },
    undefined,
    { timeout: 15_000 },
  );
  // Parts drawn after the heading (paged tables, previews) come from the same page's reads.
  await page.waitForTimeout(400);
}

async function controls(): Promise<Control[]> {
  return page.evaluate(() => {
    const main = document.getElementById("main") as HTMLElement;
    const nameOf = (el: HTMLElement) => {
      const labelled = el.getAttribute("aria-label");
      if (labelled) return labelled;
      const id = el.getAttribute("id");
      const label = id ? document.querySelector(`label[for="${id}"]`) : null;
      return (label?.textContent ?? el.textContent ?? "").trim().replace(/\s+/g, " ");
    };
    return Array.from(main.querySelectorAll<HTMLElement>("button, input, select, textarea")).map((el) => ({
      kind: el instanceof HTMLInputElement ? `input:${el.type}` : el.tagName.toLowerCase(),
      name: nameOf(el),
      disabled: (el as HTMLButtonElement).disabled,
      title: el.getAttribute("title") ?? "",
      read: el.closest("[data-read]") !== null,
      needs: el.closest("[data-needs]")?.getAttribute("data-needs") ?? null,
      inForm: el.closest("form") !== null,
      formNote: el.closest("form")?.querySelector(".role-note")?.textContent ?? null,
    }));
  });
}

/** A control that changes something: a write by its name, a field or button of a form that is not a search or filter, a toggle outside a form. */
const isWrite = (c: Control) =>
  (c.kind === "button" && WRITE_VERB.test(c.name)) || (c.inForm && !c.read) || (!c.inForm && c.kind === "input:checkbox" && !c.read);

const explained = (c: Control) => ROLE_TITLE.test(c.title) || /^Read only: Needs the (admin|owner) role; you are signed in as \w+\.$/.test(c.formNote ?? "");

(chromiumPresent ? describe : describe.skip)(
  chromiumPresent ? "every console page, every role" : `every console page — skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`,
  () => {
    beforeAll(async () => {
      const port = await freePort();
      origin = `http://127.0.0.1:${port}`;
      world = await createAdsWorld({ PUBLIC_BASE_URL: origin });
      const h = world.h;
      server = await new Promise<ServerType>((resolve) => {
        const s = serve({ fetch: h.root.fetch, port, hostname: "127.0.0.1" }, () => resolve(s));
      });
      for (const role of ["owner", "admin", "support"] as const) operators[role] = await makeOperator(h, role);

      // Mail of two customers, one address shared by nobody but A; a delivery and a bounce so the overview has states.
      const a = await readyMailCustomer(h, "Every page A");
      const b = await readyMailCustomer(h, "Every page B");
      mailA = { id: a.id, name: "Every page A" };
      mailB = { id: b.id, name: "Every page B" };
      sharedMessage = await sendTransactional(h, a, "Shared.Person@example.com");
      const bounced = await sendTransactional(h, a, "bounce-me@example.com");
      const other = await sendTransactional(h, b, "someone-else@example.com");
      await sendTransactional(h, b, "third@example.com");
      const at = h.clock.now().toISOString();
      expect((await postEvent(h, postmarkEvent.delivery({ message_id: sharedMessage }, at))).status).toBe(200);
      expect((await postEvent(h, postmarkEvent.bounce({ message_id: bounced }, { at }))).status).toBe(200);
      expect((await postEvent(h, postmarkEvent.delivery({ message_id: other }, at))).status).toBe(200);

      const newsletter = await createNewsletter(h, a.mailFull, "Every page news");
      const job = await createJob(h, a.mailFull, { template_id: newsletter });
      const templates = await h.admin<Admin["listCustomerMailTemplates"]>("GET", `/v1/customers/${a.id}/mail/templates`);
      expect(templates.status, describeResponse(templates)).toBe(200);
      const template = templates.json.data[0]?.id ?? "";
      const hook = await h.call<Mail["createWebhook"]>("POST", "/mail/v1/webhooks", {
        key: a.mailFull,
        body: { url: "https://hooks.example.com/every-page", events: ["job.completed"] },
      });
      const blocks = await h.admin<Admin["listMailBlocks"]>("GET", "/v1/mail/blocks");
      const adTemplates = await h.admin<Admin["listLibraryAdTemplates"]>("GET", "/v1/ads/templates");

      const ads = await onboardedCustomer(world, "Every page ads");
      await createAd(world, ads, { status: "ACTIVE" });

      const customer = (id: string, rest = "") => `/customers/${id}${rest}`;
      pages = [
        "/overview",
        "/overview?period=30d",
        `/search?q=${encodeURIComponent("Every page")}`,
        "/customers",
        customer(a.id),
        customer(a.id, "/keys"),
        customer(a.id, "/mail"),
        customer(a.id, "/mail/provider"),
        customer(a.id, "/mail/senders"),
        customer(a.id, "/mail/usage"),
        customer(a.id, "/mail/design"),
        customer(a.id, "/mail/templates"),
        ...(template ? [customer(a.id, `/mail/templates/${template}`)] : []),
        customer(a.id, "/send-jobs"),
        customer(a.id, `/send-jobs/${job.id}`),
        customer(a.id, "/stats"),
        customer(a.id, "/messages"),
        customer(a.id, `/messages/${sharedMessage}`),
        customer(a.id, "/suppressions"),
        customer(a.id, "/webhooks"),
        ...(hook.status === 201 ? [customer(a.id, `/webhooks/mail/${hook.json.data.id}`)] : []),
        customer(ads.id, "/ads"),
        customer(ads.id, "/ads/onboarding"),
        customer(ads.id, "/ads/targets"),
        customer(ads.id, "/ads/templates"),
        customer(ads.id, "/ads/plan"),
        customer(ads.id, "/ads/insights"),
        customer(ads.id, "/adsets"),
        "/blocks",
        ...(blocks.json.data[0] ? [`/blocks/${blocks.json.data[0].id}`] : []),
        "/ad-templates",
        ...(adTemplates.json.data[0] ? [`/ad-templates/${adTemplates.json.data[0].id}`] : []),
        "/system",
        "/me",
        "/audit-log",
        "/operators",
        `/operators/${operators.support.id}`,
      ];

      browser = await launchOfflineChromium({ origin, profilePrefix: "every-page-chromium-", viewport: { width: 1280, height: 800 } });
      page = browser.context.pages()[0] ?? (await browser.context.newPage());
      page.setDefaultTimeout(15_000);
      page.on("pageerror", (error) => pageErrors.push(error.message));
      page.on("dialog", (dialog) => void dialog.dismiss());
    }, 180_000);

    afterAll(async () => {
      await browser?.close();
      await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
      await world?.close();
    });

    test("support: on every page, no write control it cannot use (absent, or disabled naming the role it needs)", async () => {
      await signIn(operators.support);
      expect(await page.getByRole("link", { name: "Operators" }).count()).toBe(0);
      const problems: string[] = [];
      let restricted = 0;
      for (const path of pages.filter((p) => !p.startsWith("/operators"))) {
        await open(path);
        for (const c of await controls()) {
          if (c.kind === "button" && WRITE_VERB.test(c.name) && c.read) problems.push(`${path}: "${c.name}" is a write marked as a read`);
          if (!isWrite(c)) continue;
          if (!c.disabled && c.needs !== "support") problems.push(`${path}: ${c.kind} "${c.name}" is enabled (needs ${c.needs ?? "admin"})`);
          if (c.disabled && c.needs !== "support") {
            restricted++;
            if (!explained(c)) problems.push(`${path}: ${c.kind} "${c.name}" is disabled without naming the role it needs ("${c.title}")`);
          }
        }
      }
      expect(problems).toEqual([]);
      expect(restricted).toBeGreaterThan(20);
      // What support may do stays usable: its own API tokens.
      await open("/me");
      expect(await page.getByRole("button", { name: "Create token" }).isEnabled()).toBe(true);
      expect(pageErrors).toEqual([]);
      expect(browser?.outside).toEqual([]);
    }, 300_000);

    for (const role of ["admin", "owner"] as const) {
      test(`${role}: the write controls are there and usable on every page it may open`, async () => {
        await signIn(operators[role]);
        const problems: string[] = [];
        const seen = new Set<string>();
        for (const path of pages.filter((p) => role === "owner" || !p.startsWith("/operators"))) {
          await open(path);
          for (const c of await controls()) {
            if (!isWrite(c)) continue;
            if (c.kind === "button" && !c.disabled) seen.add(c.name);
            const ownerOnly = c.needs === "owner";
            if (ROLE_TITLE.test(c.title) || c.formNote) {
              if (role === "owner" || !ownerOnly) problems.push(`${path}: "${c.name}" is refused to ${role} (${c.title || c.formNote})`);
              else if (!explained(c)) problems.push(`${path}: "${c.name}" does not name the owner role`);
            }
          }
        }
        expect(problems).toEqual([]);
        for (const name of ["Create customer", "Save settings", "Create key", "Add target", "Create token"]) expect([...seen], name).toContain(name);
        if (role === "owner") expect([...seen]).toContain("Create operator");
        expect(pageErrors).toEqual([]);
        expect(browser?.outside).toEqual([]);
      }, 300_000);
    }

    test("the overview's figures equal the lists they link to", async () => {
      await signIn(operators.admin);
      for (const period of ["today", "7d"]) {
        await open(`/overview?period=${period}`);
        const figures = await page.locator("a[data-figure]").evaluateAll((links) =>
          links.map((a) => ({
            figure: a.getAttribute("data-figure") ?? "",
            href: a.getAttribute("href") ?? "",
            n: Number((a.textContent ?? "").replace(/\D/g, "")),
          })),
        );
        const ours = figures.filter((f) => f.figure === "all:delivered" || f.figure.startsWith(`${mailA.id}:`) || f.figure.startsWith(`${mailB.id}:`));
        expect(ours.find((f) => f.figure === `${mailA.id}:bounced`)?.n).toBe(1);
        expect(ours.find((f) => f.figure === `${mailA.id}:delivered`)?.n).toBe(1);
        expect(ours.find((f) => f.figure === `${mailB.id}:delivered`)?.n).toBe(1);
        // Every figure of the two customers (zeros included) and the totals, each followed to its list.
        const followed = [...ours, ...figures.filter((f) => f.figure.startsWith("all:"))];
        for (const f of followed) {
          await open(f.href.replace(/^#/, ""));
          await page.waitForFunction(() => !(document.getElementById("main")?.textContent ?? "").includes("Loading"), undefined, { timeout: 15_000 });
          const listed = await page.locator('main a[href*="/messages/"]').count();
          expect(listed, `${period} ${f.figure} → ${f.href}`).toBe(f.n);
        }
      }
      expect(pageErrors).toEqual([]);
    }, 300_000);

    test("a search by address finds the message under the customer that sent it, not under the other", async () => {
      await signIn(operators.support);
      await page.getByRole("searchbox", { name: "Search" }).fill("shared.person@EXAMPLE.com");
      await page.keyboard.press("Enter");
      await page.getByRole("heading", { name: /^Messages \(\d+\)$/ }).waitFor();
      const results = page.locator('main a[href*="/messages/"]');
      expect(await results.count()).toBe(1);
      expect(await results.first().getAttribute("href")).toBe(`#/customers/${mailA.id}/messages/${sharedMessage}`);
      const row = (await page.locator("main tbody tr").first().textContent()) ?? "";
      expect(row).toContain(mailA.name);
      expect(row).not.toContain(mailB.name);
      expect(row).toContain("Delivered");
      // The page never prints the address it was asked for beyond the query itself.
      expect(await page.locator("main table").first().textContent()).not.toContain("shared.person");
      // Each customer's own list, filtered by that address: the sender has it, the other customer has nothing.
      for (const [customer, expected] of [
        [mailA.id, 1],
        [mailB.id, 0],
      ] as const) {
        await open(`/customers/${customer}/messages`);
        await page.getByLabel("Recipient address").fill("Shared.Person@example.com");
        await page.locator("main").getByRole("button", { name: "Search", exact: true }).click();
        await page.getByText("Search done.").waitFor();
        expect(await page.locator('main a[href*="/messages/"]').count(), customer).toBe(expected);
      }
      expect(pageErrors).toEqual([]);
      expect(browser?.outside).toEqual([]);
    }, 120_000);
  },
);
