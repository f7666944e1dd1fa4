import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { demoBlocks } from "../../lib/mail/blocks/library";
import { setDesignRules } from "../../lib/mail/setup/design";
import { updateBlock } from "../../lib/mail/setup/blocks";
import { createHarness, describeResponse, type Harness, type Mail, type Admin, type ErrorEnvelope, type ErrorDetail } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";

let h: Harness;
let c: Awaited<ReturnType<typeof readyMailCustomer>>;
const byslug = (slug: string) => {
  const block = demoBlocks.find((b) => b.slug === slug);
  if (!block) throw new Error(slug);
  return block;
};

beforeAll(async () => {
  h = await createHarness();
  c = await readyMailCustomer(h, "Catalog Co");
});
afterAll(async () => h.close());

describe("blocks", () => {
  test("lists enabled, active blocks with tile URLs; another account without enablements sees none", async () => {
    const r = await h.call<Mail["listBlocks"]>("GET", "/mail/v1/blocks", { key: c.mailReporting });
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data.map((b) => b.slug).sort()).toEqual(demoBlocks.map((b) => b.slug).sort());
    const heading = r.json.data.find((b) => b.slug === "heading");
    expect(heading).toMatchObject({ id: byslug("heading").id, version: expect.any(Number), tile_url: `/mail/v1/blocks/${byslug("heading").id}/tile` });
    expect(heading?.params[0]).toMatchObject({ name: "title", type: "string", required: true });
    const other = await h.customer();
    expect((await h.call<Mail["listBlocks"]>("GET", "/mail/v1/blocks", { key: other.mailReporting })).json.data).toEqual([]);
  });

  test("tile: example values in the customer's design, ETag/304, new ETag after design or block changes, 404 when not usable", async () => {
    const id = byslug("button").id;
    const first = await h.call<Mail["getBlockTile"]>("GET", `/mail/v1/blocks/${id}/tile`, { key: c.mailReporting });
    expect(first.status, describeResponse(first)).toBe(200);
    expect(first.json.data).toMatchObject({ block_id: id, slug: "button" });
    const tile = first.json.data.html ?? "";
    expect(tile).toContain("See what is new");
    expect(tile.toLowerCase()).toContain("#0b6e4f");
    const etag = first.headers.get("etag");
    expect(etag).toBeTruthy();
    const again = await h.call("GET", `/mail/v1/blocks/${id}/tile`, { key: c.mailReporting, headers: { "if-none-match": etag ?? "" } });
    expect(again.status).toBe(304);

    await setDesignRules(h.db, c.id, { color_primary: "#aa1122" }, h.clock.now());
    const redesigned = await h.call<Mail["getBlockTile"]>("GET", `/mail/v1/blocks/${id}/tile`, {
      key: c.mailReporting,
      headers: { "if-none-match": etag ?? "" },
    });
    expect(redesigned.status, describeResponse(redesigned)).toBe(200);
    expect(redesigned.json.data.html?.toLowerCase()).toContain("#aa1122");
    const etag2 = redesigned.headers.get("etag");
    expect(etag2).not.toBe(etag);

    await updateBlock(h.db, id, { description: "Changed" }, h.clock.now());
    const bumped = await h.call("GET", `/mail/v1/blocks/${id}/tile`, { key: c.mailReporting });
    expect(bumped.headers.get("etag")).not.toBe(etag2);

    const other = await h.customer();
    expect((await h.call("GET", `/mail/v1/blocks/${id}/tile`, { key: other.mailReporting })).status).toBe(404);
    expect((await h.call("GET", "/mail/v1/blocks/not-a-uuid/tile", { key: c.mailReporting })).status).toBe(422);
  });
});

test("design rules: complete tokens with the customer's overrides; defaults for an account without rules", async () => {
  const fresh = await readyMailCustomer(h, "Design Co");
  const r = await h.call<Mail["getDesignRules"]>("GET", "/mail/v1/design-rules", { key: fresh.mailReporting });
  expect(r.status, describeResponse(r)).toBe(200);
  expect(r.json.data.color_primary).toBe("#0b6e4f");
  for (const key of [
    "color_background",
    "color_container",
    "color_text",
    "color_heading",
    "color_primary",
    "color_on_primary",
    "color_link",
    "color_footer_bg",
    "color_footer_text",
    "font_heading",
    "font_body",
    "font_size_base",
    "font_size_h1",
    "space_section",
    "container_width",
    "button_radius",
  ]) {
    expect(typeof r.json.data[key], key).toBe("string");
  }
  const plain = await h.customer();
  const defaults = await h.call<Mail["getDesignRules"]>("GET", "/mail/v1/design-rules", { key: plain.mailReporting });
  expect(defaults.json.data.color_primary).not.toBe("#0b6e4f");
  expect(Object.keys(defaults.json.data).length).toBe(Object.keys(r.json.data).length);
});

