import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SALE_BANNER } from "../../lib/ads/templates/demo";
import { createHarness, describeResponse, type Harness, type ErrorEnvelope, type Admin, type Ads, type Mail, type ErrorDetail } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { addRecipients, createJob, createNewsletter, people, waitForJob } from "../helpers/send-jobs";

/** The admin endpoints the console added: each answers what the customer's own endpoint answers, per customer. */
let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

const unknown = "00000000-0000-4000-8000-000000000000";
const draftBlock = {
  mjml: '<mj-section><mj-column><mj-text><h1 style="color:{{token.color_primary}}">Draft {{title}}</h1></mj-text></mj-column></mj-section>',
  params: [{ name: "title", type: "text", label: "Title", required: true, fallback: "", hide_if_missing: false, example: "example title" }],
};

describe("POST /admin/v1/mail/blocks/preview", () => {
  test("renders an unsaved block as a tile, in a customer's design when asked, storing nothing", async () => {
    const before = (await h.admin<Admin["listMailBlocks"]>("GET", "/v1/mail/blocks")).json.data.length;
    const plain = await h.admin<Admin["previewMailBlockDraft"]>("POST", "/v1/mail/blocks/preview", draftBlock);
    expect(plain.status, describeResponse(plain)).toBe(200);
    expect(plain.json.data.html).toContain("Draft example title");
    expect(plain.json.data.errors).toEqual([]);
    const c = await h.customer("Draft design");
    expect((await h.admin("PUT", `/v1/customers/${c.id}/mail/design-rules`, { overrides: { color_primary: "#e11d48" } })).status).toBe(200);
    const designed = await h.admin<Admin["previewMailBlockDraft"]>("POST", "/v1/mail/blocks/preview", { ...draftBlock, customer_id: c.id });
    expect(designed.json.data.html).toContain("#e11d48");
    expect((await h.admin<Admin["listMailBlocks"]>("GET", "/v1/mail/blocks")).json.data.length).toBe(before);
  });

  test("a draft that cannot render answers its findings; a bad body 4xx; an unknown customer 404", async () => {
    const broken = await h.admin<Admin["previewMailBlockDraft"]>("POST", "/v1/mail/blocks/preview", {
      ...draftBlock,
      mjml: "<mj-section><mj-column><mj-text>{{#title}}open</mj-text></mj-column></mj-section>",
    });
    expect(broken.status, describeResponse(broken)).toBe(200);
    expect(broken.json.data.html).toBeNull();
    expect(broken.json.data.errors.length).toBeGreaterThan(0);
    const empty = await h.admin<ErrorEnvelope<ErrorDetail[]>>("POST", "/v1/mail/blocks/preview", { ...draftBlock, mjml: "  " });
    expect(empty.status, describeResponse(empty)).toBe(422);
    expect(empty.json.error.details[0].path).toBe("mjml");
    expect((await h.admin("POST", "/v1/mail/blocks/preview", { ...draftBlock, customer_id: unknown })).status).toBe(404);
    expect((await h.call("POST", "/admin/v1/mail/blocks/preview", { body: draftBlock })).status).toBe(401);
  });
});

