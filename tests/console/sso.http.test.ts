import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createHarness, describeResponse, type Admin, type Harness } from "../helpers/harness";
import { authorizeAtProvider, startTestProvider, type TestProvider } from "../helpers/oidc-provider";
import { makeOperator } from "../helpers/operators";

/**
 * Single sign-on against a real OpenID Connect provider (`oidc-provider` on loopback, in this process): the
 * console's authorization code flow with PKCE, state and nonce through `openid-client`; accounts made on the
 * first sign-in with the role a group rule gives; refusals (another domain, no rule, a changed nonce, an ID
 * token for another audience or from another issuer, an expired or replayed code, a disabled operator, a password
 * sign-in while only the break-glass operator may use one), each audited with its reason.
 */
const BASE = "http://localhost:3999";
const REDIRECT = `${BASE}/console/sso/callback`;

let h: Harness;
let idp: TestProvider;

beforeAll(async () => {
  idp = await startTestProvider({ redirectUri: REDIRECT });
  h = await createHarness({
    env: {
      PUBLIC_BASE_URL: BASE,
      OIDC_ISSUER_URL: idp.issuer,
      OIDC_CLIENT_ID: idp.clientId,
      OIDC_CLIENT_SECRET: idp.clientSecret,
      OIDC_PROVIDER_NAME: "Test IdP",
      OIDC_SCOPES: "openid email groups",
      OIDC_ALLOWED_DOMAINS: "corp.example",
      OIDC_ROLE_MAPPING: "ops-owners=owner,ops-admins=admin,ops-support=support",
    },
  });
});
afterAll(async () => {
  await h?.close();
  await idp?.close();
});

function account(groups: string[], domain = "corp.example"): string {
  const id = crypto.randomUUID();
  idp.accounts.set(id, { email: `user-${id}@${domain}`, groups });
  return id;
}

type Outcome = { status: number; text: string; session: string | null; email: string };

