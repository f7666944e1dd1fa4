import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { listUsableBlocks } from "../../lib/mail/setup/blocks";
import { createHarness, describeResponse, type Harness, type ErrorEnvelope, type Mail, type Admin, type ErrorDetail } from "../helpers/harness";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

const unknownId = "7d0c2f0e-8a5b-4c8e-9a59-2f5d3c1b0a99";

function blockBody(overrides: Record<string, unknown> = {}) {
  return {
    slug: "notice",
    name: "Notice",
    description: "A short notice with an optional link.",
    mjml: '<mj-section><mj-column><mj-text>{{text}}{{#link}} <a href="{{link}}">more</a>{{/link}}</mj-text></mj-column></mj-section>',
    params: [
      { name: "text", label: "Text", type: "text", required: true, fallback: null, hide_if_missing: false, example: "Hello" },
      { name: "link", label: "Link", type: "url", required: false, fallback: null, hide_if_missing: false, example: "https://example.com" },
    ],
    tags: [{ slug: "content", label: "Content" }],
    series: { slug: "classic", label: "Classic" },
    ...overrides,
  };
}

async function createBlock(overrides: Record<string, unknown> = {}): Promise<string> {
  const r = await h.admin<Admin["createMailBlock"]>("POST", "/v1/mail/blocks", blockBody(overrides));
  expect(r.status, describeResponse(r)).toBe(201);
  return r.json.data.id;
}

test("create, get and list a block", async () => {
  const created = await h.admin<Admin["createMailBlock"]>("POST", "/v1/mail/blocks", blockBody());
  expect(created.status, describeResponse(created)).toBe(201);
  expect(created.json.data).toMatchObject({ ...blockBody(), version: 1, active: true });
  const id = created.json.data.id;

  const got = await h.admin<Admin["getMailBlock"]>("GET", `/v1/mail/blocks/${id}`);
  expect(got.status, describeResponse(got)).toBe(200);
  expect(got.json.data).toEqual(created.json.data);

  const list = await h.admin<Admin["listMailBlocks"]>("GET", "/v1/mail/blocks");
  expect(list.status, describeResponse(list)).toBe(200);
  expect(list.json.data.map((b: { id: string }) => b.id)).toContain(id);
});

test("defaults: no params, tags, series or description", async () => {
  const r = await h.admin<Admin["createMailBlock"]>("POST", "/v1/mail/blocks", {
    slug: "spacer",
    name: "Spacer",
    mjml: '<mj-section><mj-column><mj-spacer height="24px" /></mj-column></mj-section>',
  });
  expect(r.status, describeResponse(r)).toBe(201);
  expect(r.json.data).toMatchObject({ params: [], tags: [], series: null, description: null, version: 1 });
});

test("every change bumps the version; active:false deactivates and active:true reactivates", async () => {
  const id = await createBlock();
  const renamed = await h.admin<Admin["updateMailBlock"]>("PATCH", `/v1/mail/blocks/${id}`, { name: "Notice box", series: null });
  expect(renamed.status, describeResponse(renamed)).toBe(200);
  expect(renamed.json.data).toMatchObject({ name: "Notice box", series: null, version: 2, active: true, slug: "notice" });

  const off = await h.admin<Admin["updateMailBlock"]>("PATCH", `/v1/mail/blocks/${id}`, { active: false });
  expect(off.json.data, describeResponse(off)).toMatchObject({ active: false, version: 3 });
  const on = await h.admin<Admin["updateMailBlock"]>("PATCH", `/v1/mail/blocks/${id}`, {
    active: true,
    mjml: "<mj-section><mj-column><mj-text>{{text}}</mj-text></mj-column></mj-section>",
  });
  expect(on.json.data, describeResponse(on)).toMatchObject({ active: true, version: 4 });
  expect(on.json.data.mjml).not.toContain("{{link}}");
});

