import { serve, type ServerType } from "@hono/node-server";
import { eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SALE_BANNER } from "../../lib/ads/templates/demo";
import { mailProviderConfigs } from "../../lib/db/schema";
import { CHROMIUM, chromiumPresent, launchOfflineChromium, seriousViolations, type OfflineBrowser } from "../helpers/chromium";
import { createHarness, describeResponse, type Admin, type Harness } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { makeOperator } from "../helpers/operators";
import { freePort } from "../helpers/processes";

/**
 * The console's forms for the admin API's known shapes, in Debian's Chromium over
 * loopback: the provider configuration (its token masked, with Show), senders and domains, design tokens and
 * brand, a template's block stack and parameter contract, a library block's parameters and an ad template's.
 * Each form is filled, saved, the page reloaded and the value seen again, and a bad value answers with the
 * API's message at the field it names. Lists add, remove and reorder rows. Nothing leaves our origin; every
 * page passes axe-core without serious or critical violations (the design sample, in the customer's own
 * colours, left out).
 */
let h: Harness;
let server: ServerType;
let origin: string;
let page: Page;
let browser: OfflineBrowser | undefined;
/** The confirm texts of leaving an editor with unsaved changes; `leave` says whether to accept the next one. */
const dialogs: string[] = [];
let leave = true;

const errorAt = (label: string | RegExp) => page.locator(".field", { has: page.getByLabel(label, { exact: typeof label === "string" }) }).locator(".error");
const axe = () => seriousViolations(page, [".customer-content"]);
const reload = async (heading: string) => {
  await page.reload();
  await page.getByRole("heading", { name: heading, level: 2 }).waitFor();
};