async function ssoSignIn(
  accountId: string,
  options: { editAuthorization?: (url: URL) => void; beforeCallback?: () => Promise<void> } = {},
): Promise<Outcome & { callback: string; ssoCookie: string }> {
  const start = await h.root.request(`${BASE}/console/sso/start`, { redirect: "manual" });
  expect(start.status, await start.clone().text()).toBe(303);
  const ssoCookie = (start.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  expect(ssoCookie).toMatch(/^console_sso=/);
  const authorization = new URL(start.headers.get("location") ?? "");
  expect(authorization.origin).toBe(idp.issuer);
  options.editAuthorization?.(authorization);
  idp.login.account = accountId;
  const callback = await authorizeAtProvider(authorization.href, REDIRECT);
  await options.beforeCallback?.();
  const answer = await h.root.request(callback, { headers: { cookie: ssoCookie }, redirect: "manual" });
  const cookie = answer.headers.getSetCookie().find((line) => line.startsWith("console_session="));
  return {
    status: answer.status,
    text: await answer.text(),
    session: cookie ? (cookie.split(";")[0] ?? null) : null,
    email: idp.accounts.get(accountId)?.email ?? "",
    callback,
    ssoCookie,
  };
}

async function me(session: string) {
  const r = await h.root.request(`${BASE}/console/api/me`, { headers: { cookie: session } });
  return { status: r.status, body: (await r.json()) as Admin["getCurrentOperator"] };
}

async function auditEntries(operation: string) {
  const r = await h.admin<Admin["listAuditLog"]>("GET", `/v1/audit-log?operation=${operation}&limit=100`);
  expect(r.status, describeResponse(r)).toBe(200);
  return r.json.data;
}

describe("single sign-on with a real OpenID Connect provider", () => {
  test("the sign-in page offers the provider; the first sign-in makes the operator with its group's role, audited", async () => {
    const page = await h.root.request(`${BASE}/console/sign-in`);
    expect(await page.text()).toContain('href="/console/sso/start">Sign in with Test IdP</a>');

    const start = await h.root.request(`${BASE}/console/sso/start`, { redirect: "manual" });
    const url = new URL(start.headers.get("location") ?? "");
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get("state")).toBeTruthy();
    expect(url.searchParams.get("nonce")).toBeTruthy();
    expect(url.searchParams.get("redirect_uri")).toBe(REDIRECT);
    expect(start.headers.get("set-cookie")).toContain("SameSite=Lax");

    // The proxy signs the unchanged token again: the control for the tampering cases below.
    idp.tamper.claims = (claims) => claims;
    const signedIn = await ssoSignIn(account(["ops-owners", "ops-support"]));
    idp.tamper.claims = null;
    expect(signedIn.status, signedIn.text).toBe(200);
    expect(signedIn.text).toContain('http-equiv="refresh" content="0;url=/console/"');
    expect(signedIn.session).toBeTruthy();
    const who = await me(signedIn.session as string);
    expect(who.status).toBe(200);
    expect(who.body.data).toMatchObject({ actor: "operator", role: "owner", email: signedIn.email });

    const created = (await auditEntries("createOperatorBySso")).find((e) => e.target.email === signedIn.email);
    expect(created?.target).toMatchObject({ role: "owner", groups: "ops-owners,ops-support" });
    const signIn = (await auditEntries("signIn")).find((e) => e.actor.operator_id === who.body.data.operator_id);
    expect(signIn?.target.method).toBe("sso");

    // A second sign-in finds the same account (linked by issuer and subject), no second creation.
    const again = await ssoSignIn([...idp.accounts.entries()].find(([, a]) => a.email === signedIn.email)?.[0] as string);
    expect(again.status, again.text).toBe(200);
    expect((await me(again.session as string)).body.data.operator_id).toBe(who.body.data.operator_id);
    expect((await auditEntries("createOperatorBySso")).filter((e) => e.target.email === signedIn.email)).toHaveLength(1);
  });

  test.each([
    ["ops-owners", "owner"],
    ["ops-admins", "admin"],
    ["ops-support", "support"],
  ] as const)("group %s maps to the %s role", async (group, role) => {
    const signedIn = await ssoSignIn(account(["unrelated", group]));
    expect(signedIn.status, signedIn.text).toBe(200);
    expect((await me(signedIn.session as string)).body.data.role).toBe(role);
  });

  test("a user outside the allowed domain, or in no mapped group, is refused and audited", async () => {
    const outside = await ssoSignIn(account(["ops-owners"], "elsewhere.example"));
    expect(outside.status).toBe(401);
    expect(outside.session).toBeNull();
    expect(outside.text).toContain("E-mail addresses of elsewhere.example are not admitted");
    const noRule = await ssoSignIn(account(["marketing"]));
    expect(noRule.status).toBe(401);
    expect(noRule.text).toContain("None of this user&#39;s groups is given a role");
    const refused = await auditEntries("signInFailed");
    for (const email of [outside.email, noRule.email]) {
      expect(refused.find((e) => e.target.email === email)?.target).toMatchObject({ method: "sso", reason: "not_admitted" });
    }
    const operators = await h.admin<Admin["listOperators"]>("GET", "/v1/operators");
    expect(operators.json.data.map((o) => o.email)).not.toContain(outside.email);
  });

  test("a changed nonce, another audience or another issuer in the ID token is refused", async () => {
    const nonce = await ssoSignIn(account(["ops-owners"]), { editAuthorization: (url) => url.searchParams.set("nonce", "attacker-chosen-nonce") });
    expect(nonce.status, nonce.text).toBe(401);
    expect(nonce.session).toBeNull();
    for (const change of [
      (claims: Record<string, unknown>) => ({ ...claims, aud: "another-client" }),
      (claims: Record<string, unknown>) => ({ ...claims, iss: "https://impostor.example" }),
    ]) {
      idp.tamper.claims = change;
      const tampered = await ssoSignIn(account(["ops-owners"]));
      idp.tamper.claims = null;
      expect(tampered.status, tampered.text).toBe(401);
      expect(tampered.session).toBeNull();
      expect(tampered.text).toContain("Test IdP did not confirm this sign-in");
    }
    const refused = (await auditEntries("signInFailed")).filter((e) => e.target.reason === "provider_answer_refused");
    expect(refused.length).toBeGreaterThanOrEqual(3);
  });

  test("an expired code and a replayed answer are refused", async () => {
    idp.codeTtl.seconds = 1;
    const expired = await ssoSignIn(account(["ops-admins"]), { beforeCallback: () => new Promise((resolve) => setTimeout(resolve, 2_100)) });
    idp.codeTtl.seconds = 60;
    expect(expired.status, expired.text).toBe(401);
    expect(expired.session).toBeNull();

    const first = await ssoSignIn(account(["ops-admins"]));
    expect(first.status, first.text).toBe(200);
    const replay = await h.root.request(first.callback, { headers: { cookie: first.ssoCookie }, redirect: "manual" });
    expect(replay.status).toBe(401);
    expect(replay.headers.getSetCookie().some((line) => line.startsWith("console_session="))).toBe(false);
  });

  test("a disabled operator's sign-in, a callback without its attempt and a password sign-in while only break-glass may use one are refused, each audited with its reason", async () => {
    const first = await ssoSignIn(account(["ops-admins"]));
    expect(first.status, first.text).toBe(200);
    const operatorId = (await me(first.session as string)).body.data.operator_id;
    const disabled = await h.admin("PATCH", `/v1/operators/${operatorId}`, { disabled: true });
    expect(disabled.status, describeResponse(disabled)).toBe(200);
    const again = await ssoSignIn(idp.login.account as string);
    expect(again.status, again.text).toBe(401);
    expect(again.session).toBeNull();
    const accountRefused = (await auditEntries("signInFailed")).find((e) => e.target.reason === "account_refused" && e.target.email === first.email);
    expect(accountRefused?.status).toBe(401);

    const noAttempt = await h.root.request(first.callback, { redirect: "manual" });
    expect(noAttempt.status).toBe(401);
    expect((await auditEntries("signInFailed")).some((e) => e.reason === "no_attempt" && e.status === 401)).toBe(true);

    const keeper = await makeOperator(h, "owner");
    const other = await makeOperator(h, "admin");
    const closing = await h.admin("PATCH", "/v1/sign-in-policy", { password_sign_in: "break_glass_only", break_glass_operator_id: keeper.id });
    expect(closing.status, describeResponse(closing)).toBe(200);
    try {
      const refused = await h.root.request(`${BASE}/console/sign-in`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: BASE },
        body: new URLSearchParams({ email: other.email, password: other.password }).toString(),
        redirect: "manual",
      });
      const page = await refused.text();
      expect(refused.status, page).toBe(403);
      expect(page).not.toContain(other.password);
      const entry = (await auditEntries("signInFailed")).find((e) => e.reason === "password_sign_in_off");
      expect(entry?.status).toBe(403);
      expect(JSON.stringify(entry)).not.toContain(other.password);
    } finally {
      const reopened = await h.admin("PATCH", "/v1/sign-in-policy", { password_sign_in: "everyone", break_glass_operator_id: null });
      expect(reopened.status, describeResponse(reopened)).toBe(200);
    }
  });

  test("sign-out ends the single sign-on session, audited", async () => {
    const signedIn = await ssoSignIn(account(["ops-support"]));
    const session = signedIn.session as string;
    const operatorId = (await me(session)).body.data.operator_id;
    const shell = await (await h.root.request(`${BASE}/console/`, { headers: { cookie: session } })).text();
    const csrf = /name="csrf-token" content="([^"]+)"/.exec(shell)?.[1] ?? "";
    const out = await h.root.request(`${BASE}/console/sign-out`, {
      method: "POST",
      headers: { cookie: session, "content-type": "application/x-www-form-urlencoded", origin: BASE },
      body: new URLSearchParams({ csrf }).toString(),
      redirect: "manual",
    });
    expect(out.status).toBe(303);
    expect((await me(session)).status).toBe(401);
    expect((await auditEntries("signOut")).some((e) => e.actor.operator_id === operatorId)).toBe(true);
  });
});

