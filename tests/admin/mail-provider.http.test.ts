import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { mailProviderConfigs } from "../../lib/db/schema";
import { createHarness, describeResponse, type Harness, type ErrorEnvelope, type Admin, type ErrorDetail } from "../helpers/harness";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

const frame = {
  header_mjml: null,
  newsletter_footer_mjml: '<mj-section><mj-column><mj-text><a href="{{{ pm:unsubscribe }}}">Unsubscribe</a></mj-text></mj-column></mj-section>',
  transactional_footer_mjml: "<mj-section><mj-column><mj-text>{{brand.imprint}}</mj-text></mj-column></mj-section>",
  brand: { company_name: "Acme GmbH", logo_url: null, website_url: null, imprint: "Acme GmbH, Berlin", address: "Example Street 1, Berlin" },
};

type Item = { item: string; status: "green" | "warning" | "red"; message: string };

async function readiness(customerId: string): Promise<{ ready: boolean; red: string[] }> {
  const r = await h.admin<Admin["getCustomerMailReadiness"]>("GET", `/v1/customers/${customerId}/mail/readiness`);
  expect(r.status, describeResponse(r)).toBe(200);
  const items = r.json.data.items as Item[];
  expect(items.map((i) => i.item)).toEqual([
    "server_token",
    "transactional_stream",
    "broadcast_stream",
    "verified_senders",
    "default_newsletter_from",
    "newsletter_footer",
    "transactional_footer",
    "postmark_check",
    "return_path",
    "complaint_rate",
  ]);
  for (const item of items) expect(item.message === "ok", JSON.stringify(item)).toBe(item.status === "green");
  return { ready: r.json.data.ready, red: items.filter((i) => i.status === "red").map((i) => i.item) };
}

test("an unconfigured customer: empty configuration, every item red", async () => {
  const c = await h.customer();
  const r = await h.admin<Admin["getCustomerMailProvider"]>("GET", `/v1/customers/${c.id}/mail/provider`);
  expect(r.status, describeResponse(r)).toBe(200);
  expect(r.json.data).toEqual({
    server_token_set: false,
    account_token_set: false,
    server_token_state: { set: false, changed_at: null, changed_by: null },
    account_token_state: { set: false, changed_at: null, changed_by: null },
    transactional_stream: null,
    broadcast_stream: null,
    verified_senders: [],
    verified_domains: [],
    default_newsletter_from: null,
    default_transactional_from: null,
    bulk_api_enabled: false,
    events_on_unconfigured_streams: { count: 0, last_received_at: null, streams: [] },
  });
  expect(await readiness(c.id)).toEqual({ ready: false, red: expect.arrayContaining(["server_token", "newsletter_footer"]) });
  expect((await readiness(c.id)).red).toHaveLength(7);
});

test("the server token is write-only: never in a response, sealed in the database, never logged", async () => {
  const c = await h.customer();
  const token = `tok-${crypto.randomUUID()}`;
  const patched = await h.admin<Admin["updateCustomerMailProvider"]>("PATCH", `/v1/customers/${c.id}/mail/provider`, { server_token: token });
  expect(patched.status, describeResponse(patched)).toBe(200);
  expect(patched.json.data.server_token_set).toBe(true);
  expect(patched.text).not.toContain(token);
  const got = await h.admin<Admin["getCustomerMailProvider"]>("GET", `/v1/customers/${c.id}/mail/provider`);
  expect(got.text, describeResponse(got)).not.toContain(token);
  expect(got.json.data).not.toHaveProperty("server_token");

  const [row] = await h.db.select().from(mailProviderConfigs).where(eq(mailProviderConfigs.customerId, c.id));
  expect(row?.serverTokenSealed).toBeTruthy();
  expect(row?.serverTokenSealed).not.toContain(token);
  expect(JSON.stringify(row)).not.toContain(token);
  expect(h.deps.secrets.open(row?.serverTokenSealed ?? "")).toBe(token);
  expect(h.logLines.join("\n")).not.toContain(token);

  // Changing other fields keeps the token.
  await h.admin("PATCH", `/v1/customers/${c.id}/mail/provider`, { broadcast_stream: "broadcast" });
  const [after] = await h.db.select().from(mailProviderConfigs).where(eq(mailProviderConfigs.customerId, c.id));
  expect(after?.serverTokenSealed).toBe(row?.serverTokenSealed);
});

