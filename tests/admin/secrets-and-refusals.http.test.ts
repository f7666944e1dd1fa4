import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { backoffSeconds, SIGN_IN_BACKOFF } from "../../lib/admin/operators/sign-in-throttle";
import { auditLog } from "../../lib/db/schema";
import { createHarness, describeResponse, type Admin, type Harness } from "../helpers/harness";
import { makeOperator, type TestOperator } from "../helpers/operators";

/**
 * Least privilege for secrets, sessions and the record of refusals:
 * - every GET of the admin document, called with real seeded ids by each role, answers no seeded secret;
 *   only an admin's explicit reveal does, and the audit log records it as a secret read;
 * - sensitive actions through a console session need a recent (re-)authentication;
 * - every kind of refusal leaves one audit entry with its reason, prefix and address, counted per minute;
 * - failed password sign-ins back off per account and address, never holding up a token or another operator.
 */

let h: Harness;
const operators = {} as Record<"owner" | "admin" | "support", TestOperator>;
let customerId = "";
const secrets: string[] = [];
const ORIGIN = "http://localhost";

type DocumentOperation = { operationId: string; parameters?: { name: string; in: string; required?: boolean; schema?: { example?: unknown } }[] };

beforeAll(async () => {
  h = await createHarness();
  for (const role of ["owner", "admin", "support"] as const) operators[role] = await makeOperator(h, role);
  const c = await h.customer("Secrets");
  customerId = c.id;
  const serverToken = `pm-server-${crypto.randomUUID()}`;
  const set = await h.admin("PATCH", `/v1/customers/${c.id}/mail/provider`, { server_token: serverToken, transactional_stream: "outbound" });
  expect(set.status, describeResponse(set)).toBe(200);
  const revealed = await h.admin<Admin["revealCustomerPostmarkWebhook"]>("POST", `/v1/customers/${c.id}/mail/postmark-webhook/reveal`);
  expect(revealed.status, describeResponse(revealed)).toBe(200);
  secrets.push(serverToken, revealed.json.data.password, encodeURIComponent(revealed.json.data.password), c.mailFull, c.adsFull, c.mailReporting);
  for (const operator of Object.values(operators)) secrets.push(operator.token, operator.password);
}, 120_000);
afterAll(async () => h.close());