describe("POST /v1/render/preview", () => {
  const stack = () => [
    { block_id: byslug("heading").id, values: { title: "Hello {{first_name}}", subtitle: "" } },
    { block_id: byslug("button").id, values: { label: "Shop now", url: "https://shop.example.com/spring" } },
  ];

  test("returns MJML, compiled HTML, no errors, stub false, with design, brand and the newsletter footer", async () => {
    const r = await h.call<Mail["renderPreview"]>("POST", "/mail/v1/render/preview", {
      key: c.mailFull,
      body: { blocks: stack(), values: { first_name: "" } },
    });
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data.stub).toBe(false);
    expect(r.json.data.errors).toEqual([]);
    expect(r.json.data.mjml).toContain("<mjml>");
    const html: string = r.json.data.html;
    expect(html).toContain("<!doctype html>");
    expect(html).toContain("Shop now");
    expect(html).toContain("https://shop.example.com/spring");
    expect(html).toContain("Demo GmbH");
    expect(html).toContain("{{{ pm:unsubscribe }}}");
    // The empty subtitle's conditional section is left out entirely.
    expect(html).not.toContain("color_text_muted");
    expect(html).not.toMatch(/<p style="margin:8px 0 0;/);
  });

  test("403 for a block not enabled for the account, 422 for a javascript: URL, 400 without blocks, 403 for a reporting key", async () => {
    const other = await h.customer();
    const notEnabled = await h.call<ErrorEnvelope>("POST", "/mail/v1/render/preview", { key: other.mailFull, body: { blocks: stack() } });
    expect(notEnabled.status, describeResponse(notEnabled)).toBe(403);
    // The spec's error body: one `{ path, message }` per stack entry naming a block the account cannot use.
    expect(notEnabled.json.error.details).toEqual(
      stack().map((entry: { block_id: string }, i: number) => ({ path: `blocks.${i}.block_id`, message: expect.stringContaining(entry.block_id) })),
    );
    const js = await h.call<ErrorEnvelope<ErrorDetail[]>>("POST", "/mail/v1/render/preview", {
      key: c.mailFull,
      body: { blocks: [{ block_id: byslug("button").id, values: { label: "x", url: "javascript:alert(1)" } }] },
    });
    expect(js.status, describeResponse(js)).toBe(422);
    expect(js.json.error.details[0].path).toContain("blocks.0");
    const none = await h.call("POST", "/mail/v1/render/preview", { key: c.mailFull, body: {} });
    expect(none.status, describeResponse(none)).toBe(400);
    const empty = await h.call("POST", "/mail/v1/render/preview", { key: c.mailFull, body: { blocks: [] } });
    expect(empty.status, describeResponse(empty)).toBe(422);
    const reporting = await h.call("POST", "/mail/v1/render/preview", { key: c.mailReporting, body: { blocks: stack() } });
    expect(reporting.status).toBe(403);
  });

  test("MJML findings come back in errors with line and tagName; the HTML is still produced", async () => {
    const created = await h.admin<Admin["createMailBlock"]>("POST", "/v1/mail/blocks", {
      slug: "odd-block",
      name: "Odd block",
      description: null,
      mjml: '<mj-section>\n  <mj-column>\n    <mj-text colour="red">{{body}}</mj-text>\n  </mj-column>\n</mj-section>',
      params: [{ name: "body", label: "Body", type: "text", required: false, fallback: null, hide_if_missing: false, example: "x" }],
      tags: [],
      series: null,
    });
    expect(created.status, describeResponse(created)).toBe(201);
    await h.admin("PUT", `/v1/customers/${c.id}/mail/blocks/${created.json.data.id}`);
    const r = await h.call<Mail["renderPreview"]>("POST", "/mail/v1/render/preview", {
      key: c.mailFull,
      body: { blocks: [{ block_id: created.json.data.id, values: { body: "Hi" } }] },
    });
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data.errors.length).toBeGreaterThan(0);
    expect(r.json.data.errors[0]).toMatchObject({ line: expect.any(Number), tagName: "mj-text" });
    expect(r.json.data.errors[0].message).toMatch(/colour/);
    expect(r.json.data.html).toContain("Hi");
  });

  test("values are HTML-escaped", async () => {
    const r = await h.call<Mail["renderPreview"]>("POST", "/mail/v1/render/preview", {
      key: c.mailFull,
      body: { blocks: [{ block_id: byslug("heading").id, values: { title: '<script>alert("x")</script>', subtitle: "" } }] },
    });
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data.html).not.toContain("<script>alert");
    expect(r.json.data.html).toContain("&lt;script&gt;");
  });
});
