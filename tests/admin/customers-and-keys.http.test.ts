import { afterAll, beforeAll, expect, test } from "vitest";
import { ConfigError, loadConfig } from "../../lib/core/config";
import { createHarness, describeResponse, type CallResult, type Harness, type Admin, type ErrorEnvelope, type ErrorDetail, type Ads } from "../helpers/harness";

type Customer = Admin["getCustomer"]["data"];

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

test("operator token required: missing or wrong → 401", async () => {
  expect((await h.call("GET", "/admin/v1/customers")).status).toBe(401);
  const wrong = await h.call<ErrorEnvelope>("GET", "/admin/v1/customers", { key: "x".repeat(40) });
  expect(wrong.status, describeResponse(wrong)).toBe(401);
  expect(wrong.json.error.code).toBe("unauthorized");
});

test("customers: create, get, list with cursor, patch settings", async () => {
  const created = await h.admin<Admin["createCustomer"]>("POST", "/v1/customers", { name: "Acme", mail: { monthly_limit: 500 } });
  expect(created.status, describeResponse(created)).toBe(201);
  expect(created.json.data).toMatchObject({
    name: "Acme",
    mail: { sending_blocked: false, mode: "live", monthly_limit: 500, max_per_job: 50000 },
    ads: { account_state: "active", stage: "starter" },
  });
  const id = created.json.data.id;
  expect((await h.admin<Admin["getCustomer"]>("GET", `/v1/customers/${id}`)).json.data).toEqual(created.json.data);

  const patched = await h.admin<Admin["updateCustomer"]>("PATCH", `/v1/customers/${id}`, {
    mail: { sending_blocked: true, mode: "sandbox" },
    ads: { account_state: "overdue", stage: "growth" },
  });
  expect(patched.status, describeResponse(patched)).toBe(200);
  expect(patched.json.data.mail).toMatchObject({ sending_blocked: true, mode: "sandbox", monthly_limit: 500 });
  expect(patched.json.data.ads).toMatchObject({ account_state: "overdue", stage: "growth" });

  for (let i = 0; i < 3; i++) await h.admin("POST", "/v1/customers", { name: `Paged ${i}` });
  const seen: string[] = [];
  let after: string | null = null;
  do {
    const page: CallResult<Admin["listCustomers"]> = await h.admin<Admin["listCustomers"]>("GET", `/v1/customers?limit=2${after ? `&after=${after}` : ""}`);
    expect(page.status, describeResponse(page)).toBe(200);
    seen.push(...page.json.data.map((c) => c.id));
    after = page.json.paging.after;
    expect(page.json.paging.has_next).toBe(after !== null);
  } while (after);
  expect(new Set(seen).size).toBe(seen.length);
  expect(seen).toContain(id);
});

test("customers are searched by name part or id prefix and sorted on the server; a cursor keeps its sort", async () => {
  const names = ["Zeta 100% Shop", "alpha_search Shop", "Alpha Search Two"];
  const made: Customer[] = [];
  for (const name of names) made.push((await h.admin<Admin["createCustomer"]>("POST", "/v1/customers", { name })).json.data);
  const byName = await h.admin<Admin["listCustomers"]>("GET", "/v1/customers?q=ALPHA&sort=name");
  expect(byName.status, describeResponse(byName)).toBe(200);
  expect(byName.json.data.map((c) => c.name)).toEqual(["Alpha Search Two", "alpha_search Shop"]);
  // `%` and `_` are literal, not wildcards.
  expect((await h.admin<Admin["listCustomers"]>("GET", `/v1/customers?q=${encodeURIComponent("100%")}`)).json.data.map((c) => c.name)).toEqual([
    "Zeta 100% Shop",
  ]);
  expect((await h.admin<Admin["listCustomers"]>("GET", "/v1/customers?q=a_s")).json.data.map((c) => c.name)).toEqual(["alpha_search Shop"]);
  const target = made[2] as Customer;
  const byId = await h.admin<Admin["listCustomers"]>("GET", `/v1/customers?q=${target.id.slice(0, 8).toUpperCase()}`);
  expect(byId.json.data.map((c) => c.id)).toContain(target.id);
  // Descending by name, one at a time: no item twice, none skipped.
  const seen: string[] = [];
  let after: string | null = null;
  do {
    const page: CallResult<Admin["listCustomers"]> = await h.admin<Admin["listCustomers"]>(
      "GET",
      `/v1/customers?q=shop&sort=-name&limit=1${after ? `&after=${after}` : ""}`,
    );
    expect(page.status, describeResponse(page)).toBe(200);
    seen.push(...page.json.data.map((c) => c.name));
    after = page.json.paging.after;
  } while (after);
  expect(seen).toEqual(["Zeta 100% Shop", "alpha_search Shop"]);
  const first = await h.admin<Admin["listCustomers"]>("GET", "/v1/customers?q=shop&sort=-name&limit=1");
  const wrongSort = await h.admin<ErrorEnvelope>("GET", `/v1/customers?q=shop&sort=created_at&limit=1&after=${first.json.paging.after}`);
  expect(wrongSort.status, describeResponse(wrongSort)).toBe(400);
  expect(wrongSort.json.error.message).toContain("sort");
  expect((await h.admin("GET", "/v1/customers?sort=colour")).status).toBe(422);
  expect((await h.admin("GET", "/v1/customers?after=garbage")).status).toBe(400);
});