(chromiumPresent ? describe : describe.skip)(
  chromiumPresent ? "forms of the console's mail and template editors" : `console forms — skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`,
  () => {
    beforeAll(async () => {
      const port = await freePort();
      origin = `http://127.0.0.1:${port}`;
      h = await createHarness({ env: { PUBLIC_BASE_URL: origin } });
      server = await new Promise<ServerType>((resolve) => {
        const s = serve({ fetch: h.root.fetch, port, hostname: "127.0.0.1" }, () => resolve(s));
      });
      const admin = await makeOperator(h, "admin");
      browser = await launchOfflineChromium({ origin, profilePrefix: "forms-chromium-", viewport: { width: 1400, height: 900 } });
      page = browser.context.pages()[0] ?? (await browser.context.newPage());
      page.setDefaultTimeout(10_000);
      page.on("dialog", (dialog) => {
        dialogs.push(dialog.message());
        void (leave ? dialog.accept() : dialog.dismiss());
      });
      await page.goto(`${origin}/console/sign-in`);
      await page.getByLabel("E-mail").fill(admin.email);
      await page.getByLabel("Password").fill(admin.password);
      await page.keyboard.press("Enter");
      await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
      await h?.close();
    });

    test("provider: the token is typed masked and saved write-only, streams and the Bulk API switch round-trip, a bad stream id is named at its field", async () => {
      const c = await readyMailCustomer(h, "Forms Provider");
      await page.goto(`${origin}/console/#/customers/${c.id}/mail/provider`);
      const token = page.getByLabel("Postmark server token");
      await token.fill("forms-token-1234");
      expect(await token.getAttribute("type")).toBe("password");
      await page.getByRole("button", { name: "Show server token" }).click();
      expect(await token.getAttribute("type")).toBe("text");
      await page.getByRole("button", { name: "Hide server token" }).click();
      expect(await token.getAttribute("type")).toBe("password");
      await page.getByLabel("Transactional stream").fill("outbound-forms");
      await page.getByLabel("Newsletters use Postmark's Bulk API").check();
      expect(await axe()).toEqual([]);
      await page.getByRole("button", { name: "Save provider configuration" }).click();
      await page.getByText("✓ Saved.").waitFor();
      expect(await token.inputValue()).toBe("");

      const [row] = await h.db.select().from(mailProviderConfigs).where(eq(mailProviderConfigs.customerId, c.id));
      expect(row?.serverTokenSealed && h.deps.secrets.open(row.serverTokenSealed)).toBe("forms-token-1234");
      await reload("Provider (Postmark) and readiness");
      expect(await page.getByLabel("Transactional stream").inputValue()).toBe("outbound-forms");
      expect(await page.getByLabel("Newsletters use Postmark's Bulk API").isChecked()).toBe(true);
      expect(await page.getByLabel("Postmark server token").inputValue()).toBe("");
      expect(await page.locator("main").textContent()).not.toContain("forms-token-1234");

      await page.getByLabel("Broadcast stream").fill("Not A Stream");
      await page.getByRole("button", { name: "Save provider configuration" }).click();
      await expect.poll(() => errorAt("Broadcast stream").textContent()).toContain("message stream id");
      expect(await page.getByLabel("Broadcast stream").getAttribute("aria-invalid")).toBe("true");
    });

    test("senders and domains: rows added, reordered and removed, default senders set; a bad address is named at its row", async () => {
      const c = await readyMailCustomer(h, "Forms Senders");
      await page.goto(`${origin}/console/#/customers/${c.id}/mail`);
      await page.getByRole("navigation", { name: "Mail sections" }).getByRole("link", { name: "Senders and domains" }).click();
      await page.getByRole("heading", { name: "Senders and domains", level: 2 }).waitFor();
      const before = (await h.admin<Admin["getCustomerMailProvider"]>("GET", `/v1/customers/${c.id}/mail/provider`)).json.data;
      const senders = before.verified_senders.length;
      const domains = before.verified_domains.length;

      await page.getByRole("button", { name: "Add sender address" }).click();
      await page.getByLabel(`Sender address ${senders + 1}`, { exact: true }).fill("forms@acme.example");
      await page.getByRole("button", { name: "Add domain" }).click();
      await page.getByLabel(`Domain ${domains + 1}`, { exact: true }).fill("acme.example");
      await page.getByRole("button", { name: "Add domain" }).click();
      await page.getByLabel(`Domain ${domains + 2}`, { exact: true }).fill("second.example");
      await page.getByRole("button", { name: `Move domain ${domains + 2} up` }).click();
      // Keyboard focus follows the moved row.
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(`Move domain ${domains + 1} up`);
      await page.getByRole("button", { name: `Remove domain ${domains + 2}` }).click();
      await page.getByLabel("Default newsletter sender: address").fill("forms@acme.example");
      await page.getByLabel("Default newsletter sender: display name").fill("Acme Forms");
      expect(await axe()).toEqual([]);
      await page.getByRole("button", { name: "Save senders and domains" }).click();
      await page.getByText("✓ Saved.").waitFor();

      const after = (await h.admin<Admin["getCustomerMailProvider"]>("GET", `/v1/customers/${c.id}/mail/provider`)).json.data;
      expect(after.verified_senders).toEqual([...before.verified_senders, "forms@acme.example"]);
      expect(after.verified_domains).toEqual([...before.verified_domains, "second.example"]);
      expect(after.default_newsletter_from).toEqual({ email: "forms@acme.example", name: "Acme Forms" });
      await reload("Senders and domains");
      expect(await page.getByLabel(`Domain ${domains + 1}`, { exact: true }).inputValue()).toBe("second.example");
      expect(await page.getByLabel(`Sender address ${senders + 1}`, { exact: true }).inputValue()).toBe("forms@acme.example");
      expect(await page.getByLabel("Default newsletter sender: display name").inputValue()).toBe("Acme Forms");

      await page.getByLabel(`Sender address ${senders + 1}`, { exact: true }).fill("not-an-address");
      await page.getByRole("button", { name: "Save senders and domains" }).click();
      await expect.poll(() => errorAt(`Sender address ${senders + 1}`).textContent()).toMatch(/^Error: /);
      expect(await errorAt(`Sender address ${senders + 1}`).textContent()).not.toBe("");
    });

    test("design and brand: token fields drive the live sample and round-trip, a JSON view stays available, bad values are named at their fields", async () => {
      const c = await readyMailCustomer(h, "Forms Design");
      await page.goto(`${origin}/console/#/customers/${c.id}/mail/design`);
      await page.getByRole("heading", { name: "Design rules", level: 2 }).waitFor();
      await page.getByLabel("Brand colour (buttons, accents)", { exact: true }).fill("#e11d48");
      const button = page.getByTestId("design-sample").getByText("Button");
      await expect.poll(() => button.evaluate((b) => getComputedStyle(b).backgroundColor)).toBe("rgb(225, 29, 72)");
      // The picker beside the text follows it.
      expect(await page.getByLabel("Brand colour (buttons, accents): colour picker").inputValue()).toBe("#e11d48");
      await page.getByLabel("Body font stack").fill("Georgia, serif");
      await page.getByLabel("Heading weight").selectOption("400");
      expect(await axe()).toEqual([]);
      await page.getByRole("button", { name: "Save design rules" }).click();
      await page
        .getByText(/✓ Saved as version/)
        .first()
        .waitFor();
      const rules = (await h.admin<Admin["getCustomerDesignRules"]>("GET", `/v1/customers/${c.id}/mail/design-rules`)).json.data;
      expect(rules.overrides).toMatchObject({ color_primary: "#e11d48", font_body: "Georgia, serif", heading_font_weight: "400" });

      await page.getByLabel("Logo URL").fill("https://assets.example.com/forms/logo.png");
      await page.getByLabel("Company name").fill("Forms Design GmbH");
      await page.getByRole("button", { name: "Save brand and frame" }).click();
      await expect.poll(() => page.getByText(/✓ Saved as version/).count()).toBe(2);

      await reload("Design rules");
      expect(await page.getByLabel("Brand colour (buttons, accents)", { exact: true }).inputValue()).toBe("#e11d48");
      expect(await page.getByLabel("Body font stack").inputValue()).toBe("Georgia, serif");
      expect(await page.getByLabel("Heading weight").inputValue()).toBe("400");
      expect(await page.getByLabel("Logo URL").inputValue()).toBe("https://assets.example.com/forms/logo.png");
      expect(await page.getByLabel("Company name").inputValue()).toBe("Forms Design GmbH");

      // The raw JSON stays as an advanced view of the same value.
      await page.getByRole("button", { name: "Edit overrides as JSON" }).click();
      expect(JSON.parse(await page.getByLabel("Overrides (JSON)").inputValue())).toMatchObject({ color_primary: "#e11d48" });
      await page.getByRole("button", { name: "Edit overrides in the form" }).click();

      await page.getByLabel("Brand colour (buttons, accents)", { exact: true }).fill("pink");
      await page.getByLabel("Content width").fill("2000px");
      await page.getByRole("button", { name: "Save design rules" }).click();
      await expect.poll(() => errorAt("Brand colour (buttons, accents)").textContent()).toContain("hex colour");
      expect(await errorAt("Content width").textContent()).toContain("between 320px and 800px");
      await page.getByLabel("Logo URL").fill("not a url");
      await page.getByRole("button", { name: "Save brand and frame" }).click();
      await expect.poll(() => errorAt("Logo URL").textContent()).toMatch(/^Error: /);
    });

    test("a template: block stack and parameter contract built row by row, reordered, saved, reloaded; a bad name is named at its row; leaving unsaved asks", async () => {
      const c = await readyMailCustomer(h, "Forms Templates");
      await page.goto(`${origin}/console/#/customers/${c.id}/mail/templates`);
      await page.getByRole("heading", { name: "Templates", level: 2 }).waitFor();
      await page.getByLabel("Name", { exact: true }).fill("Forms confirmation");
      await page.getByLabel("Subject", { exact: true }).fill("Order {{order_number}}");
      await page.getByRole("button", { name: "Add block" }).click();
      await page.getByLabel("Block 1: block").selectOption({ label: "Heading" });
      await page.getByLabel("Block 1: Title").fill("Order {{order_number}} confirmed");
      await page.getByRole("button", { name: "Add block" }).click();
      await page.getByLabel("Block 2: block").selectOption({ label: "Heading" });
      await page.getByLabel("Block 2: Title").fill("Thanks, {{customer_name}}");
      await page.getByRole("button", { name: "Move block 2 up" }).click();
      for (const [n, name, label] of [
        [1, "customer_name", "Customer name"],
        [2, "order_number", "Order number"],
        [3, "unused", "Unused"],
      ] as const) {
        await page.getByRole("button", { name: "Add parameter" }).click();
        await page.getByLabel(`Parameter ${n}: name`).fill(name);
        await page.getByLabel(`Parameter ${n}: label`).fill(label);
        await page.getByLabel(`Parameter ${n}: example`).fill(`Example ${n}`);
      }
      await page.getByRole("button", { name: "Move parameter 2 up" }).click();
      await page.getByRole("button", { name: "Remove parameter 3" }).click();
      expect(await axe()).toEqual([]);
      const promptsBefore = dialogs.length;
      await page.getByRole("button", { name: "Create template" }).click();
      await page.getByRole("heading", { name: "Template: Forms confirmation", level: 2 }).waitFor();
      // Saved, so moving on to the new template's page does not ask.
      expect(dialogs.length).toBe(promptsBefore);
      const templateId = (/\/mail\/templates\/([0-9a-f-]{36})/.exec(page.url()) ?? [])[1] ?? "";

      const saved = (await h.admin<Admin["getCustomerMailTemplate"]>("GET", `/v1/customers/${c.id}/mail/templates/${templateId}`)).json.data;
      expect(saved.params.map((p) => p.name)).toEqual(["order_number", "customer_name"]);
      expect(saved.blocks?.map((b) => b.values?.title)).toEqual(["Thanks, {{customer_name}}", "Order {{order_number}} confirmed"]);
      await reload("Template: Forms confirmation");
      expect(await page.getByLabel("Parameter 1: name").inputValue()).toBe("order_number");
      expect(await page.getByLabel("Block 1: Title").inputValue()).toBe("Thanks, {{customer_name}}");
      expect(await axe()).toEqual([]);

      await page.getByRole("button", { name: "Move block 2 up" }).click();
      await page.getByLabel("Parameter 2: name").fill("Bad Name!");
      await page.getByRole("button", { name: "Save template" }).click();
      await expect.poll(() => errorAt("Parameter 2: name").textContent()).toMatch(/^Error: /);
      expect((await h.admin<Admin["getCustomerMailTemplate"]>("GET", `/v1/customers/${c.id}/mail/templates/${templateId}`)).json.data.version).toBe(1);

      // Unsaved changes: leaving asks first; cancelling keeps the page and its edits.
      leave = false;
      const asked = dialogs.length;
      await page.getByRole("navigation", { name: "Mail sections" }).getByRole("link", { name: "Templates and blocks" }).click();
      await expect.poll(() => dialogs.length).toBe(asked + 1);
      expect(dialogs.at(-1)).toContain("unsaved changes");
      expect(await page.getByLabel("Parameter 2: name").inputValue()).toBe("Bad Name!");
      leave = true;
      await page.getByLabel("Parameter 2: name").fill("customer_name");
      await page.getByRole("button", { name: "Save template" }).click();
      await page.getByText("✓ Saved as version 2.").waitFor();
      const reordered = (await h.admin<Admin["getCustomerMailTemplate"]>("GET", `/v1/customers/${c.id}/mail/templates/${templateId}`)).json.data;
      expect(reordered.blocks?.map((b) => b.values?.title)).toEqual(["Order {{order_number}} confirmed", "Thanks, {{customer_name}}"]);
    });

    test("a library block's parameters and an ad template's: rows edited, reordered, saved, reloaded; bad values named at their rows", async () => {
      const block = await h.admin<Admin["createMailBlock"]>("POST", "/v1/mail/blocks", {
        slug: "forms-heading",
        name: "Forms heading",
        mjml: "<mj-section><mj-column><mj-text><h1>{{title}}</h1><p>{{subtitle}}</p></mj-text></mj-column></mj-section>",
        params: [{ name: "title", type: "text", label: "Title", required: true, fallback: null, hide_if_missing: false, example: "Forms title" }],
      });
      expect(block.status, describeResponse(block)).toBe(201);
      await page.goto(`${origin}/console/#/blocks/${block.json.data.id}`);
      await expect.poll(() => page.frameLocator("iframe.preview").locator("h1").textContent()).toBe("Forms title");
      await page.getByRole("button", { name: "Add parameter" }).click();
      await page.getByLabel("Parameter 2: name").fill("subtitle");
      await page.getByLabel("Parameter 2: label").fill("Subtitle");
      await page.getByLabel("Parameter 2: example").fill("Forms subtitle");
      await page.getByLabel("Parameter 2: hide the block's outer element without a value").check();
      await page.getByRole("button", { name: "Move parameter 2 up" }).click();
      // The preview follows the rows as they change.
      await expect.poll(() => page.frameLocator("iframe.preview").locator("p").first().textContent()).toBe("Forms subtitle");
      expect(await axe()).toEqual([]);
      await page.getByRole("button", { name: "Save block" }).click();
      await page.getByText("✓ Saved as version 2.").waitFor();
      await reload("Edit");
      expect(await page.getByLabel("Parameter 1: name").inputValue()).toBe("subtitle");
      expect(await page.getByLabel("Parameter 1: hide the block's outer element without a value").isChecked()).toBe(true);
      await page.getByLabel("Parameter 2: type").selectOption("url");
      await page.getByLabel("Parameter 1: name").fill("Sub Title");
      await page.getByRole("button", { name: "Save block" }).click();
      await expect.poll(() => errorAt("Parameter 1: name").textContent()).toMatch(/^Error: /);
      expect((await h.admin<Admin["getMailBlock"]>("GET", `/v1/mail/blocks/${block.json.data.id}`)).json.data.version).toBe(2);

      const made = await h.admin<Admin["createLibraryAdTemplate"]>("POST", "/v1/ads/templates", {
        name: "Forms banner",
        description: SALE_BANNER.description,
        type: "image",
        params: SALE_BANNER.params,
        layouts: SALE_BANNER.layouts,
        highlight: SALE_BANNER.highlight,
      });
      expect(made.status, describeResponse(made)).toBe(201);
      await page.goto(`${origin}/console/#/ad-templates/${made.json.data.id}`);
      await expect.poll(() => page.getByTestId("ratio-previews").locator("img").count(), { timeout: 20_000 }).toBe(3);
      await page.getByLabel("Parameter 3: label").fill("Call to action");
      await page.getByRole("button", { name: "Move parameter 3 up" }).click();
      expect(await axe()).toEqual([]);
      await page.getByRole("button", { name: "Save template" }).click();
      await page.getByText("✓ Saved as revision 2.").waitFor();
      await reload("Edit");
      expect(await page.getByLabel("Parameter 2: label").inputValue()).toBe("Call to action");
      expect(await page.getByLabel("Parameter 2: name").inputValue()).toBe("cta");
      // Preview values: a field per parameter, named by its label; a value the parameter refuses is named there.
      await page.getByLabel("Preview: Headline").fill("x".repeat(80));
      await expect.poll(() => errorAt("Preview: Headline").textContent()).toMatch(/^Error: /);
      await page.getByLabel("Parameter 1: at most (characters)").fill("0");
      await page.getByRole("button", { name: "Save template" }).click();
      await expect.poll(() => errorAt("Parameter 1: at most (characters)").textContent()).toMatch(/^Error: /);

      expect(browser?.outside).toEqual([]);
    });
  },
);