async function form(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await h.root.request(`${ORIGIN}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN, ...headers },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function consoleSession(operator: TestOperator, address = "198.51.100.1") {
  const r = await form("/console/sign-in", { email: operator.email, password: operator.password }, { "x-forwarded-for": address });
  expect(r.status, describeResponse(r)).toBe(303);
  const cookie = (r.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const page = await h.root.request(`${ORIGIN}/console/`, { headers: { cookie } });
  const csrf = /name="csrf-token" content="([^"]+)"/.exec(await page.text())?.[1] ?? "";
  return { cookie, csrf };
}

/** The refusals of one kind, from one client address when given (other files share a PostgreSQL database). */
async function refusals(reason: string, address?: string) {
  return h.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.reason, reason), address === undefined ? undefined : eq(auditLog.address, address)));
}

describe("least privilege for secrets", () => {
  test("no GET of the admin document answers a seeded secret, whatever the role", async () => {
    const document = await h.call<{ paths: Record<string, Record<string, DocumentOperation>> }>("GET", "/admin/v1/openapi.json");
    const ids: Record<string, string> = { id: customerId, operatorId: operators.owner.id };
    const leaks: string[] = [];
    let calls = 0;
    for (const [path, item] of Object.entries(document.json.paths)) {
      const get = item.get;
      if (!get) continue;
      const operatorPath = path.startsWith("/v1/operators/");
      const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) => (name === "id" && operatorPath ? operators.owner.id : (ids[name] ?? customerId)));
      const query = (get.parameters ?? [])
        .filter((p) => p.in === "query" && p.required)
        .map((p) => `${p.name}=${encodeURIComponent(String(p.schema?.example ?? customerId))}`);
      for (const role of ["support", "admin", "owner"] as const) {
        const r = await h.call("GET", `/admin${filled}${query.length > 0 ? `?${query.join("&")}` : ""}`, { key: operators[role].token });
        calls++;
        expect(r.status, `${role} ${get.operationId}: ${describeResponse(r)}`).toBeLessThan(500);
        for (const secret of secrets) if (r.text.includes(secret)) leaks.push(`${role} ${get.operationId} answers ${secret.slice(0, 6)}…`);
      }
    }
    expect(calls).toBeGreaterThan(90);
    expect(leaks).toEqual([]);
  }, 300_000);

  test("support sees that a credential is set, when and by whom; only an admin reveals it, recorded as a secret read", async () => {
    const provider = await h.call<Admin["getCustomerMailProvider"]>("GET", `/admin/v1/customers/${customerId}/mail/provider`, { key: operators.support.token });
    expect(provider.json.data.server_token_state).toMatchObject({ set: true, changed_by: { actor_type: "break_glass" } });
    expect(provider.json.data.server_token_state.changed_at).not.toBeNull();

    const refused = await h.call("POST", `/admin/v1/customers/${customerId}/mail/postmark-webhook/reveal`, { key: operators.support.token });
    expect(refused.status, describeResponse(refused)).toBe(403);
    const revealed = await h.call<Admin["revealCustomerPostmarkWebhook"]>("POST", `/admin/v1/customers/${customerId}/mail/postmark-webhook/reveal`, {
      key: operators.admin.token,
      headers: { "x-request-id": "reveal-by-admin" },
    });
    expect(revealed.status, describeResponse(revealed)).toBe(200);
    const [entry] = await h.db.select().from(auditLog).where(eq(auditLog.requestId, "reveal-by-admin"));
    expect(entry).toMatchObject({
      operationId: "revealCustomerPostmarkWebhook",
      operatorId: operators.admin.id,
      status: 200,
      target: { customer: customerId, secret: "postmark_webhook_password" },
    });
    expect(JSON.stringify(entry)).not.toContain(revealed.json.data.password);
  });

  test("through a console session, a reveal needs a recent sign-in: after CONSOLE_REAUTH_MINUTES it asks again, the password re-opens it", async () => {
    const { cookie, csrf } = await consoleSession(operators.admin);
    const reveal = () =>
      h.root.request(`${ORIGIN}/console/api/customers/${customerId}/mail/postmark-webhook/reveal`, {
        method: "POST",
        headers: { cookie, "x-csrf-token": csrf, origin: ORIGIN },
      });
    expect((await reveal()).status).toBe(200);
    h.clock.advance((h.deps.config.CONSOLE_REAUTH_MINUTES + 1) * 60_000);
    // Still inside the idle timeout: the session is alive, only the sensitive action asks again.
    const stale = await reveal();
    const body = (await stale.json()) as { error: { details: { reason: string } } };
    expect(stale.status).toBe(403);
    expect(body.error.details.reason).toBe("reauthentication_required");
    const reauth = (password: string) =>
      h.root.request(`${ORIGIN}/console/reauthenticate`, {
        method: "POST",
        headers: { cookie, "x-csrf-token": csrf, origin: ORIGIN, "content-type": "application/json" },
        body: JSON.stringify({ password }),
      });
    expect((await reauth("wrong password")).status).toBe(422);
    expect((await reauth(operators.admin.password)).status).toBe(200);
    expect((await reveal()).status).toBe(200);
  });
});

describe("sessions", () => {
  test("idle timeout and absolute lifetime from the config; __Host- cookie over https", async () => {
    const { cookie } = await consoleSession(operators.support);
    const read = () => h.root.request(`${ORIGIN}/console/api/customers?limit=1`, { headers: { cookie } });
    expect((await read()).status).toBe(200);
    h.clock.advance(h.deps.config.CONSOLE_SESSION_IDLE_MINUTES * 60_000 + 1000);
    expect((await read()).status).toBe(401);

    const secure = await h.root.request("https://console.example/console/sign-in", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://console.example" },
      body: new URLSearchParams({ email: operators.support.email, password: operators.support.password }).toString(),
      redirect: "manual",
    });
    const setCookie = secure.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(/^__Host-console_session=/);
    expect(setCookie).toContain("Secure");
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Strict");
    expect(setCookie).toContain("Path=/;");
    const hostCookie = setCookie.split(";")[0] ?? "";
    const active = async () => (await h.root.request("https://console.example/console/api/customers?limit=1", { headers: { cookie: hostCookie } })).status;
    // Active every few minutes, the session still ends at its absolute lifetime.
    const step = (h.deps.config.CONSOLE_SESSION_IDLE_MINUTES - 1) * 60_000;
    let elapsed = 0;
    while (elapsed + step < h.deps.config.CONSOLE_SESSION_MAX_HOURS * 3_600_000) {
      expect(await active()).toBe(200);
      h.clock.advance(step);
      elapsed += step;
    }
    h.clock.advance(h.deps.config.CONSOLE_SESSION_MAX_HOURS * 3_600_000 - elapsed + 1000);
    expect(await active()).toBe(401);
  }, 120_000);

  test("every write operation of the admin document refuses a console session without the CSRF token, or from another origin", async () => {
    const { cookie, csrf } = await consoleSession(operators.owner);
    const document = await h.call<{ paths: Record<string, Record<string, DocumentOperation>> }>("GET", "/admin/v1/openapi.json");
    const failures: string[] = [];
    let writes = 0;
    for (const [path, item] of Object.entries(document.json.paths)) {
      for (const method of ["post", "put", "patch", "delete"]) {
        if (!item[method]) continue;
        writes++;
        const url = `${ORIGIN}/console/api${path.slice("/v1".length).replace(/\{[^}]+\}/g, customerId)}`;
        const variants: Record<string, string>[] = [
          { cookie },
          { cookie, "x-csrf-token": "forged", origin: ORIGIN },
          { cookie, "x-csrf-token": csrf, origin: "https://evil.example" },
        ];
        for (const headers of variants) {
          const r = await h.root.request(url, { method: method.toUpperCase(), headers: { ...headers, "content-type": "application/json" }, body: "{}" });
          if (r.status !== 403) failures.push(`${method} ${path}: ${r.status}`);
        }
      }
    }
    expect(writes).toBeGreaterThan(20);
    expect(failures).toEqual([]);
  }, 120_000);
});

describe("refusals in the audit log", () => {
  test("each kind once, with reason, prefix and address; identical ones within a minute are one entry with a count", async () => {
    await h.deps.refusals.flush();
    h.clock.advance(60_000);
    const address = "203.0.113.77";
    const headers = { "x-forwarded-for": address };
    const unknown = `op_live_${"x".repeat(32)}`;
    for (let i = 0; i < 5; i++) expect((await h.call("GET", "/admin/v1/customers", { key: unknown, headers })).status).toBe(401);
    const revoked = await makeOperator(h, "support");
    const revoke = await h.admin(
      "DELETE",
      `/v1/operators/${revoked.id}/tokens/${(await h.admin<Admin["listOperatorTokens"]>("GET", `/v1/operators/${revoked.id}/tokens`)).json.data[0]?.id}`,
    );
    expect(revoke.status, describeResponse(revoke)).toBeLessThan(300);
    expect((await h.call("GET", "/admin/v1/customers", { key: revoked.token, headers })).status).toBe(401);
    expect((await h.call("GET", "/admin/v1/operators", { key: operators.support.token, headers })).status).toBe(403);
    const { cookie } = await consoleSession(operators.support, address);
    expect(
      (await h.root.request(`${ORIGIN}/console/api/customers`, { method: "POST", headers: { cookie, "x-forwarded-for": address }, body: "{}" })).status,
    ).toBe(403);
    await h.deps.refusals.flush();

    // The first refusal of a kind is written at once, the identical ones after it in the minute as one entry with a
    // count. Rows come back in no set order (PostgreSQL returns an updated row where its new version lies): by count.
    const unknownEntries = (await refusals("unknown_token", address)).sort((a, b) => a.count - b.count);
    expect(unknownEntries.map((e) => e.count)).toEqual([1, 4]);
    for (const entry of unknownEntries) expect(entry).toMatchObject({ status: 401, tokenPrefix: "op_live_xxxx" });
    const unknownEntry = unknownEntries[0];
    expect(JSON.stringify(unknownEntries)).not.toContain(unknown);
    expect(await refusals("revoked_token", address)).toEqual([expect.objectContaining({ status: 401, tokenPrefix: revoked.token.slice(0, 12) })]);
    expect(await refusals("role_required")).toEqual(
      expect.arrayContaining([expect.objectContaining({ status: 403, operationId: "listOperators", operatorId: operators.support.id })]),
    );
    const csrf = (await refusals("csrf_token")).filter((e) => e.operatorId === operators.support.id);
    expect(csrf).toEqual([expect.objectContaining({ status: 403, operationId: "consoleApi" })]);
    for (const entry of [unknownEntry, ...(await refusals("revoked_token", address)), ...csrf]) expect(entry?.address).toBe(address);
  });
});

describe("refusals in the audit log: the other kinds", () => {
  test("a throttled API credential (429), a write and a sign-in from another origin (403), a wrong password and a wrong token at the console's sign-in (401): one entry each, with reason, status and address", async () => {
    const address = "203.0.113.78";
    const headers = { "x-forwarded-for": address };
    // A credential that is no operator token is guessable: after AUTH_FAILURES_PER_MINUTE failures from one address, 429.
    let throttled = 0;
    for (let i = 0; i <= h.deps.config.AUTH_FAILURES_PER_MINUTE && throttled === 0; i++) {
      const r = await h.call("GET", "/admin/v1/customers", { key: `guess-${i}`, headers });
      if (r.status === 429) throttled++;
      else expect(r.status, describeResponse(r)).toBe(401);
    }
    expect(throttled).toBe(1);
    const { cookie, csrf } = await consoleSession(operators.support, address);
    const elsewhere = "https://attacker.example";
    const write = await h.root.request(`${ORIGIN}/console/api/customers`, {
      method: "POST",
      headers: { cookie, origin: elsewhere, "x-csrf-token": csrf, "content-type": "application/json", "x-forwarded-for": address },
      body: "{}",
    });
    expect(write.status).toBe(403);
    expect(
      (await form("/console/sign-in", { email: operators.support.email, password: operators.support.password }, { ...headers, origin: elsewhere })).status,
    ).toBe(403);
    expect((await form("/console/sign-in", { email: operators.admin.email, password: "not the password" }, headers)).status).toBe(401);
    // The shared token's sign-in is throttled per address with the API's credentials: from another one.
    const tokenAddress = "203.0.113.79";
    expect((await form("/console/sign-in", { token: "not the operator token" }, { "x-forwarded-for": tokenAddress })).status).toBe(401);
    await h.deps.refusals.flush();

    expect(await refusals("auth_throttled", address)).toEqual([expect.objectContaining({ status: 429, operationId: "authenticate", tokenPrefix: "gues…" })]);
    const crossOrigin = await refusals("cross_origin", address);
    expect(crossOrigin.map((e) => `${e.operationId} ${e.status}`).sort()).toEqual(["consoleApi 403", "signIn 403"]);
    expect(await refusals("wrong_password", address)).toEqual([
      expect.objectContaining({ status: 401, operationId: "signInFailed", target: { email: operators.admin.email } }),
    ]);
    expect(await refusals("wrong_token", tokenAddress)).toEqual([expect.objectContaining({ status: 401, operationId: "signInFailed" })]);
    // Never the secret itself.
    const written = JSON.stringify([
      ...(await h.db.select().from(auditLog).where(eq(auditLog.address, address))),
      ...(await h.db.select().from(auditLog).where(eq(auditLog.address, tokenAddress))),
    ]);
    expect(written).not.toContain("not the password");
    expect(written).not.toContain("not the operator token");
  });
});

describe("password sign-in back-off", () => {
  test("grows per account and address, answers 429 (audited), and never holds up a token or another operator", async () => {
    const victim = await makeOperator(h, "admin");
    const other = await makeOperator(h, "support");
    const address = "192.0.2.50";
    const attempt = (operator: TestOperator, password: string, from = address) =>
      form("/console/sign-in", { email: operator.email, password }, { "x-forwarded-for": from });
    const waits: number[] = [];
    for (let failures = 1; failures <= 12; failures++) {
      expect((await attempt(victim, "guess")).status).toBe(401);
      const wait = backoffSeconds(failures);
      waits.push(wait);
      if (wait > 0) {
        const early = await attempt(victim, victim.password);
        expect(early.status, `after ${failures} failures`).toBe(429);
        expect(Number(early.headers.get("retry-after"))).toBe(wait);
        h.clock.advance(wait * 1000);
      }
    }
    expect(waits.slice(0, SIGN_IN_BACKOFF.FREE_FAILURES)).toEqual([0, 0, 0]);
    expect(waits.at(-1)).toBe(SIGN_IN_BACKOFF.MAX_DELAY_SECONDS);
    // At the cap: a handful of guesses an hour.
    expect(3600 / SIGN_IN_BACKOFF.MAX_DELAY_SECONDS).toBeLessThanOrEqual(4);
    // Never: another operator from the same address, the victim from another address, the victim's token.
    expect((await attempt(victim, "guess")).status).toBe(401);
    expect((await attempt(other, other.password)).status).toBe(303);
    expect((await attempt(victim, victim.password, "192.0.2.51")).status).toBe(303);
    expect((await h.call("GET", "/admin/v1/customers?limit=1", { key: victim.token, headers: { "x-forwarded-for": address } })).status).toBe(200);
    await h.deps.refusals.flush();
    const throttled = await h.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.reason, "sign_in_backoff"), eq(auditLog.address, address)));
    expect(throttled.reduce((sum, e) => sum + e.count, 0)).toBeGreaterThanOrEqual(9);
    expect(throttled[0]?.target).toEqual({ email: victim.email });
  }, 120_000);
});