describe("the client secret sent as the application is registered", () => {
  test("an application registered with client_secret_post signs in with OIDC_TOKEN_AUTH_METHOD=client_secret_post (the suite above: the default, client_secret_basic)", async () => {
    const post = await createHarness({
      env: {
        PUBLIC_BASE_URL: BASE,
        OIDC_ISSUER_URL: idp.issuer,
        OIDC_CLIENT_ID: idp.postClientId,
        OIDC_CLIENT_SECRET: idp.clientSecret,
        OIDC_TOKEN_AUTH_METHOD: "client_secret_post",
        OIDC_ALLOWED_DOMAINS: "corp.example",
        OIDC_DEFAULT_ROLE: "support",
      },
    });
    try {
      const start = await post.root.request(`${BASE}/console/sso/start`, { redirect: "manual" });
      const ssoCookie = (start.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
      idp.login.account = account([]);
      const callback = await authorizeAtProvider(start.headers.get("location") ?? "", REDIRECT);
      const answer = await post.root.request(callback, { headers: { cookie: ssoCookie }, redirect: "manual" });
      expect(answer.status, await answer.text()).toBe(200);
      expect(answer.headers.getSetCookie().some((line) => line.startsWith("console_session="))).toBe(true);
    } finally {
      await post.close();
    }
  });
});