test("DELETE deactivates, keeps the row, and a second DELETE changes nothing", async () => {
  const id = await createBlock();
  const deleted = await h.admin<Admin["deactivateMailBlock"]>("DELETE", `/v1/mail/blocks/${id}`);
  expect(deleted.status, describeResponse(deleted)).toBe(200);
  expect(deleted.json.data).toMatchObject({ id, active: false, version: 2 });
  const again = await h.admin<Admin["deactivateMailBlock"]>("DELETE", `/v1/mail/blocks/${id}`);
  expect(again.json.data, describeResponse(again)).toMatchObject({ active: false, version: 2 });
  const got = await h.admin<Admin["getMailBlock"]>("GET", `/v1/mail/blocks/${id}`);
  expect(got.json.data, describeResponse(got)).toMatchObject({ id, active: false });
});

describe("validation answers 422 naming the field", () => {
  test.each([
    ["a slug outside the pattern", { slug: "Not A Slug" }, "slug"],
    ["empty MJML", { mjml: "   " }, "mjml"],
    ["an unclosed section", { mjml: "<mj-section><mj-column><mj-text>{{#text}}open</mj-text></mj-column></mj-section>" }, "mjml"],
    ["a section closed by another name", { mjml: "<mj-section><mj-column><mj-text>{{#a}}x{{/b}}</mj-text></mj-column></mj-section>" }, "mjml"],
    ["duplicate parameter names", { params: [blockBody().params[0], { ...blockBody().params[0], label: "Again" }] }, "params.1.name"],
    ["a parameter name that is not an identifier", { params: [{ ...blockBody().params[0], name: "brand.logo_url" }] }, "params.0.name"],
    ["an unknown parameter type", { params: [{ ...blockBody().params[0], type: "number" }] }, "params.0.type"],
    ["a javascript: example of a url parameter", { params: [{ ...blockBody().params[1], example: "javascript:alert(1)" }] }, "params.0.example"],
    ["a built-in tag with another label", { tags: [{ slug: "header", label: "Top" }] }, "tags.0.label"],
    [
      "duplicate tag slugs",
      {
        tags: [
          { slug: "content", label: "Content" },
          { slug: "content", label: "More content" },
        ],
      },
      "tags.1.slug",
    ],
    [
      "two series",
      {
        series: [
          { slug: "a", label: "A" },
          { slug: "b", label: "B" },
        ],
      },
      "series",
    ],
    ["an unknown field", { colour: "red" }, ""],
  ])("%s", async (_name, overrides, path) => {
    const r = await h.admin<ErrorEnvelope<ErrorDetail[]>>("POST", "/v1/mail/blocks", blockBody(overrides));
    expect(r.status, describeResponse(r)).toBe(422);
    expect(r.json.error.code).toBe("validation_error");
    if (path)
      expect(
        r.json.error.details.map((d: { path: string }) => d.path),
        describeResponse(r),
      ).toContain(path);
  });

  test("the same rules apply to PATCH, and an empty PATCH is refused", async () => {
    const id = await createBlock();
    const bad = await h.admin<ErrorEnvelope<ErrorDetail[]>>("PATCH", `/v1/mail/blocks/${id}`, { mjml: "{{/text}}" });
    expect(bad.status, describeResponse(bad)).toBe(422);
    expect(bad.json.error.details[0].path).toBe("mjml");
    const empty = await h.admin("PATCH", `/v1/mail/blocks/${id}`, {});
    expect(empty.status, describeResponse(empty)).toBe(422);
    const unchanged = await h.admin<Admin["getMailBlock"]>("GET", `/v1/mail/blocks/${id}`);
    expect(unchanged.json.data.version, describeResponse(unchanged)).toBe(1);
  });

  test("a missing required field answers 400", async () => {
    const r = await h.admin("POST", "/v1/mail/blocks", { slug: "x", name: "X" });
    expect(r.status, describeResponse(r)).toBe(400);
  });
});

test("unknown or malformed block id: 404 / 422", async () => {
  for (const [method, body] of [["GET"], ["PATCH", { name: "X" }], ["DELETE"]] as const) {
    const r = await h.admin(method, `/v1/mail/blocks/${unknownId}`, body);
    expect(r.status, describeResponse(r)).toBe(404);
  }
  expect((await h.admin("GET", "/v1/mail/blocks/not-a-uuid")).status).toBe(422);
});

