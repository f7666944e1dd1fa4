import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { describeResponse, type ErrorEnvelope, type StateDetails } from "../helpers/harness";
import { createAdsWorld, onboardedCustomer, type AdsWorld, type OnboardedCustomer } from "../ads/support/ads-world";

/**
 * The access rules of every operation of the three OpenAPI documents, generated from the documents as
 * served (not listed by hand), against every kind of key: none, a malformed one, the other service's key,
 * the reporting and the full key of the service, and the operator token. What an operation needs comes from
 * a rule of its own, not from the route's declaration: on the mail and ads services a read (GET) needs any
 * key of the service and a write (POST, PUT, PATCH, DELETE) the full scope, unless it is one of the
 * read-only lookups listed below; every admin operation needs the operator token. Only reads may be public,
 * and the signed upload (its URL carries a signed token).
 * The documents' `security` entries (`serviceRoute` writes them) must say the same. On the ads service the account state
 * decides as well: 402 `payment_required` on every full-scope operation unless the account is active, before
 * any platform call; reporting operations stay open while deactivated or overdue, not while a checkout is
 * open or the contract ended (health and the calling key, `GET /v1/key`, excepted). These checks run before the request body is read, so
 * parameters from the documents' examples and no body suffice.
 */
type Operation = { service: Service; method: string; path: string; operationId: string; security: Record<string, string[]>[] | undefined };
type Service = "mail" | "ads" | "admin";
type OpenApiDocument = {
  paths: Record<string, Record<string, { operationId: string; security?: Record<string, string[]>[]; parameters?: Parameter[] }>>;
};
type Parameter = { name: string; in: string; required?: boolean; example?: unknown; schema?: { example?: unknown } };

let world: AdsWorld;
const byState: Record<string, OnboardedCustomer> = {};
const operations: Operation[] = [];
const METHODS = ["get", "post", "put", "patch", "delete"];
const fallbackId = "0f8fad5b-d9cb-469f-a165-70867728950e";

function concretePath(service: Service, path: string, parameters: Parameter[] = []): string {
  // Admin operations act on shared rows (the block library, design tokens): their path ids are never the
  // documents' examples, which may be real seeded ids, so the operator token's calls cannot change what other
  // test files (on a shared PostgreSQL) rely on. A customer's operations are scoped to the customer.
  const example = (p: Parameter) => (service === "admin" && p.in === "path" ? fallbackId : String(p.schema?.example ?? p.example ?? fallbackId));
  const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const parameter = parameters.find((p) => p.in === "path" && p.name === name);
    return encodeURIComponent(parameter ? example(parameter) : fallbackId);
  });
  const query = parameters.filter((p) => p.in === "query" && p.required).map((p) => `${encodeURIComponent(p.name)}=${encodeURIComponent(example(p))}`);
  return `/${service}${filled}${query.length > 0 ? `?${query.join("&")}` : ""}`;
}

beforeAll(async () => {
  // Hundreds of refused keys from one address: the failed-authentication throttle (60 a minute) and the per-customer limit are raised.
  world = await createAdsWorld({ AUTH_FAILURES_PER_MINUTE: "1000000", RATE_LIMIT_PER_MINUTE: "1000000" });
  for (const state of ["active", "deactivated", "overdue", "checkout_open", "ended"]) {
    const c = await onboardedCustomer(world, `Access ${state}`);
    const r = await world.h.admin("PATCH", `/v1/customers/${c.id}`, { ads: { account_state: state } });
    if (r.status !== 200) throw new Error(`account state: ${describeResponse(r)}`);
    byState[state] = c;
  }
  for (const service of ["mail", "ads", "admin"] as const) {
    const served = await world.h.call<OpenApiDocument>("GET", `/${service}/v1/openapi.json`);
    for (const [path, item] of Object.entries(served.json.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!METHODS.includes(method)) continue;
        operations.push({
          service,
          method: method.toUpperCase(),
          path: concretePath(service, path, operation.parameters),
          operationId: operation.operationId,
          security: operation.security,
        });
      }
    }
  }
}, 120_000);
afterAll(async () => world.close());

// Any operation's answer: read as an error envelope when it is one (`?.`), null when the body is not JSON.
const call = (method: string, path: string, key: string | null | undefined) =>
  world.h.call<Partial<ErrorEnvelope<StateDetails | null>> | null>(method, path, { key });
const declaredScope = (operation: Operation) => operation.security?.[0]?.bearerAuth?.[0];
/** Writes that change nothing: a lookup whose input (a list of addresses) does not fit a query string. */
const READ_ONLY_LOOKUPS = new Set(["lookupSuppressions"]);
/** Writes without a key: the signed upload is authorised by the short-lived signed token in its URL. */
const SIGNED_WRITES = new Set(["uploadAssetFile"]);
const isPublic = (operation: Operation) => operation.security?.length === 0;
/** The rule: the scope a service operation needs, from its method (undefined for public and admin operations). */
function scopeOf(operation: Operation): "reporting" | "full" | undefined {
  if (operation.service === "admin" || isPublic(operation)) return undefined;
  return operation.method === "GET" || READ_ONLY_LOOKUPS.has(operation.operationId) ? "reporting" : "full";
}

