import { afterAll, beforeAll, expect, test } from "vitest";
import {
  createHarness,
  describeResponse,
  type Harness,
  type Admin,
  type ErrorEnvelope,
  type Mail,
  type MissingDetails,
  type ErrorDetail,
} from "../helpers/harness";

let h: Harness;
let contentBlock: string;
let footerBlock: string;
beforeAll(async () => {
  h = await createHarness();
  const content = await h.admin<Admin["createMailBlock"]>("POST", "/v1/mail/blocks", {
    slug: "text",
    name: "Text",
    mjml: "<mj-section><mj-column><mj-text>{{body}}</mj-text></mj-column></mj-section>",
    params: [{ name: "body", label: "Text", type: "text", required: true, fallback: null, hide_if_missing: false, example: "Hello" }],
  });
  const footer = await h.admin<Admin["createMailBlock"]>("POST", "/v1/mail/blocks", {
    slug: "footer-plain",
    name: "Plain footer",
    mjml: "<mj-section><mj-column><mj-text>{{brand.imprint}}</mj-text></mj-column></mj-section>",
    tags: [{ slug: "footer", label: "Footer" }],
  });
  if (content.status !== 201 || footer.status !== 201) throw new Error(`block setup failed: ${content.text} ${footer.text}`);
  contentBlock = content.json.data.id;
  footerBlock = footer.json.data.id;
});
afterAll(async () => h.close());

const contract = [
  { name: "order_number", label: "Order number", type: "string", required: true, example: "A-10023" },
  { name: "tracking_url", label: "Tracking link", type: "url", required: false, example: "https://track.example.com/A-10023" },
];

function templateBody(overrides: Record<string, unknown> = {}) {
  return {
    name: "Order confirmation",
    subject: "Your order {{order_number}}",
    blocks: [{ block_id: contentBlock, values: { body: "Order {{order_number}} is confirmed.{{#tracking_url}} Track it: {{tracking_url}}{{/tracking_url}}" } }],
    params: contract,
    from: { email: "orders@acme.example", name: "Acme Orders" },
    ...overrides,
  };
}

async function customerWithBlocks() {
  const c = await h.customer();
  for (const id of [contentBlock, footerBlock]) {
    const r = await h.admin("PUT", `/v1/customers/${c.id}/mail/blocks/${id}`);
    expect(r.status, describeResponse(r)).toBe(200);
  }
  return c;
}

test("an admin template with a parameter contract: created, listed, read by the customer but not changeable there", async () => {
  const c = await customerWithBlocks();
  const created = await h.admin<Admin["createCustomerMailTemplate"]>("POST", `/v1/customers/${c.id}/mail/templates`, templateBody());
  expect(created.status, describeResponse(created)).toBe(201);
  expect(created.json.data).toMatchObject({
    name: "Order confirmation",
    kind: "transactional",
    origin: "admin",
    status: "active",
    subject: "Your order {{order_number}}",
    params: contract,
    from: { email: "orders@acme.example", name: "Acme Orders" },
    version: 1,
  });
  const id = created.json.data.id;

  const got = await h.admin<Admin["getCustomerMailTemplate"]>("GET", `/v1/customers/${c.id}/mail/templates/${id}`);
  expect(got.json.data, describeResponse(got)).toEqual(created.json.data);
  const list = await h.admin<Admin["listCustomerMailTemplates"]>("GET", `/v1/customers/${c.id}/mail/templates`);
  expect(list.status, describeResponse(list)).toBe(200);
  expect(list.json.data.map((t: { id: string }) => t.id)).toEqual([id]);
  expect(list.json.paging).toEqual({ after: null, has_next: false });

  const customerView = await h.call<Mail["getTemplate"]>("GET", `/mail/v1/templates/${id}`, { key: c.mailReporting });
  expect(customerView.status, describeResponse(customerView)).toBe(200);
  expect(customerView.json.data).toMatchObject({ origin: "admin", params: contract });
  const customerPut = await h.call("PUT", `/mail/v1/templates/${id}`, { key: c.mailFull, body: { name: "Mine now" } });
  expect(customerPut.status, describeResponse(customerPut)).toBe(403);
});