test("readiness turns from red to green item by item", async () => {
  const c = await h.customer();
  const patch = async (body: Record<string, unknown>) => {
    const r = await h.admin<Admin["updateCustomerMailProvider"]>("PATCH", `/v1/customers/${c.id}/mail/provider`, body);
    expect(r.status, describeResponse(r)).toBe(200);
    return r.json.data;
  };
  expect((await readiness(c.id)).red).toHaveLength(7);

  await patch({ server_token: "POSTMARK_API_TEST" });
  expect((await readiness(c.id)).red).not.toContain("server_token");

  await patch({ transactional_stream: "outbound", broadcast_stream: "broadcast" });
  expect((await readiness(c.id)).red).toEqual(["verified_senders", "default_newsletter_from", "newsletter_footer", "transactional_footer"]);

  const config = await patch({ verified_domains: ["Acme.Example"], verified_senders: ["Billing@Other.Example"] });
  expect(config).toMatchObject({ verified_domains: ["acme.example"], verified_senders: ["billing@other.example"] });
  expect((await readiness(c.id)).red).toEqual(["default_newsletter_from", "newsletter_footer", "transactional_footer"]);

  // A default sender outside the verified senders and domains is stored, but stays red.
  await patch({ default_newsletter_from: { email: "news@unverified.example", name: "Acme" } });
  expect((await readiness(c.id)).red).toContain("default_newsletter_from");
  await patch({
    default_newsletter_from: { email: "news@acme.example", name: "Acme" },
    default_transactional_from: { email: "billing@other.example", name: "Acme Billing" },
  });
  expect((await readiness(c.id)).red).toEqual(["newsletter_footer", "transactional_footer"]);

  const frameSet = await h.admin("PUT", `/v1/customers/${c.id}/mail/frame`, frame);
  expect(frameSet.status, describeResponse(frameSet)).toBe(200);
  expect(await readiness(c.id)).toEqual({ ready: true, red: [] });

  const final = await h.admin<Admin["getCustomerMailProvider"]>("GET", `/v1/customers/${c.id}/mail/provider`);
  expect(final.json.data, describeResponse(final)).toEqual({
    server_token_set: true,
    account_token_set: false,
    // The harness's admin credential is the bootstrap token on a fresh database and the break-glass one once an owner
    // exists (a shared PostgreSQL database, where other files made owners): either way no operator, and never a value.
    server_token_state: {
      set: true,
      changed_at: expect.any(String),
      changed_by: expect.objectContaining({ actor_type: expect.stringMatching(/^(bootstrap|break_glass)$/) }),
    },
    account_token_state: { set: false, changed_at: null, changed_by: null },
    transactional_stream: "outbound",
    broadcast_stream: "broadcast",
    verified_senders: ["billing@other.example"],
    verified_domains: ["acme.example"],
    default_newsletter_from: { email: "news@acme.example", name: "Acme" },
    default_transactional_from: { email: "billing@other.example", name: "Acme Billing" },
    bulk_api_enabled: false,
    events_on_unconfigured_streams: { count: 0, last_received_at: null, streams: [] },
  });

  // Taking the verified domain away turns the default sender red again.
  await patch({ verified_domains: [] });
  expect((await readiness(c.id)).red).toEqual(["default_newsletter_from"]);
});

test.each([
  ["a bad sender address", { verified_senders: ["not-an-address"] }, "verified_senders.0"],
  ["a bad domain", { verified_domains: ["acme"] }, "verified_domains.0"],
  ["a stream id with spaces", { broadcast_stream: "my stream" }, "broadcast_stream"],
  ["an empty token", { server_token: "  " }, "server_token"],
  ["a default sender without name", { default_newsletter_from: { email: "news@acme.example", name: "" } }, "default_newsletter_from.name"],
  ["the read-only flag", { server_token_set: true }, ""],
  ["nothing at all", {}, ""],
])("%s answers 422", async (_name, body, path) => {
  const c = await h.customer();
  const r = await h.admin<ErrorEnvelope<ErrorDetail[]>>("PATCH", `/v1/customers/${c.id}/mail/provider`, body);
  expect(r.status, describeResponse(r)).toBe(422);
  if (path) expect(r.json.error.details.map((d: { path: string }) => d.path)).toContain(path);
});
