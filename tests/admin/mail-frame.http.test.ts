import { afterAll, beforeAll, expect, test } from "vitest";
import { createHarness, describeResponse, type Harness, type ErrorEnvelope, type Admin, type Mail, type ErrorDetail } from "../helpers/harness";

type Frame = Admin["getCustomerFrame"];

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

const frame = {
  header_mjml: '<mj-section><mj-column><mj-image src="{{brand.logo_url}}" alt="{{brand.company_name}}" width="120px" /></mj-column></mj-section>',
  newsletter_footer_mjml:
    '<mj-section><mj-column><mj-text>{{brand.company_name}} · {{brand.address}} · <a href="{{{ pm:unsubscribe }}}">Unsubscribe</a></mj-text></mj-column></mj-section>',
  transactional_footer_mjml: "<mj-section><mj-column><mj-text>{{brand.imprint}}</mj-text></mj-column></mj-section>",
  brand: {
    company_name: "Acme GmbH",
    logo_url: "https://assets.example.com/acme/logo.png",
    website_url: "https://www.acme.example",
    imprint: "Acme GmbH · Register court Berlin HRB 12345",
    address: "Acme GmbH\nExample Street 1\n10115 Berlin",
  },
};

test("before a PUT the default frame with the customer's name is shown as version 0", async () => {
  const c = await h.customer("Frameless Ltd");
  const r = await h.admin<Frame>("GET", `/v1/customers/${c.id}/mail/frame`);
  expect(r.status, describeResponse(r)).toBe(200);
  expect(r.json.data).toMatchObject({ version: 0, updated_at: null, brand: { company_name: "Frameless Ltd" } });
  expect(r.json.data.newsletter_footer_mjml).toContain("{{{ pm:unsubscribe }}}");
});

test("PUT stores the frame; a second PUT replaces it and bumps the version", async () => {
  const c = await h.customer();
  const put = await h.admin<Frame>("PUT", `/v1/customers/${c.id}/mail/frame`, frame);
  expect(put.status, describeResponse(put)).toBe(200);
  expect(put.json.data).toMatchObject({ ...frame, version: 1 });
  expect(Date.parse(put.json.data.updated_at ?? "")).not.toBeNaN();
  expect((await h.admin<Admin["getCustomerFrame"]>("GET", `/v1/customers/${c.id}/mail/frame`)).json.data).toEqual(put.json.data);

  const second = await h.admin<Frame>("PUT", `/v1/customers/${c.id}/mail/frame`, { ...frame, header_mjml: null, brand: { ...frame.brand, logo_url: null } });
  expect(second.json.data, describeResponse(second)).toMatchObject({ header_mjml: null, version: 2, brand: { logo_url: null } });
});

test("the brand reaches the customer's rendering (preview of a stack uses the frame)", async () => {
  const c = await h.customer();
  await h.admin("PUT", `/v1/customers/${c.id}/mail/frame`, { ...frame, brand: { ...frame.brand, company_name: "Brand Check GmbH" } });
  const block = await h.admin<Admin["createMailBlock"]>("POST", "/v1/mail/blocks", {
    slug: "plain",
    name: "Plain",
    mjml: "<mj-section><mj-column><mj-text>Hi</mj-text></mj-column></mj-section>",
  });
  await h.admin("PUT", `/v1/customers/${c.id}/mail/blocks/${block.json.data.id}`);
  const preview = await h.call<Mail["renderPreview"]>("POST", "/mail/v1/render/preview", {
    key: c.mailFull,
    body: { blocks: [{ block_id: block.json.data.id, values: {} }] },
  });
  expect(preview.status, describeResponse(preview)).toBe(200);
  expect(preview.json.data.html).toContain("Brand Check GmbH");
});

test("a newsletter footer without the unsubscribe link answers 422 and stores nothing", async () => {
  const c = await h.customer();
  const r = await h.admin<ErrorEnvelope<ErrorDetail[]>>("PUT", `/v1/customers/${c.id}/mail/frame`, {
    ...frame,
    newsletter_footer_mjml: "<mj-section><mj-column><mj-text>Bye</mj-text></mj-column></mj-section>",
  });
  expect(r.status, describeResponse(r)).toBe(422);
  expect(r.json.error.details.map((d: { path: string }) => d.path)).toContain("newsletter_footer_mjml");
  expect((await h.admin<Admin["getCustomerFrame"]>("GET", `/v1/customers/${c.id}/mail/frame`)).json.data.version).toBe(0);
});

test.each([
  ["broken placeholder syntax in the transactional footer", { transactional_footer_mjml: "<mj-section>{{#x}}</mj-section>" }, "transactional_footer_mjml"],
  ["an empty transactional footer", { transactional_footer_mjml: "" }, "transactional_footer_mjml"],
  ["a javascript: logo URL", { brand: { ...frame.brand, logo_url: "javascript:alert(1)" } }, "brand.logo_url"],
  ["an empty company name", { brand: { ...frame.brand, company_name: " " } }, "brand.company_name"],
])("%s answers 422 naming the field", async (_name, change, path) => {
  const c = await h.customer();
  const r = await h.admin<ErrorEnvelope<ErrorDetail[]>>("PUT", `/v1/customers/${c.id}/mail/frame`, { ...frame, ...change });
  expect(r.status, describeResponse(r)).toBe(422);
  expect(r.json.error.details.map((d: { path: string }) => d.path)).toContain(path);
});

test("a missing field answers 400", async () => {
  const c = await h.customer();
  const { brand: _brand, ...withoutBrand } = frame;
  const r = await h.admin("PUT", `/v1/customers/${c.id}/mail/frame`, withoutBrand);
  expect(r.status, describeResponse(r)).toBe(400);
});