describe("enablement per customer", () => {
  test("enable and disable decide what the customer's GET /v1/blocks lists", async () => {
    const c = await h.customer();
    const other = await h.customer();
    const id = await createBlock();
    const customerBlocks = async (key: string) => {
      const r = await h.call<Mail["listBlocks"]>("GET", "/mail/v1/blocks", { key });
      expect(r.status, describeResponse(r)).toBe(200);
      return r.json.data.map((b: { id: string }) => b.id) as string[];
    };
    expect(await customerBlocks(c.mailReporting)).not.toContain(id);

    const enabled = await h.admin<Admin["enableCustomerMailBlock"]>("PUT", `/v1/customers/${c.id}/mail/blocks/${id}`);
    expect(enabled.status, describeResponse(enabled)).toBe(200);
    expect(enabled.json.data).toEqual({ customer_id: c.id, block_id: id, enabled: true });
    expect((await h.admin("PUT", `/v1/customers/${c.id}/mail/blocks/${id}`)).status).toBe(200);

    expect(await customerBlocks(c.mailReporting)).toContain(id);
    expect(await customerBlocks(other.mailReporting)).not.toContain(id);
    expect((await listUsableBlocks(h.db, c.id)).map((b) => b.id)).toContain(id);

    const adminList = await h.admin<Admin["listCustomerMailBlocks"]>("GET", `/v1/customers/${c.id}/mail/blocks`);
    expect(adminList.status, describeResponse(adminList)).toBe(200);
    expect(adminList.json.data).toHaveLength(1);
    expect(adminList.json.data[0]).toMatchObject({ id, active: true });
    expect(Date.parse(adminList.json.data[0].enabled_at)).not.toBeNaN();

    const disabled = await h.admin<Admin["disableCustomerMailBlock"]>("DELETE", `/v1/customers/${c.id}/mail/blocks/${id}`);
    expect(disabled.status, describeResponse(disabled)).toBe(200);
    expect(disabled.json.data.enabled).toBe(false);
    expect(await customerBlocks(c.mailReporting)).not.toContain(id);
    expect((await h.admin<Admin["listCustomerMailBlocks"]>("GET", `/v1/customers/${c.id}/mail/blocks`)).json.data).toEqual([]);
    expect((await h.admin("DELETE", `/v1/customers/${c.id}/mail/blocks/${id}`)).status).toBe(200);
  });

  test("a deactivated block leaves the customer's list but keeps its enablement", async () => {
    const c = await h.customer();
    const id = await createBlock();
    await h.admin("PUT", `/v1/customers/${c.id}/mail/blocks/${id}`);
    await h.admin("DELETE", `/v1/mail/blocks/${id}`);
    const listed = await h.call<Mail["listBlocks"]>("GET", "/mail/v1/blocks", { key: c.mailReporting });
    expect(
      listed.json.data.map((b: { id: string }) => b.id),
      describeResponse(listed),
    ).not.toContain(id);
    const adminList = await h.admin<Admin["listCustomerMailBlocks"]>("GET", `/v1/customers/${c.id}/mail/blocks`);
    expect(adminList.json.data, describeResponse(adminList)).toMatchObject([{ id, active: false }]);

    await h.admin("PATCH", `/v1/mail/blocks/${id}`, { active: true });
    const back = await h.call<Mail["listBlocks"]>("GET", "/mail/v1/blocks", { key: c.mailReporting });
    expect(
      back.json.data.map((b: { id: string }) => b.id),
      describeResponse(back),
    ).toContain(id);
  });

  test("unknown block 404, unknown customer 404", async () => {
    const c = await h.customer();
    const id = await createBlock();
    const noBlock = await h.admin<ErrorEnvelope>("PUT", `/v1/customers/${c.id}/mail/blocks/${unknownId}`);
    expect(noBlock.status, describeResponse(noBlock)).toBe(404);
    expect(noBlock.json.error.message).toContain("Block");
    const noCustomer = await h.admin<ErrorEnvelope>("PUT", `/v1/customers/${unknownId}/mail/blocks/${id}`);
    expect(noCustomer.status, describeResponse(noCustomer)).toBe(404);
    expect(noCustomer.json.error.message).toContain("Customer");
  });
});