test("a newsletter admin template without a contract; the list pages newest first", async () => {
  const c = await customerWithBlocks();
  const first = await h.admin<Admin["createCustomerMailTemplate"]>(
    "POST",
    `/v1/customers/${c.id}/mail/templates`,
    templateBody({ name: "First", kind: "newsletter", params: undefined, from: undefined, status: "draft" }),
  );
  expect(first.status, describeResponse(first)).toBe(201);
  expect(first.json.data).toMatchObject({ kind: "newsletter", params: [], from: null, status: "draft" });
  const second = await h.admin<Admin["createCustomerMailTemplate"]>("POST", `/v1/customers/${c.id}/mail/templates`, templateBody({ name: "Second" }));
  expect(second.status, describeResponse(second)).toBe(201);
  const page1 = await h.admin<Admin["listCustomerMailTemplates"]>("GET", `/v1/customers/${c.id}/mail/templates?limit=1`);
  expect(page1.json.paging.has_next, describeResponse(page1)).toBe(true);
  const page2 = await h.admin<Admin["listCustomerMailTemplates"]>("GET", `/v1/customers/${c.id}/mail/templates?limit=1&after=${page1.json.paging.after}`);
  expect([...page1.json.data, ...page2.json.data].map((t: { id: string }) => t.id).sort()).toEqual([first.json.data.id, second.json.data.id].sort());
  expect(page2.json.paging.has_next).toBe(false);
});

test("PATCH changes the contract, subject and status and bumps the version; kind stays", async () => {
  const c = await customerWithBlocks();
  const id = (await h.admin<Admin["createCustomerMailTemplate"]>("POST", `/v1/customers/${c.id}/mail/templates`, templateBody())).json.data.id;
  const newContract = [
    { ...contract[0], required: false },
    { name: "first_name", label: "First name", type: "string", required: true, example: "Jane" },
  ];
  const patched = await h.admin<Admin["updateCustomerMailTemplate"]>("PATCH", `/v1/customers/${c.id}/mail/templates/${id}`, {
    params: newContract,
    subject: "Hi {{first_name}}",
    from: null,
  });
  expect(patched.status, describeResponse(patched)).toBe(200);
  expect(patched.json.data).toMatchObject({ params: newContract, subject: "Hi {{first_name}}", from: null, version: 2, kind: "transactional" });
  const archived = await h.admin<Admin["updateCustomerMailTemplate"]>("PATCH", `/v1/customers/${c.id}/mail/templates/${id}`, { status: "archived" });
  expect(archived.json.data, describeResponse(archived)).toMatchObject({ status: "archived", version: 3 });

  const kind = await h.admin("PATCH", `/v1/customers/${c.id}/mail/templates/${id}`, { kind: "newsletter" });
  expect(kind.status, describeResponse(kind)).toBe(422);
  const empty = await h.admin("PATCH", `/v1/customers/${c.id}/mail/templates/${id}`, {});
  expect(empty.status, describeResponse(empty)).toBe(422);
});

test("an operator may archive a builder template, but a contract belongs to admin templates only", async () => {
  const c = await customerWithBlocks();
  const saved = await h.call<Mail["createTemplate"]>("POST", "/mail/v1/templates", {
    key: c.mailFull,
    body: { name: "Spring", subject: "News", blocks: [{ block_id: contentBlock, values: { body: "Hi" } }] },
  });
  expect(saved.status, describeResponse(saved)).toBe(201);
  const id = saved.json.data.id;
  const archived = await h.admin<Admin["updateCustomerMailTemplate"]>("PATCH", `/v1/customers/${c.id}/mail/templates/${id}`, { status: "archived" });
  expect(archived.status, describeResponse(archived)).toBe(200);
  expect(archived.json.data).toMatchObject({ origin: "customer", status: "archived" });
  const withContract = await h.admin<ErrorEnvelope<ErrorDetail[]>>("PATCH", `/v1/customers/${c.id}/mail/templates/${id}`, { params: contract });
  expect(withContract.status, describeResponse(withContract)).toBe(422);
  expect(withContract.json.error.details[0].path).toBe("params");
});

test.each([
  ["duplicate contract names", { params: [contract[0], { ...contract[0], label: "Again" }] }, 422, "params.1.name"],
  ["an unknown contract type", { params: [{ ...contract[0], type: "number" }] }, 422, "params.0.type"],
  ["a javascript: example of a url parameter", { params: [{ ...contract[1], example: "javascript:alert(1)" }] }, 422, "params.0.example"],
  ["unbalanced sections in the subject", { subject: "{{#order_number}}Your order" }, 422, "subject"],
  ["an empty stack", { blocks: [] }, 422, "blocks"],
  ["an unknown kind", { kind: "sms" }, 422, "kind"],
])("create with %s answers %i", async (_name, overrides, status, path) => {
  const c = await customerWithBlocks();
  const r = await h.admin<ErrorEnvelope<ErrorDetail[]>>("POST", `/v1/customers/${c.id}/mail/templates`, templateBody(overrides));
  expect(r.status, describeResponse(r)).toBe(status);
  expect(r.json.error.details.map((d: { path: string }) => d.path)).toContain(path);
});