describe("a customer's mail activity", () => {
  test("send jobs with progress and timeline, usage and the template preview; another customer's ids answer 404", async () => {
    const c = await readyMailCustomer(h, "Activity Co");
    const other = await readyMailCustomer(h, "Other Activity Co");
    const templateId = await createNewsletter(h, c.mailFull, "Activity news");
    const job = await createJob(h, c.mailFull, { template_id: templateId });
    await addRecipients(h, c.mailFull, job.id, people(2, "activity.example.com"));
    expect((await h.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: c.mailFull })).status).toBe(200);
    const done = await waitForJob(h, c.mailReporting, job.id, "completed");

    const list = await h.admin<Admin["listCustomerSendJobs"]>("GET", `/v1/customers/${c.id}/mail/send-jobs`);
    expect(list.status, describeResponse(list)).toBe(200);
    expect(list.json.data.map((j: { id: string }) => j.id)).toEqual([job.id]);
    const detail = await h.admin<Admin["getCustomerSendJob"]>("GET", `/v1/customers/${c.id}/mail/send-jobs/${job.id}`);
    expect(detail.json.data).toEqual((await h.call<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${job.id}`, { key: c.mailReporting })).json.data);
    expect(detail.json.data.recipients).toEqual(done.recipients);
    expect((await h.admin("GET", `/v1/customers/${other.id}/mail/send-jobs/${job.id}`)).status).toBe(404);
    expect((await h.admin<Admin["listCustomerSendJobs"]>("GET", `/v1/customers/${other.id}/mail/send-jobs`)).json.data).toEqual([]);
    expect((await h.admin("GET", `/v1/customers/${unknown}/mail/send-jobs`)).status).toBe(404);

    const usage = await h.admin<Admin["getCustomerMailUsage"]>("GET", `/v1/customers/${c.id}/mail/usage`);
    expect(usage.json.data).toEqual((await h.call<Mail["getUsage"]>("GET", "/mail/v1/usage", { key: c.mailReporting })).json.data);

    const preview = await h.admin<Admin["previewCustomerMailTemplate"]>("POST", `/v1/customers/${c.id}/mail/templates/${templateId}/preview`);
    expect(preview.status, describeResponse(preview)).toBe(200);
    expect(preview.json.data.subject).toBe("News for ");
    expect(preview.json.data.html).toContain("Spring is here");
    expect((await h.admin("POST", `/v1/customers/${other.id}/mail/templates/${templateId}/preview`)).status).toBe(404);
  });

  test("suppression lookup: one answer per address; more than 500 addresses 422", async () => {
    const c = await h.customer("Lookup Co");
    const found = await h.admin<Admin["lookupCustomerSuppressions"]>("POST", `/v1/customers/${c.id}/mail/suppressions/lookup`, {
      emails: ["a@example.com", "B@example.com"],
    });
    expect(found.status, describeResponse(found)).toBe(200);
    expect(found.json.data).toEqual([
      { email: "a@example.com", suppressed: false },
      { email: "B@example.com", suppressed: false },
    ]);
    const many = await h.admin<ErrorEnvelope<ErrorDetail[]>>("POST", `/v1/customers/${c.id}/mail/suppressions/lookup`, {
      emails: people(501).map((p) => p.email),
    });
    expect(many.status, describeResponse(many)).toBe(422);
    expect(many.json.error.details[0].path).toBe("emails");
  });
});

describe("a customer's ads activity and template previews", () => {
  test("plan usage and insights answer as the customer's own endpoints; a bad field name 422", async () => {
    const c = await h.customer("Ads activity");
    const plan = await h.admin<Admin["getCustomerAdsPlanUsage"]>("GET", `/v1/customers/${c.id}/ads/plan/usage`);
    expect(plan.status, describeResponse(plan)).toBe(200);
    expect(plan.json.data).toEqual((await h.call<Ads["getPlanUsage"]>("GET", "/ads/v1/plan/usage", { key: c.adsReporting })).json.data);
    const insights = await h.admin<Admin["getCustomerAdsInsights"]>("GET", `/v1/customers/${c.id}/ads/insights?level=adset&date_range=last_7d`);
    expect(insights.status, describeResponse(insights)).toBe(200);
    expect(insights.json.data).toEqual([]);
    const bad = await h.admin("GET", `/v1/customers/${c.id}/ads/insights?level=adset&fields=spend,nope`);
    expect(bad.status, describeResponse(bad)).toBe(422);
    expect((await h.admin("GET", `/v1/customers/${unknown}/ads/plan/usage`)).status).toBe(404);
  });

  test("a template's preview URLs once assigned; a draft drawn in three ratios; layout problems named", async () => {
    const made = await h.admin<Admin["createLibraryAdTemplate"]>("POST", "/v1/ads/templates", {
      name: "Preview banner",
      type: "image",
      params: SALE_BANNER.params,
      layouts: SALE_BANNER.layouts,
      highlight: SALE_BANNER.highlight,
    });
    expect(made.status, describeResponse(made)).toBe(201);
    const id: string = made.json.data.id;
    const c = await h.customer("Template viewer");
    expect((await h.admin("GET", `/v1/customers/${c.id}/ads/templates/${id}/preview`)).status).toBe(404);
    expect((await h.admin("PUT", `/v1/customers/${c.id}/ads/templates/${id}`)).status).toBe(200);
    const preview = await h.admin<Admin["getCustomerAdTemplatePreview"]>("GET", `/v1/customers/${c.id}/ads/templates/${id}/preview`);
    expect(preview.json.data).toEqual((await h.call<Ads["getAdTemplatePreview"]>("GET", `/ads/v1/templates/${id}/preview`, { key: c.adsReporting })).json.data);

    const draft = await h.admin<Admin["previewAdTemplateDraft"]>("POST", "/v1/ads/templates/preview", {
      template: { name: "ignored", type: "image", params: SALE_BANNER.params, layouts: SALE_BANNER.layouts, highlight: SALE_BANNER.highlight },
      values: { price: "€ 9.99" },
    });
    expect(draft.status, describeResponse(draft)).toBe(200);
    const sizes = await Promise.all(
      (["1:1", "4:5", "9:16"] as const).map(async (ratio) => {
        const url: string = draft.json.data.images[ratio];
        expect(url).toMatch(/^data:image\/jpeg;base64,/);
        const meta = await sharp(Buffer.from(url.split(",")[1] ?? "", "base64")).metadata();
        return [meta.width, meta.height];
      }),
    );
    expect(sizes).toEqual([
      [360, 360],
      [360, 450],
      [360, 640],
    ]);
    const wrongParam = structuredClone(SALE_BANNER.layouts) as Record<string, { children: { param?: string }[] }>;
    const first = wrongParam["1:1"]?.children[0];
    if (first) first.param = "no_such_param";
    const broken = await h.admin<ErrorEnvelope<ErrorDetail[]>>("POST", "/v1/ads/templates/preview", {
      template: { type: "image", params: SALE_BANNER.params, layouts: wrongParam, highlight: SALE_BANNER.highlight },
    });
    expect(broken.status, describeResponse(broken)).toBe(422);
    expect(broken.json.error.details.map((d: { path: string }) => d.path).join(" ")).toMatch(/^template\.layouts/);
    const missing = await h.admin<ErrorEnvelope<ErrorDetail[]>>("POST", "/v1/ads/templates/preview", { template: { type: "image" } });
    expect(missing.status, describeResponse(missing)).toBe(400);
    expect(missing.json.error.details.map((d: { path: string }) => d.path)).toEqual(expect.arrayContaining(["template.params", "template.layouts"]));
    const value = await h.admin<ErrorEnvelope<ErrorDetail[]>>("POST", "/v1/ads/templates/preview", {
      template: { type: "image", params: SALE_BANNER.params, layouts: SALE_BANNER.layouts, highlight: SALE_BANNER.highlight },
      values: { brand_color: "green" },
    });
    expect(value.status, describeResponse(value)).toBe(422);
    expect(value.json.error.details[0].path).toBe("params.brand_color");
  });
});
