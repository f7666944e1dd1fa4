import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { sessionPolicy } from "../../lib/console/session";
import { createHarness, describeResponse, type Harness } from "../helpers/harness";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

const ORIGIN = "http://localhost";

async function request(
  method: string,
  path: string,
  init: { cookie?: string; form?: Record<string, string>; json?: unknown; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.cookie) headers.cookie = init.cookie;
  let body: string | undefined;
  if (init.form) {
    body = new URLSearchParams(init.form).toString();
    headers["content-type"] = "application/x-www-form-urlencoded";
  }
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers["content-type"] = "application/json";
  }
  const response = await h.root.request(`${ORIGIN}${path}`, { method, headers, body, redirect: "manual" });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text };
}

async function signIn(): Promise<{ cookie: string; csrf: string }> {
  const r = await request("POST", "/console/sign-in", { form: { token: h.deps.adminToken }, headers: { origin: ORIGIN } });
  expect(r.status, describeResponse(r)).toBe(303);
  const cookie = (r.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const page = await request("GET", "/console/", { cookie });
  const csrf = /name="csrf-token" content="([^"]+)"/.exec(page.text)?.[1] ?? "";
  return { cookie, csrf };
}

describe("console session", () => {
  test("the console without a session sends to the sign-in page", async () => {
    for (const path of ["/console", "/console/", "/console/anything"]) {
      const r = await request("GET", path);
      expect(r.status, path).toBe(303);
      expect(r.headers.get("location")).toBe("/console/sign-in");
    }
    const page = await request("GET", "/console/sign-in");
    expect(page.status).toBe(200);
    expect(page.text).toContain('<label for="token">Operator token</label>');
    expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
  });

  test("sign-in sets an HttpOnly, SameSite=Strict, expiring cookie scoped to /console", async () => {
    const r = await request("POST", "/console/sign-in", { form: { token: h.deps.adminToken } });
    expect(r.status, describeResponse(r)).toBe(303);
    expect(r.headers.get("location")).toBe("/console/");
    const cookie = r.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^console_session=[0-9a-f-]{36}\.\d+\.[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).toContain("Path=/console");
    const expires = new Date(/Expires=([^;]+)/.exec(cookie)?.[1] ?? "").getTime();
    expect(expires).toBe(Math.floor((h.clock.now().getTime() + sessionPolicy(h.deps.config).maxMs) / 1000) * 1000);
    expect(cookie).not.toContain(h.deps.adminToken);
  });

  test("a wrong token, a customer's API key or a cross-site form never opens a session", async () => {
    const c = await h.customer("Console key");
    for (const token of ["", "wrong-token-wrong-token-wrong", c.mailFull, c.adsFull]) {
      const r = await request("POST", "/console/sign-in", { form: { token } });
      expect(r.status, token).toBe(401);
      expect(r.headers.get("set-cookie")).toBeNull();
      expect(r.text).toContain('id="token-error"');
    }
    const foreign = await request("POST", "/console/sign-in", { form: { token: h.deps.adminToken }, headers: { origin: "https://evil.example" } });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get("set-cookie")).toBeNull();
  });

  test("the API behind the session: reads need the cookie, writes also the CSRF token and our origin", async () => {
    const { cookie, csrf } = await signIn();
    expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const noSession = await request("GET", "/console/api/customers");
    expect(noSession.status).toBe(401);
    expect(JSON.parse(noSession.text).error.code).toBe("unauthorized");

    const list = await request("GET", "/console/api/customers?limit=5", { cookie });
    expect(list.status, describeResponse(list)).toBe(200);
    expect(Array.isArray(JSON.parse(list.text).data)).toBe(true);

    const body = { name: "Made in the console" };
    const noToken = await request("POST", "/console/api/customers", { cookie, json: body });
    expect(noToken.status, describeResponse(noToken)).toBe(403);
    const crossSite = await request("POST", "/console/api/customers", {
      cookie,
      json: body,
      headers: { "x-csrf-token": csrf, origin: "https://evil.example" },
    });
    expect(crossSite.status, describeResponse(crossSite)).toBe(403);
    const made = await request("POST", "/console/api/customers", { cookie, json: body, headers: { "x-csrf-token": csrf, origin: ORIGIN } });
    expect(made.status, describeResponse(made)).toBe(201);
    expect(JSON.parse(made.text).data.name).toBe("Made in the console");

    const invalid = await request("POST", "/console/api/customers", { cookie, json: { name: "" }, headers: { "x-csrf-token": csrf } });
    expect(invalid.status, describeResponse(invalid)).toBe(422);
    expect(JSON.parse(invalid.text).error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: "name" })]));
  });

  test("a tampered or expired cookie is refused", async () => {
    const { cookie } = await signIn();
    const [id, expiry, signature] = cookie.slice("console_session=".length).split(".") as [string, string, string];
    const later = `console_session=${id}.${Number(expiry) + 86_400_000}.${signature}`;
    expect((await request("GET", "/console/api/customers", { cookie: later })).status).toBe(401);
    const flipped = `console_session=${id}.${expiry}.${signature.startsWith("A") ? "B" : "A"}${signature.slice(1)}`;
    expect((await request("GET", "/console/api/customers", { cookie: flipped })).status).toBe(401);
    h.clock.advance(sessionPolicy(h.deps.config).maxMs + 1000);
    try {
      expect((await request("GET", "/console/api/customers", { cookie })).status).toBe(401);
      const page = await request("GET", "/console/", { cookie });
      expect(page.headers.get("location")).toBe("/console/sign-in?expired");
    } finally {
      h.clock.advance(-(sessionPolicy(h.deps.config).maxMs + 1000));
    }
  });

  test("sign-out needs the CSRF token, ends the session and the same cookie is refused afterwards", async () => {
    const { cookie, csrf } = await signIn();
    const forged = await request("POST", "/console/sign-out", { cookie, form: { csrf: "nope" } });
    expect(forged.status).toBe(403);
    expect((await request("GET", "/console/api/customers", { cookie })).status).toBe(200);
    const out = await request("POST", "/console/sign-out", { cookie, form: { csrf } });
    expect(out.status).toBe(303);
    expect(out.headers.get("location")).toBe("/console/sign-in?signed_out");
    expect(out.headers.get("set-cookie")).toMatch(/^console_session=;/);
    expect((await request("GET", "/console/api/customers", { cookie })).status).toBe(401);
    expect((await request("GET", "/console/", { cookie })).status).toBe(303);
  });

  test("the page script and style are served from our origin", async () => {
    const script = await request("GET", "/console/app.js");
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toContain("text/javascript");
    // Addresses in the script are text, never fetched (the page's CSP allows our origin only): the SVG namespace,
    // and the passkey library's link to its docs inside one of its error messages.
    expect(script.text).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg|simplewebauthn\.dev\/docs\/)/i);
    const css = await request("GET", "/console/console.css");
    expect(css.status).toBe(200);
    expect(css.text).toContain(":focus-visible");
  });
});
