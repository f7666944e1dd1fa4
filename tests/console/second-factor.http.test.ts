import { eq } from "drizzle-orm";
import { Secret, TOTP } from "otpauth";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { auditLog } from "../../lib/db/schema";
import { createHarness, describeResponse, type Admin, type Harness } from "../helpers/harness";
import { makeOperator, type TestOperator } from "../helpers/operators";

/**
 * TOTP as the second factor of a password sign-in, with codes generated from the secret at the harness clock:
 * valid, reused, skewed by one step (taken) and by three (refused), wrong; recovery codes used once; five wrong
 * codes end the attempt; every outcome audited with its method; the policy leads an operator without a factor
 * to set one up.
 */
const ORIGIN = "http://localhost";
let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.admin("PATCH", "/v1/sign-in-policy", { require_second_factor: false });
  await h.close();
});

const cookieOf = (response: Response, name: string) =>
  response.headers
    .getSetCookie()
    .find((line) => line.startsWith(`${name}=`))
    ?.split(";")[0] ?? null;

async function password(operator: TestOperator) {
  const r = await h.root.request(`${ORIGIN}/console/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN },
    body: new URLSearchParams({ email: operator.email, password: operator.password }).toString(),
    redirect: "manual",
  });
  expect(r.status, await r.clone().text()).toBe(303);
  return { location: r.headers.get("location"), pending: cookieOf(r, "console_sign_in"), session: cookieOf(r, "console_session") };
}

async function secondFactor(pending: string, field: "code" | "recovery_code", value: string) {
  const page = await (await h.root.request(`${ORIGIN}/console/sign-in/second-factor`, { headers: { cookie: pending } })).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? "";
  const r = await h.root.request(`${ORIGIN}/console/sign-in/second-factor`, {
    method: "POST",
    headers: { cookie: pending, "content-type": "application/x-www-form-urlencoded", origin: ORIGIN },
    body: new URLSearchParams({ csrf, [field]: value }).toString(),
    redirect: "manual",
  });
  return { status: r.status, text: await r.text(), session: cookieOf(r, "console_session") };
}

async function withTotp(role: "owner" | "support") {
  const operator = await makeOperator(h, role);
  const started = await h.call<Admin["startMyTotp"]>("POST", "/admin/v1/me/second-factors/totp", { key: operator.token, body: { label: "Phone" } });
  expect(started.status, describeResponse(started)).toBe(201);
  const totp = new TOTP({ secret: Secret.fromBase32(started.json.data.secret), digits: 6, period: 30, algorithm: "SHA1" });
  const code = (offsetMs = 0) => totp.generate({ timestamp: h.clock.now().getTime() + offsetMs });
  const confirmed = await h.call<Admin["confirmMyTotp"]>("POST", `/admin/v1/me/second-factors/totp/${started.json.data.id}/confirm`, {
    key: operator.token,
    body: { code: code() },
  });
  expect(confirmed.status, describeResponse(confirmed)).toBe(200);
  expect(confirmed.json.data.recovery_codes).toHaveLength(10);
  // The confirming code's step is taken: sign-ins start one step later.
  h.clock.advance(30_000);
  return { operator, code, recoveryCodes: confirmed.json.data.recovery_codes as string[] };
}

async function audit(operation: string, operatorId: string) {
  const r = await h.admin<Admin["listAuditLog"]>("GET", `/v1/audit-log?operation=${operation}&limit=100`);
  return r.json.data.filter((e) => e.actor.operator_id === operatorId || e.target.operator === operatorId);
}

describe("TOTP and recovery codes at sign-in", () => {
  test("valid, reused, skewed and wrong codes", async () => {
    const { operator, code } = await withTotp("support");
    const first = await password(operator);
    expect(first.location).toBe("/console/sign-in/second-factor");
    expect(first.session).toBeNull();
    expect(first.pending).toBeTruthy();

    const wrong = await secondFactor(first.pending as string, "code", "000000" === code() ? "111111" : "000000");
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain("This code is wrong, expired or used already.");

    const current = code();
    const ok = await secondFactor(first.pending as string, "code", current);
    expect(ok.status, ok.text).toBe(303);
    expect(ok.session).toBeTruthy();
    const me = await h.root.request(`${ORIGIN}/console/api/me`, { headers: { cookie: ok.session as string } });
    expect(((await me.json()) as Admin["getCurrentOperator"]).data.email).toBe(operator.email);

    const reused = await secondFactor((await password(operator)).pending as string, "code", current);
    expect(reused.status).toBe(401);
    expect(reused.session).toBeNull();

    h.clock.advance(60_000);
    const skewedOneStep = await secondFactor((await password(operator)).pending as string, "code", code(-30_000));
    expect(skewedOneStep.status, skewedOneStep.text).toBe(303);
    h.clock.advance(60_000);
    const skewedThreeSteps = await secondFactor((await password(operator)).pending as string, "code", code(-90_000));
    expect(skewedThreeSteps.status).toBe(401);

    const methods = (await audit("signIn", operator.id)).map((e) => e.target.method);
    expect(methods.filter((m) => m === "password+totp")).toHaveLength(2);
    const failed = await audit("signInFailed", operator.id);
    expect(failed.filter((e) => e.target.method === "password+totp").length).toBeGreaterThanOrEqual(3);
  });

  test("a recovery code works once; five wrong codes end the attempt", async () => {
    const { operator, recoveryCodes } = await withTotp("owner");
    const used = await secondFactor((await password(operator)).pending as string, "recovery_code", (recoveryCodes[0] as string).toLowerCase());
    expect(used.status, used.text).toBe(303);
    const again = await secondFactor((await password(operator)).pending as string, "recovery_code", recoveryCodes[0] as string);
    expect(again.status).toBe(401);
    expect((await audit("signIn", operator.id)).some((e) => e.target.method === "password+recovery_code")).toBe(true);

    const pending = (await password(operator)).pending as string;
    const answers: number[] = [];
    for (let i = 0; i < 5; i++) answers.push((await secondFactor(pending, "code", `12345${i}`)).status);
    expect(answers).toEqual([401, 401, 401, 401, 401]);
    const page = await h.root.request(`${ORIGIN}/console/sign-in/second-factor`, { headers: { cookie: pending }, redirect: "manual" });
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe("/console/sign-in?expired");
  });

  test("the owner requires a second factor: an operator without one is led to set one up", async () => {
    const policy = await h.admin<Admin["updateSignInPolicy"]>("PATCH", "/v1/sign-in-policy", { require_second_factor: true });
    expect(policy.status, describeResponse(policy)).toBe(200);
    const audited = await h.admin<Admin["listAuditLog"]>("GET", "/v1/audit-log?operation=updateSignInPolicy");
    expect(audited.json.data[0]?.change).toMatchObject({ request: { require_second_factor: true } });
    const closing = await h.admin("PATCH", "/v1/sign-in-policy", { password_sign_in: "break_glass_only" });
    expect(closing.status, describeResponse(closing)).toBe(409);
    expect(closing.text).toContain("sso_not_configured");

    const newcomer = await makeOperator(h, "admin");
    const signedIn = await password(newcomer);
    expect(signedIn.location).toBe("/console/sign-in/enrol");
    expect(signedIn.session).toBeNull();
    const page = await (await h.root.request(`${ORIGIN}/console/sign-in/enrol`, { headers: { cookie: signedIn.pending as string } })).text();
    const secret = /data-testid="totp-secret">([A-Z2-7]+)</.exec(page)?.[1] ?? "";
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? "";
    const code = new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: h.clock.now().getTime() });
    const enrolled = await h.root.request(`${ORIGIN}/console/sign-in/enrol/totp`, {
      method: "POST",
      headers: { cookie: signedIn.pending as string, "content-type": "application/x-www-form-urlencoded", origin: ORIGIN },
      body: new URLSearchParams({ csrf, code }).toString(),
    });
    const shown = await enrolled.text();
    expect(enrolled.status, shown).toBe(200);
    expect(shown.match(/<li><code>[2-9A-Z]{5}-[2-9A-Z]{5}<\/code><\/li>/g)).toHaveLength(10);
    expect(cookieOf(enrolled, "console_session")).toBeTruthy();
    const factors = await h.call<Admin["listMySecondFactors"]>("GET", "/admin/v1/me/second-factors", { key: newcomer.token });
    expect(factors.json.data.map((f) => f.kind)).toEqual(["totp"]);
    expect(factors.text).not.toContain(secret);
  });
});

describe("re-authentication of an operator with an authenticator app", () => {
  test("the password alone is refused; the password with a current code or a recovery code is taken", async () => {
    const { operator, code, recoveryCodes } = await withTotp("support");
    const signedIn = await secondFactor((await password(operator)).pending as string, "code", code());
    expect(signedIn.status, signedIn.text).toBe(303);
    const cookie = signedIn.session as string;
    const shell = await (await h.root.request(`${ORIGIN}/console/`, { headers: { cookie } })).text();
    expect(shell).toContain('<meta name="session-kind" content="password+code">');
    const csrf = /name="csrf-token" content="([^"]+)"/.exec(shell)?.[1] ?? "";
    const reauthenticate = (body: Record<string, string>) =>
      h.root.request(`${ORIGIN}/console/reauthenticate`, {
        method: "POST",
        headers: { cookie, "x-csrf-token": csrf, origin: ORIGIN, "content-type": "application/json" },
        body: JSON.stringify(body),
      });

    const passwordOnly = await reauthenticate({ password: operator.password });
    expect(passwordOnly.status).toBe(422);
    expect(await passwordOnly.text()).toContain('"path":"code"');
    const wrongPassword = await reauthenticate({ password: "not the password", code: code(30_000) });
    expect(wrongPassword.status).toBe(422);
    expect(await wrongPassword.text()).toContain('"path":"password"');

    h.clock.advance(30_000);
    const withCode = await reauthenticate({ password: operator.password, code: code() });
    expect(withCode.status, await withCode.clone().text()).toBe(200);
    const recovery = recoveryCodes[1] as string;
    const withRecovery = await reauthenticate({ password: operator.password, code: recovery });
    expect(withRecovery.status).toBe(200);
    const recoveryAgain = await reauthenticate({ password: operator.password, code: recovery });
    expect(recoveryAgain.status).toBe(422);
    // Each refusal is on record with its reason; the successes too, and no secret in any of them.
    const entries = await audit("reauthenticate", operator.id);
    expect(new Set(entries.filter((e) => e.status === 422).map((e) => e.reason))).toEqual(new Set(["wrong_code", "wrong_password"]));
    expect(entries.filter((e) => e.status === 200)).toHaveLength(2);
    expect(JSON.stringify(entries)).not.toContain(operator.password);
    expect(JSON.stringify(entries)).not.toContain(recovery);
  });
});

describe("brute force on the second factor", () => {
  test("wrong codes from one address reach the per-address limit: 429 then, even for the right code, and every step audited", async () => {
    const limited = await createHarness({ env: { AUTH_FAILURES_PER_MINUTE: "3" } });
    try {
      const operator = await makeOperator(limited, "admin");
      const started = await limited.call<Admin["startMyTotp"]>("POST", "/admin/v1/me/second-factors/totp", { key: operator.token, body: { label: "Phone" } });
      const totp = new TOTP({ secret: Secret.fromBase32(started.json.data.secret) });
      const code = () => totp.generate({ timestamp: limited.clock.now().getTime() });
      const confirmed = await limited.call("POST", `/admin/v1/me/second-factors/totp/${started.json.data.id}/confirm`, {
        key: operator.token,
        body: { code: code() },
      });
      expect(confirmed.status, describeResponse(confirmed)).toBe(200);
      limited.clock.advance(30_000);

      const signIn = await limited.root.request(`${ORIGIN}/console/sign-in`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN },
        body: new URLSearchParams({ email: operator.email, password: operator.password }).toString(),
        redirect: "manual",
      });
      const pending = cookieOf(signIn, "console_sign_in") as string;
      const page = await (await limited.root.request(`${ORIGIN}/console/sign-in/second-factor`, { headers: { cookie: pending } })).text();
      const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? "";
      const send = async (value: string) => {
        const r = await limited.root.request(`${ORIGIN}/console/sign-in/second-factor`, {
          method: "POST",
          headers: { cookie: pending, "content-type": "application/x-www-form-urlencoded", origin: ORIGIN },
          body: new URLSearchParams({ csrf, code: value }).toString(),
          redirect: "manual",
        });
        return { status: r.status, retryAfter: r.headers.get("retry-after"), session: cookieOf(r, "console_session") };
      };
      const wrong = code() === "000000" ? "111111" : "000000";
      const answers = [await send(wrong), await send(wrong), await send(wrong), await send(wrong)];
      expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 429]);
      expect(Number(answers[3]?.retryAfter)).toBeGreaterThan(0);
      // Blocked: the right code is not even checked.
      const right = await send(code());
      expect(right.status).toBe(429);
      expect(right.session).toBeNull();

      await limited.deps.refusals.flush();
      const entries = await limited.db.select().from(auditLog).where(eq(auditLog.operationId, "signInFailed"));
      const wrongOnes = entries.filter(
        (e) => (e.target as Record<string, string>).operator === operator.id && (e.target as Record<string, string>).step === "second_factor",
      );
      expect(wrongOnes.filter((e) => e.status === 401)).toHaveLength(4);
      const blocked = wrongOnes.filter((e) => e.status === 429);
      expect(blocked.length).toBeGreaterThanOrEqual(1);
      expect(blocked[0]).toMatchObject({ reason: "auth_throttled", target: { method: "password+totp" } });
    } finally {
      await limited.close();
    }
  });
});

describe("the audit log names every sign-in method", () => {
  test("a password alone and the shared token are audited with their method (second factors and single sign-on: the tests above and sso.http.test.ts)", async () => {
    // The policy test above left a second factor required: a password alone opens a session only without it.
    await h.admin("PATCH", "/v1/sign-in-policy", { require_second_factor: false });
    const operator = await makeOperator(h, "support");
    const byPassword = await password(operator);
    expect(byPassword.session).toBeTruthy();
    expect((await audit("signIn", operator.id)).map((e) => e.target.method)).toEqual(["password"]);

    const all = async () => (await h.admin<Admin["listAuditLog"]>("GET", "/v1/audit-log?operation=signIn&limit=100")).json.data;
    const before = (await all()).filter((e) => e.target.method === "token").length;
    const byToken = await h.root.request(`${ORIGIN}/console/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN },
      body: new URLSearchParams({ token: h.deps.adminToken }).toString(),
      redirect: "manual",
    });
    expect(byToken.status, await byToken.text()).toBe(303);
    expect(cookieOf(byToken, "console_session")).toBeTruthy();
    const tokens = (await all()).filter((e) => e.target.method === "token");
    expect(tokens).toHaveLength(before + 1);
    // The shared token: bootstrap before the first owner exists, break-glass after.
    expect(["bootstrap", "break_glass"]).toContain(tokens[0]?.actor.type);
  });
});