test("one source for the ads plan stage: the customer's upgrade shows in the admin settings, the operator's setting in the plan", async () => {
  const c = await h.customer("Stage source");
  const upgraded = await h.call("POST", "/ads/v1/plan/upgrade", { key: c.adsFull, body: { stage: "growth" } });
  expect(upgraded.status, describeResponse(upgraded)).toBe(200);
  const read = await h.admin<Admin["getCustomer"]>("GET", `/v1/customers/${c.id}`);
  expect(read.json.data.ads.stage).toBe("growth");
  const listed = await h.admin<Admin["listCustomers"]>("GET", `/v1/customers?q=${c.id}`);
  expect(listed.json.data.map((x) => x.ads.stage)).toEqual(["growth"]);
  const set = await h.admin<Admin["updateCustomer"]>("PATCH", `/v1/customers/${c.id}`, { ads: { stage: "starter" } });
  expect(set.json.data.ads.stage).toBe("starter");
  const plan = await h.call<Ads["getPlan"]>("GET", "/ads/v1/plan", { key: c.adsReporting });
  expect(plan.status, describeResponse(plan)).toBe(200);
  expect(plan.json.data).toMatchObject({ stage: "starter", selected_stage: "starter", scheduled_change: null });
});

test("customer errors: unknown id 404, bad id 422, bad settings 422, empty name 422, unknown field 422", async () => {
  expect((await h.admin("GET", "/v1/customers/7d0c2f0e-8a5b-4c8e-9a59-2f5d3c1b0a99")).status).toBe(404);
  expect((await h.admin("GET", "/v1/customers/not-a-uuid")).status).toBe(422);
  const c = await h.admin<Admin["createCustomer"]>("POST", "/v1/customers", { name: "Errs" });
  const bad = await h.admin<ErrorEnvelope<ErrorDetail[]>>("PATCH", `/v1/customers/${c.json.data.id}`, { ads: { account_state: "bankrupt" } });
  expect(bad.status, describeResponse(bad)).toBe(422);
  expect(bad.json.error.details[0].path).toBe("ads.account_state");
  expect((await h.admin("POST", "/v1/customers", { name: "  " })).status).toBe(422);
  expect((await h.admin("PATCH", `/v1/customers/${c.json.data.id}`, { colour: "red" })).status).toBe(422);
  expect((await h.admin("POST", "/v1/customers", {})).status).toBe(400);
  expect((await h.admin("GET", "/v1/customers?after=garbage")).status).toBe(400);
});

test("keys: issued once with the service prefix, listed without secrets, revoked", async () => {
  const c = await h.admin<Admin["createCustomer"]>("POST", "/v1/customers", { name: "Keys" });
  const id = c.json.data.id;
  const mail = await h.admin<Admin["issueApiKey"]>("POST", `/v1/customers/${id}/keys`, { service: "mail", scope: "reporting" });
  expect(mail.status, describeResponse(mail)).toBe(201);
  expect(mail.json.data.key).toMatch(/^mk_live_[0-9A-Za-z]{32}$/);
  expect(mail.json.data.prefix).toBe(mail.json.data.key.slice(0, 12));
  const ads = await h.admin<Admin["issueApiKey"]>("POST", `/v1/customers/${id}/keys`, { service: "ads", scope: "full", label: "  shop backend " });
  expect(ads.json.data.key).toMatch(/^ak_live_/);
  expect(ads.json.data).toMatchObject({ label: "shop backend", last_used_at: null });
  expect((await h.call("GET", "/ads/v1/plan", { key: ads.json.data.key })).status).toBe(200);
  const list = await h.admin<Admin["listApiKeys"]>("GET", `/v1/customers/${id}/keys`);
  expect(list.json.data).toHaveLength(2);
  const listedAds = list.json.data.find((k) => k.id === ads.json.data.id);
  expect(listedAds?.label).toBe("shop backend");
  expect(Date.parse(listedAds?.last_used_at ?? "")).not.toBeNaN();
  expect(list.json.data.find((k: { id: string }) => k.id === mail.json.data.id)).toMatchObject({ label: null, last_used_at: null });
  expect((await h.admin("POST", `/v1/customers/${id}/keys`, { service: "ads", scope: "full", label: "" })).status).toBe(422);
  expect(list.text).not.toContain(mail.json.data.key);
  expect(list.json.data[0]).not.toHaveProperty("key");
  expect((await h.admin<Admin["revokeApiKey"]>("DELETE", `/v1/keys/${mail.json.data.id}`)).json.data.revoked_at).not.toBeNull();
  expect((await h.admin("DELETE", "/v1/keys/7d0c2f0e-8a5b-4c8e-9a59-2f5d3c1b0a99")).status).toBe(404);
  expect((await h.admin("POST", "/v1/customers/7d0c2f0e-8a5b-4c8e-9a59-2f5d3c1b0a99/keys", { service: "mail", scope: "full" })).status).toBe(404);
  expect((await h.admin("POST", `/v1/customers/${id}/keys`, { service: "sms", scope: "full" })).status).toBe(422);
});

test("a bad environment stops start-up with a message naming the variable", () => {
  expect(() => loadConfig({ PORT: "eighty" })).toThrow(ConfigError);
  expect(() => loadConfig({ DATABASE_URL: "mysql://x" })).toThrow(/DATABASE_URL/);
  expect(() => loadConfig({ ENCRYPTION_KEY: "short" })).toThrow(/ENCRYPTION_KEY/);
  expect(loadConfig({}).PORT).toBe(3000);
  expect(loadConfig({ PORT: "4000" }).PORT).toBe(4000);
});
