import { afterAll, beforeAll, test } from "vitest";
import { createHarness, type Harness } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";

let h: Harness;
let c: Awaited<ReturnType<typeof readyMailCustomer>>;
beforeAll(async () => {
  h = await createHarness({ env: { AUTH_FAILURES_PER_MINUTE: "1000000" } });
  c = await readyMailCustomer(h, "Probe");
});
afterAll(async () => h.close());

test("probe", async () => {
  const show = async (method: string, path: string, key: string | null, body?: Uint8Array) => {
    const headers: Record<string, string> = { };
    if (key) headers.authorization = `Bearer ${key}`;
    if (body) headers["content-type"] = "application/json";
    const r = await h.root.request(path, { method, headers, body });
    console.log(method, path, r.status, [...r.headers].map(([k, v]) => `${k}=${v}`).join(" ").slice(0, 300), (await r.text()).slice(0, 300));
  };
  for (const seg of ["%ff%fe", "%ED%A0%80", "%C0%AF", "%E0%80%80"]) {
    await show("GET", `/admin/v1/customers/${seg}`, h.deps.adminToken);
    await show("PATCH", `/admin/v1/customers/${seg}`, h.deps.adminToken, new TextEncoder().encode("{}"));
    await show("GET", `/mail/v1/templates/${seg}`, c.mailFull);
    await show("GET", `/ads/v1/adsets/${seg}`, c.adsFull);
    await show("GET", `/console/api/customers/${seg}`, null);
    await show("GET", `/console/${seg}`, null);
    await show("GET", `/${seg}`, null);
    await show("GET", `/api/postmark/webhook/${seg}`, null);
  }
  const bad = (s: string) => new Uint8Array([...new TextEncoder().encode('{"name":"a'), ...[0xed, 0xa0, 0x80], ...new TextEncoder().encode(`"${s}}`)]);
  await show("POST", "/mail/v1/templates", c.mailFull, bad(',"subject":"x","blocks":[]'));
  await show("POST", "/admin/v1/customers", h.deps.adminToken, bad(""));
  await show("GET", "/ads/v1/nothing", c.adsFull);
  await show("POST", "/ads/v1/adsets", c.adsFull, new TextEncoder().encode("{"));
  await show("GET", "/mail/v1/templates?after=%ff", c.mailFull);
  await show("GET", "/ads/v1/adsets?after=%ff", c.adsFull);
}, 120000);