test("the stack: blocks not enabled 403 naming them, footer blocks 422", async () => {
  const c = await h.customer();
  const notEnabled = await h.admin<ErrorEnvelope<ErrorDetail[]>>("POST", `/v1/customers/${c.id}/mail/templates`, templateBody());
  expect(notEnabled.status, describeResponse(notEnabled)).toBe(403);
  expect(notEnabled.json.error.details.length).toBeGreaterThan(0);
  for (const detail of notEnabled.json.error.details)
    expect(detail).toEqual({ path: expect.stringMatching(/^blocks\.\d+\.block_id$/), message: expect.stringContaining(contentBlock) });

  const withFooter = await customerWithBlocks();
  const footer = await h.admin<ErrorEnvelope<ErrorDetail[]>>(
    "POST",
    `/v1/customers/${withFooter.id}/mail/templates`,
    templateBody({ blocks: [{ block_id: footerBlock, values: {} }] }),
  );
  expect(footer.status, describeResponse(footer)).toBe(422);
  expect(footer.json.error.details[0].path).toBe("blocks.0.block_id");
});

test("another customer's template and unknown ids answer 404", async () => {
  const owner = await customerWithBlocks();
  const other = await customerWithBlocks();
  const id = (await h.admin<Admin["createCustomerMailTemplate"]>("POST", `/v1/customers/${owner.id}/mail/templates`, templateBody())).json.data.id;
  expect((await h.admin("GET", `/v1/customers/${other.id}/mail/templates/${id}`)).status).toBe(404);
  const patched = await h.admin("PATCH", `/v1/customers/${other.id}/mail/templates/${id}`, { name: "Stolen" });
  expect(patched.status, describeResponse(patched)).toBe(404);
  expect((await h.admin<Admin["getCustomerMailTemplate"]>("GET", `/v1/customers/${owner.id}/mail/templates/${id}`)).json.data.name).toBe("Order confirmation");
  expect((await h.admin("GET", `/v1/customers/${owner.id}/mail/templates/7d0c2f0e-8a5b-4c8e-9a59-2f5d3c1b0a99`)).status).toBe(404);
});

test("set up through the admin API alone, a customer goes from 403 naming what is missing to sending", async () => {
  const c = await customerWithBlocks();
  const id = (await h.admin<Admin["createCustomerMailTemplate"]>("POST", `/v1/customers/${c.id}/mail/templates`, templateBody())).json.data.id;
  const send = <T = Mail["sendTemplate"]>() =>
    h.call<T>("POST", `/mail/v1/templates/${id}/send`, { key: c.mailFull, body: { to: "jane@example.com", params: { order_number: "A-1" } } });

  const refused = await send<ErrorEnvelope<MissingDetails>>();
  expect(refused.status, describeResponse(refused)).toBe(403);
  expect(refused.json.error.details.missing).toHaveLength(7);

  const provider = await h.admin("PATCH", `/v1/customers/${c.id}/mail/provider`, {
    server_token: "POSTMARK_API_TEST",
    transactional_stream: "outbound",
    broadcast_stream: "broadcast",
    verified_domains: ["acme.example"],
    default_newsletter_from: { email: "news@acme.example", name: "Acme" },
  });
  expect(provider.status, describeResponse(provider)).toBe(200);
  const stillRefused = await send<ErrorEnvelope<MissingDetails>>();
  expect(stillRefused.status, describeResponse(stillRefused)).toBe(403);
  expect(stillRefused.json.error.details.missing).toEqual(["newsletter_footer", "transactional_footer"]);

  const frame = await h.admin("PUT", `/v1/customers/${c.id}/mail/frame`, {
    header_mjml: null,
    newsletter_footer_mjml: '<mj-section><mj-column><mj-text><a href="{{{ pm:unsubscribe }}}">Unsubscribe</a></mj-text></mj-column></mj-section>',
    transactional_footer_mjml: "<mj-section><mj-column><mj-text>{{brand.imprint}}</mj-text></mj-column></mj-section>",
    brand: { company_name: "Acme GmbH", logo_url: null, website_url: null, imprint: "Acme GmbH, Berlin", address: "Berlin" },
  });
  expect(frame.status, describeResponse(frame)).toBe(200);
  const sent = await send();
  expect(sent.status, describeResponse(sent)).toBe(200);
  expect(sent.json.data.status).toBe("accepted");
});