test("the documents' security entries say what the rule says: writes need the full scope or the operator token; only reads are public", () => {
  const disagreeing: string[] = [];
  for (const operation of operations) {
    const label = `${operation.service} ${operation.method} ${operation.path} (${operation.operationId})`;
    if (isPublic(operation)) {
      if (operation.method !== "GET" && !SIGNED_WRITES.has(operation.operationId)) disagreeing.push(`${label}: a public write`);
      continue;
    }
    if (operation.service === "admin") {
      if (!operation.security?.[0]?.adminToken) disagreeing.push(`${label}: not behind the operator token`);
      continue;
    }
    if (declaredScope(operation) !== scopeOf(operation))
      disagreeing.push(`${label}: declares ${declaredScope(operation)}, the rule says ${scopeOf(operation)}`);
  }
  expect(disagreeing).toEqual([]);
  // Every listed lookup exists, so the list cannot hide a renamed write.
  expect([...READ_ONLY_LOOKUPS, ...SIGNED_WRITES].filter((id) => !operations.some((o) => o.operationId === id))).toEqual([]);
});

test("the documents list every operation: mail, ads and admin, each with a security entry", () => {
  for (const service of ["mail", "ads", "admin"]) expect(operations.filter((o) => o.service === service).length).toBeGreaterThan(20);
  const unsecured = operations.filter((o) => o.security === undefined).map((o) => o.operationId);
  expect(unsecured).toEqual([]);
});

describe("every operation × every key kind", () => {
  test("service operations: no key, a malformed key and the other service's key are 401; a reporting key on a full-scope operation is 403; the operator token is not a service key", async () => {
    const active = byState.active;
    if (!active) throw new Error("no active customer");
    const failures: string[] = [];
    for (const operation of operations.filter((o) => o.service !== "admin")) {
      const scope = scopeOf(operation);
      if (scope === undefined) continue;
      const label = `${operation.method} ${operation.path} (${operation.operationId})`;
      const otherKey = operation.service === "mail" ? active.adsFull : active.mailFull;
      for (const [kind, key] of [
        ["no key", null],
        ["malformed key", "not-a-key"],
        ["the other service's key", otherKey],
        ["the operator token", world.h.deps.adminToken],
      ] as const) {
        const r = await call(operation.method, operation.path, key);
        if (r.status !== 401) failures.push(`${label} with ${kind}: ${describeResponse(r)}`);
      }
      const ownReporting = operation.service === "mail" ? active.mailReporting : active.adsReporting;
      const reporting = await call(operation.method, operation.path, ownReporting);
      if (scope === "full" && (reporting.status !== 403 || reporting.json?.error?.code !== "forbidden"))
        failures.push(`${label} with a reporting key: ${describeResponse(reporting)}`);
      if (scope === "reporting" && ([401, 403].includes(reporting.status) || reporting.status >= 500))
        failures.push(`${label} with a reporting key: ${describeResponse(reporting)}`);
      const ownFull = operation.service === "mail" ? active.mailFull : active.adsFull;
      const full = await call(operation.method, operation.path, ownFull);
      if ([401, 403].includes(full.status) || full.status >= 500) failures.push(`${label} with a full key: ${describeResponse(full)}`);
    }
    expect(failures).toEqual([]);
  }, 120_000);

  test("admin operations: no token, a wrong token and a service key are 401; the operator token passes", async () => {
    const failures: string[] = [];
    for (const operation of operations.filter((o) => o.service === "admin" && !isPublic(o))) {
      const label = `${operation.method} ${operation.path} (${operation.operationId})`;
      for (const [kind, key] of [
        ["no token", null],
        ["a wrong token", "x".repeat(40)],
        ["an ads full key", byState.active?.adsFull],
        ["a mail full key", byState.active?.mailFull],
      ] as const) {
        const r = await call(operation.method, operation.path, key);
        if (r.status !== 401) failures.push(`${label} with ${kind}: ${describeResponse(r)}`);
      }
      const r = await call(operation.method, operation.path, world.h.deps.adminToken);
      if ([401, 403].includes(r.status) || r.status >= 500) failures.push(`${label} with the operator token: ${describeResponse(r)}`);
    }
    expect(failures).toEqual([]);
  }, 120_000);

  test("public operations answer without a key (never 401, never 5xx)", async () => {
    const failures: string[] = [];
    for (const operation of operations.filter(isPublic)) {
      const r = await call(operation.method, operation.path, null);
      if (r.status === 401 || r.status >= 500) failures.push(`${operation.method} ${operation.path}: ${describeResponse(r)}`);
    }
    expect(failures).toEqual([]);
  });

  test.each(["deactivated", "overdue", "checkout_open", "ended"])(
    "ads, account %s: full-scope operations are 402 before any platform call; reporting ones follow the state",
    async (state) => {
      const c = byState[state];
      if (!c) throw new Error(`no ${state} customer`);
      const readable = state === "deactivated" || state === "overdue";
      const failures: string[] = [];
      for (const operation of operations.filter((o) => o.service === "ads" && scopeOf(o) !== undefined)) {
        const label = `${operation.method} ${operation.path} (${operation.operationId})`;
        world.sim.clearRequests();
        if (scopeOf(operation) === "full") {
          const r = await call(operation.method, operation.path, c.adsFull);
          if (r.status !== 402 || r.json?.error?.code !== "payment_required" || r.json?.error?.details?.account_state !== state)
            failures.push(`${label}: ${describeResponse(r)}`);
          if (world.sim.requests().length > 0) failures.push(`${label}: called the platform`);
          continue;
        }
        const r = await call(operation.method, operation.path, c.adsReporting);
        // Health and the calling key answer in every account state (the "account" access), so a tool can learn its scope.
        const exempt = operation.path === "/ads/v1/health" || operation.path === "/ads/v1/key";
        if (readable || exempt ? r.status === 402 || r.status >= 500 : r.status !== 402 || r.json?.error?.code !== "payment_required")
          failures.push(`${label}: ${describeResponse(r)}`);
      }
      expect(failures).toEqual([]);
    },
    120_000,
  );
});
