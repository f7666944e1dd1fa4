import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { auditLog } from "../../lib/db/schema";
import { createHarness, describeResponse, type ErrorEnvelope, type Harness, type StateDetails } from "../helpers/harness";
import { makeOperator, type TestOperator } from "../helpers/operators";

/**
 * Roles and the audit log over every operation of the admin document as served (not listed by hand), as
 * tests/foundation/access-matrix.http.test.ts enumerates them: each operation's `x-required-role` and `x-operation-kind`
 * say what a support operator may do and what must be audited. A support operator's call of every write
 * not open to support answers 403 in the envelope and leaves its audit entry; every read (and every write
 * open to support) is not 403. Every write, called by an owner, leaves exactly one audit entry with its
 * operationId and request id, whatever it answers. Path ids are a fresh UUID and bodies are absent, so no
 * call changes rows other files rely on (on a shared PostgreSQL).
 */
type Operation = { method: string; path: string; operationId: string; role: string; kind: string };
type OpenApiOperation = {
  operationId: string;
  "x-required-role"?: string;
  "x-operation-kind"?: string;
  parameters?: { name: string; in: string; required?: boolean; schema?: { example?: unknown } }[];
  description?: string;
};

let h: Harness;
let support: TestOperator;
let owner: TestOperator;
const operations: Operation[] = [];
const fallbackId = "0f8fad5b-d9cb-469f-a165-70867728950e";

beforeAll(async () => {
  h = await createHarness({ env: { AUTH_FAILURES_PER_MINUTE: "1000000", RATE_LIMIT_PER_MINUTE: "1000000" } });
  support = await makeOperator(h, "support");
  owner = await makeOperator(h, "owner");
  const served = await h.call<{ paths: Record<string, Record<string, OpenApiOperation>> }>("GET", "/admin/v1/openapi.json");
  for (const [path, item] of Object.entries(served.json.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
      const query = (operation.parameters ?? [])
        .filter((p) => p.in === "query" && p.required)
        .map((p) => `${p.name}=${encodeURIComponent(String(p.schema?.example ?? fallbackId))}`);
      operations.push({
        method: method.toUpperCase(),
        path: `/admin${path.replace(/\{[^}]+\}/g, fallbackId)}${query.length > 0 ? `?${query.join("&")}` : ""}`,
        operationId: operation.operationId,
        role: operation["x-required-role"] ?? "",
        kind: operation["x-operation-kind"] ?? "",
      });
      if (!operation.description?.includes("Required role:")) throw new Error(`${operation.operationId}: no role sentence`);
    }
  }
}, 120_000);
afterAll(async () => h.close());

async function entries(requestId: string) {
  return h.db.select().from(auditLog).where(sql`${auditLog.requestId} = ${requestId}`);
}

// Any operation of the document: a success body or an error envelope (a 403's details are an object of facts).
function callAs(operator: TestOperator, operation: Operation, requestId: string) {
  return h.call<Partial<ErrorEnvelope<StateDetails>> | null>(operation.method, operation.path, { key: operator.token, headers: { "x-request-id": requestId } });
}

test("every admin operation declares its role and kind", () => {
  expect(operations.length).toBeGreaterThan(60);
  const undeclared = operations.filter((o) => !["owner", "admin", "support"].includes(o.role) || !["read", "write", "secret-read"].includes(o.kind));
  expect(undeclared.map((o) => o.operationId)).toEqual([]);
  // Writes and reads as the method says, except the POSTs that only read (previews, lookups).
  const writes = operations.filter((o) => o.kind === "write");
  expect(writes.every((o) => o.method !== "GET")).toBe(true);
  expect(writes.length).toBeGreaterThan(20);
});

describe("a support operator", () => {
  test("every write not open to support → 403 in the envelope, audited with its 403", async () => {
    const failures: string[] = [];
    for (const operation of operations.filter((o) => o.kind === "write" && o.role !== "support")) {
      const requestId = crypto.randomUUID();
      const r = await callAs(support, operation, requestId);
      const label = `${operation.method} ${operation.path} (${operation.operationId})`;
      if (r.status !== 403 || r.json?.error?.code !== "forbidden" || r.json?.error?.details?.reason !== "role_required" || r.json?.request_id !== requestId)
        failures.push(`${label}: ${describeResponse(r)}`);
      const logged = await entries(requestId);
      if (logged.length !== 1 || logged[0]?.status !== 403 || logged[0]?.operatorId !== support.id || logged[0]?.operationId !== operation.operationId)
        failures.push(`${label}: audit ${JSON.stringify(logged)}`);
    }
    expect(failures).toEqual([]);
  }, 120_000);

  test("every read, and every write open to support, is not 403", async () => {
    const failures: string[] = [];
    for (const operation of operations.filter((o) => o.role === "support")) {
      const r = await callAs(support, operation, crypto.randomUUID());
      if (r.status === 403 || r.status === 401 || r.status >= 500)
        failures.push(`${operation.method} ${operation.path} (${operation.operationId}): ${describeResponse(r)}`);
    }
    expect(failures).toEqual([]);
    // Reads of higher roles are refused as well (operator management).
    const owners = operations.filter((o) => o.kind === "read" && o.role === "owner");
    expect(owners.length).toBeGreaterThan(0);
    for (const operation of owners) expect((await callAs(support, operation, crypto.randomUUID())).status).toBe(403);
  }, 120_000);
});

test("every write and secret read, called by an owner, leaves exactly one audit entry (whatever it answers); reads leave none", async () => {
  const failures: string[] = [];
  for (const operation of operations) {
    const requestId = crypto.randomUUID();
    const r = await callAs(owner, operation, requestId);
    const label = `${operation.method} ${operation.path} (${operation.operationId})`;
    if (r.status >= 500) failures.push(`${label}: ${describeResponse(r)}`);
    const logged = await entries(requestId);
    const expected = operation.kind === "read" ? 0 : 1;
    if (logged.length !== expected) failures.push(`${label}: ${logged.length} entries`);
    const [entry] = logged;
    if (entry && (entry.operationId !== operation.operationId || entry.status !== r.status || entry.actorType !== "token" || entry.tokenId === null))
      failures.push(`${label}: ${JSON.stringify(entry)}`);
  }
  expect(failures).toEqual([]);
}, 120_000);
