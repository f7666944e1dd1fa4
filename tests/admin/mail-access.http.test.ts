import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createHarness, describeResponse, type Harness, type ErrorEnvelope } from "../helpers/harness";

let h: Harness;
let customerKey: string;
beforeAll(async () => {
  h = await createHarness();
  customerKey = (await h.customer()).mailFull;
});
afterAll(async () => h.close());

const unknown = "7d0c2f0e-8a5b-4c8e-9a59-2f5d3c1b0a99";
const block = "b7beda4d-2265-4334-ba1f-176be459d030";

/** Valid bodies, so a 404 can only come from the unknown customer. */
const frame = {
  header_mjml: null,
  newsletter_footer_mjml: '<mj-section><mj-column><mj-text><a href="{{{ pm:unsubscribe }}}">Unsubscribe</a></mj-text></mj-column></mj-section>',
  transactional_footer_mjml: "<mj-section><mj-column><mj-text>Acme</mj-text></mj-column></mj-section>",
  brand: { company_name: "Acme", logo_url: null, website_url: null, imprint: "Acme", address: "Berlin" },
};
const template = { name: "T", subject: "S", blocks: [{ block_id: block, values: {} }] };

const perCustomer: [method: string, path: string, body?: unknown][] = [
  ["GET", "/mail/blocks"],
  ["PUT", `/mail/blocks/${block}`],
  ["DELETE", `/mail/blocks/${block}`],
  ["GET", "/mail/design-rules"],
  ["PUT", "/mail/design-rules", { overrides: {} }],
  ["GET", "/mail/frame"],
  ["PUT", "/mail/frame", frame],
  ["GET", "/mail/provider"],
  ["PATCH", "/mail/provider", { broadcast_stream: "broadcast" }],
  ["GET", "/mail/readiness"],
  ["GET", "/mail/templates"],
  ["POST", "/mail/templates", template],
  ["GET", `/mail/templates/${unknown}`],
  ["PATCH", `/mail/templates/${unknown}`, { name: "T" }],
];

const library: [method: string, path: string, body?: unknown][] = [
  ["POST", "/v1/mail/blocks", { slug: "x", name: "X", mjml: "<mj-section></mj-section>" }],
  ["GET", "/v1/mail/blocks"],
  ["GET", `/v1/mail/blocks/${block}`],
  ["PATCH", `/v1/mail/blocks/${block}`, { name: "X" }],
  ["DELETE", `/v1/mail/blocks/${block}`],
];

describe("without the operator token every mail admin route answers 401", () => {
  const routes: [method: string, path: string, body?: unknown][] = [
    ...library,
    ...perCustomer.map(([method, path, body]): [string, string, unknown] => [method, `/v1/customers/${unknown}${path}`, body]),
  ];
  test.each(routes)("%s %s", async (method, path, body) => {
    const missing = await h.call<ErrorEnvelope>(method, `/admin${path}`, { body });
    expect(missing.status, describeResponse(missing)).toBe(401);
    expect(missing.json.error.code).toBe("unauthorized");
    // A customer's mail key is no operator token.
    const withCustomerKey = await h.call(method, `/admin${path}`, { key: customerKey, body });
    expect(withCustomerKey.status, describeResponse(withCustomerKey)).toBe(401);
  });
});

describe("an unknown customer answers 404 on every per-customer route", () => {
  test.each(perCustomer)("%s %s", async (method, path, body) => {
    const r = await h.admin<ErrorEnvelope>(method, `/v1/customers/${unknown}${path}`, body);
    expect(r.status, describeResponse(r)).toBe(404);
    expect(r.json.error).toMatchObject({ code: "not_found", message: "Customer not found." });
  });

  test.each(perCustomer)("%s %s with a malformed id answers 422", async (method, path, body) => {
    const r = await h.admin(method, `/v1/customers/not-a-uuid${path}`, body);
    expect(r.status, describeResponse(r)).toBe(422);
  });
});
