import { isUtf8 } from "node:buffer";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createHarness, describeResponse, type Harness, type Admin, type ErrorEnvelope, type Mail } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";

/*
 * Every operation of the three OpenAPI documents, driven with generated hostile input: path ids, query
 * strings and bodies derived from the operation's own schemas, with NUL characters, full Unicode (lone
 * surrogates included, which JSON carries as `\ud800` escapes), huge, negative and
 * fractional numbers, wrong types, deep nesting and long strings mixed in. No answer may be a 5xx; every
 * 4xx is the error envelope; afterwards both services still answer their health check.
 */

type Schema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  nullable?: boolean;
  format?: string;
  minimum?: number;
  maximum?: number;
  additionalProperties?: Schema | boolean;
};
type Parameter = { name: string; in: "path" | "query" | "header"; schema?: Schema; required?: boolean };
type Operation = { parameters?: Parameter[]; requestBody?: { content?: Record<string, { schema?: Schema }> }; security?: unknown[] };
type Document = { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Schema> } };

const RUNS_PER_OPERATION = Number(process.env.HOSTILE_RUNS ?? 25);
const SEED = Number(process.env.HOSTILE_SEED ?? 20261124);

/** JSON text nested `levels` deep (as text: serialising such a value would overflow the client's stack). */
const deepText = (levels: number) => `${'{"a":['.repeat(levels)}1${"]}".repeat(levels)}`;

const deep = (levels: number): unknown => {
  let value: unknown = "bottom";
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? { a: value } : [value];
  return value;
};

/**
 * Any code point, and now and then half of a surrogate pair on its own: everything a JSON string can carry
 * (`JSON.stringify` writes a lone surrogate as a `\udXXX` escape, as a hostile client would).
 */
const anyJsonText = fc.string({
  unit: fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) },
    { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)) },
  ),
  maxLength: 40,
});

/** Values that have broken services before, whatever the field's type. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    "\u0000",
    "a\u0000b",
    "\ud800",
    "a\udfffb",
    "\udc00\ud800",
    "",
    " ",
    "x".repeat(10_000),
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 \u202e ﷽",
    "'; drop table customers; --",
    "../../etc/passwd",
    "{{#a}}{{/b}}{{{x}}}",
    2 ** 31,
    2 ** 31 - 1,
    -(2 ** 31) - 1,
    2 ** 53,
    Number.MAX_SAFE_INTEGER + 2,
    1e308,
    -1,
    0,
    1.5,
    true,
    null,
    [],
    {},
    { "\u0000": 1 },
    { "\ud800": 1 },
    deep(40),
  ),
  anyJsonText,
  fc.integer(),
  fc.double(),
);

function resolve(schema: Schema | undefined, doc: Document): Schema {
  if (!schema) return {};
  if (schema.$ref) return resolve(doc.components?.schemas?.[schema.$ref.split("/").pop() ?? ""], doc);
  return schema;
}

/** A value shaped like `schema`, each leaf sometimes replaced by a hostile value. */
function shaped(schema: Schema | undefined, doc: Document, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema, doc);
  const leaf = (arbitrary: fc.Arbitrary<unknown>) => fc.oneof({ weight: 3, arbitrary }, { weight: 1, arbitrary: hostileValue });
  if (depth > 6) return hostileValue;
  const choices = s.anyOf ?? s.oneOf;
  if (choices && choices.length > 0) return fc.oneof(...choices.map((choice) => shaped(choice, doc, depth + 1)));
  if (s.allOf && s.allOf.length > 0) return shaped(s.allOf[0], doc, depth + 1);
  if (s.enum) return leaf(fc.constantFrom(...s.enum));
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
  switch (type) {
    case "object": {
      const properties = Object.entries(s.properties ?? {});
      if (properties.length === 0) return leaf(fc.dictionary(fc.string({ maxLength: 8 }), hostileValue, { maxKeys: 3 }));
      const record = Object.fromEntries(properties.map(([name, property]) => [name, shaped(property, doc, depth + 1)]));
      return leaf(fc.record(record, { requiredKeys: s.required?.filter((name) => name in record) ?? [] }));
    }
    case "array":
      return leaf(fc.array(shaped(s.items, doc, depth + 1), { maxLength: 3 }));
    case "integer":
      return leaf(fc.integer({ min: s.minimum ?? -1000, max: Math.min(s.maximum ?? 100_000, Number.MAX_SAFE_INTEGER) }));
    case "number":
      return leaf(fc.double({ noNaN: true, min: s.minimum ?? -1e6, max: s.maximum ?? 1e6 }));
    case "boolean":
      return leaf(fc.boolean());
    case "string":
      if (s.format === "uuid") return leaf(fc.uuid());
      if (s.format === "uri" || s.format === "url") return leaf(fc.constantFrom("https://example.com/a", "http://127.0.0.1/", "javascript:alert(1)"));
      if (s.format === "email") return leaf(fc.constantFrom("a@example.com", "not an address"));
      if (s.format === "date-time") return leaf(fc.constantFrom("2026-11-24T10:00:00Z", "2026-13-45T99:99:99Z", "0000-00-00"));
      return leaf(fc.oneof({ weight: 3, arbitrary: fc.string({ maxLength: 30 }) }, { weight: 1, arbitrary: anyJsonText }));
    default:
      return hostileValue;
  }
}

const pathId = fc.oneof(
  fc.uuid(),
  fc.constantFrom("x", "%00", "a%00b", "00000000-0000-0000-0000-000000000000", "9".repeat(400), "%F0%9D%94%98", "..", "%2e%2e", "-1", "1e308"),
  fc.constantFrom("%ff%fe", "%ED%A0%80", "%C0%AF", "%E0%80%80", "%F4%90%80%80", "%", "%zz", "a%e2%82"),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 }).map(encodeURIComponent),
);

type Call = {
  path: string;
  query: [string, string][];
  body: { json: unknown } | { raw: string | Uint8Array<ArrayBuffer> } | null;
  auth: "own" | "other" | "none";
};

/**
 * Byte sequences that are not UTF-8: a UTF-16 surrogate encoded as UTF-8, a byte no UTF-8 has, overlong
 * forms of "/" and of NUL, a code point past U+10FFFF, a lone continuation byte and a sequence cut short.
 */
const RAW_BYTE_CASES: readonly (readonly number[])[] = [
  [0xed, 0xa0, 0x80],
  [0xff],
  [0xc0, 0xaf],
  [0xe0, 0x80, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0x80],
  [0xe2, 0x82],
];

/** JSON text with `bytes` put into its first string (or before its end when it has none), as a client that does not encode UTF-8 sends it. */
function withRawBytes(json: string, bytes: readonly number[]): Uint8Array<ArrayBuffer> {
  const text = Buffer.from(json);
  const quote = text.indexOf(0x22);
  const at = quote === -1 ? text.length : quote + 1;
  return new Uint8Array([...text.subarray(0, at), ...bytes, ...text.subarray(at)]);
}

function operationArbitrary(path: string, operation: Operation, doc: Document): fc.Arbitrary<Call> {
  const parameters = operation.parameters ?? [];
  const pathNames = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? "");
  const ids = fc.tuple(...pathNames.map(() => pathId));
  const queryParams = parameters.filter((p) => p.in === "query");
  const queryValue = (p: Parameter) =>
    fc.oneof(
      shaped(p.schema, doc).map((v) => (typeof v === "string" ? v : (JSON.stringify(v) ?? ""))),
      fc.constantFrom("\u0000", "%00", "-1", "99999999999999999999", "[object Object]"),
    );
  const query = fc.array(
    fc.oneof(
      ...(queryParams.length > 0 ? [fc.constantFrom(...queryParams).chain((p) => queryValue(p).map((v): [string, string] => [p.name, v]))] : []),
      fc.tuple(fc.constantFrom("unknown", "limit", "after", "\u0000"), fc.string({ maxLength: 10 })),
    ),
    { maxLength: 3 },
  );
  const content = operation.requestBody?.content ?? {};
  const jsonSchema = content["application/json"]?.schema;
  const body: fc.Arbitrary<Call["body"]> = jsonSchema
    ? fc.oneof(
        { weight: 4, arbitrary: shaped(jsonSchema, doc).map((json) => ({ json })) },
        { weight: 1, arbitrary: hostileValue.map((json) => ({ json })) },
        {
          weight: 1,
          arbitrary: fc.constantFrom({ raw: "{" }, { raw: "[".repeat(100_000) }, { raw: "" }, { raw: deepText(5000) }, { raw: `{"name":${deepText(33)}}` }),
        },
        {
          weight: 1,
          arbitrary: fc
            .tuple(shaped(jsonSchema, doc), fc.constantFrom(...RAW_BYTE_CASES))
            .map(([json, bytes]) => ({ raw: withRawBytes(JSON.stringify(json) ?? "null", bytes) })),
        },
      )
    : Object.keys(content).length > 0
      ? fc.oneof(
          fc.uint8Array({ maxLength: 64 }).map((bytes) => ({ raw: Buffer.from(bytes).toString("latin1") })),
          fc.constant({ raw: "" }),
        )
      : fc.constant(null);
  const auth = fc.constantFrom<Call["auth"]>("own", "own", "own", "other", "none");
  return fc.record({ ids, query, body, auth }).map(({ ids, query, body, auth }) => ({
    path: pathNames.reduce((p, name, i) => p.replace(`{${name}}`, ids[i] ?? "x"), path),
    query,
    body,
    auth,
  }));
}

let h: Harness;
let keys: { mail: string; ads: string; adsReporting: string; mailReporting: string };
const documents: [service: "mail" | "ads" | "admin", doc: Document][] = [];

beforeAll(async () => {
  // Some generated requests carry no or a wrong key on purpose, all from one (in-process) address: the
  // failed-authentication throttle has its own test and must not turn them into 429s here.
  // The generated tests send thousands of requests a minute per customer: the per-customer limit has its own test too.
  h = await createHarness({ env: { AUTH_FAILURES_PER_MINUTE: "1000000", RATE_LIMIT_PER_MINUTE: "1000000" } });
  const c = await readyMailCustomer(h, "Hostile input");
  keys = { mail: c.mailFull, ads: c.adsFull, adsReporting: c.adsReporting, mailReporting: c.mailReporting };
  for (const service of ["mail", "ads", "admin"] as const) {
    const r = await h.call("GET", `/${service}/v1/openapi.json`);
    expect(r.status, describeResponse(r)).toBe(200);
    documents.push([service, r.json as Document]);
  }
});
afterAll(async () => h.close());

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

describe("hostile input never reaches a 5xx", () => {
  test("every operation of the three documents, with generated hostile paths, queries and bodies", { timeout: 600_000 }, async () => {
    let requests = 0;
    const statuses = new Map<number, number>();
    for (const [service, doc] of documents) {
      for (const [path, item] of Object.entries(doc.paths)) {
        for (const method of METHODS) {
          const operation = item[method];
          if (!operation) continue;
          const own = service === "admin" ? h.deps.adminToken : service === "mail" ? keys.mail : keys.ads;
          const other = service === "admin" ? "not-the-admin-token-0123456789" : service === "mail" ? keys.mailReporting : keys.adsReporting;
          await fc.assert(
            fc.asyncProperty(operationArbitrary(path, operation, doc), async (call) => {
              requests++;
              const search = new URLSearchParams(call.query).toString();
              const url = `/${service}${path.startsWith("/v1") ? "" : "/v1"}${call.path}${search ? `?${search}` : ""}`;
              const key = call.auth === "own" ? own : call.auth === "other" ? other : null;
              const headers: Record<string, string> = {};
              let rawBody: string | Uint8Array<ArrayBuffer> | undefined;
              if (call.body && "json" in call.body) {
                rawBody = JSON.stringify(call.body.json) ?? "null";
                headers["content-type"] = "application/json";
              } else if (call.body) {
                rawBody = call.body.raw;
                headers["content-type"] = "application/json";
              }
              const r = await h.call<Partial<ErrorEnvelope> | null>(method.toUpperCase(), url, { key, headers, rawBody });
              statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
              const shownBody = typeof rawBody === "string" ? rawBody.slice(0, 300) : rawBody ? Buffer.from(rawBody.subarray(0, 300)).toString("latin1") : "";
              const described = `${method.toUpperCase()} ${url} ${shownBody} → ${describeResponse({ status: r.status, text: r.text.slice(0, 600) })}`;
              expect(r.status, described).toBeLessThan(500);
              // Bytes that are not UTF-8 are never accepted (they would be stored as U+FFFD).
              if (rawBody instanceof Uint8Array && !isUtf8(rawBody)) expect(r.status, described).toBeGreaterThanOrEqual(400);
              if (r.status >= 400 && r.headers.get("content-type")?.includes("json")) {
                expect(r.json?.error, described).toMatchObject({ code: expect.any(String), message: expect.any(String) });
                expect(r.json?.error?.details, described).toBeDefined();
                expect(r.json?.request_id, described).toEqual(expect.any(String));
              }
            }),
            { numRuns: RUNS_PER_OPERATION, seed: SEED, endOnFailure: true },
          );
        }
      }
    }
    expect(requests).toBeGreaterThan(500);
    // Coverage: most requests get past authentication, and some are accepted.
    process.stdout.write(`hostile input: ${requests} requests, statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}\n`);
    expect([...statuses].filter(([status]) => status < 300).reduce((n, [, count]) => n + count, 0)).toBeGreaterThan(requests / 20);
    for (const [service, key] of [
      ["mail", keys.mail],
      ["ads", keys.ads],
    ] as const) {
      const health = await h.call("GET", `/${service}/v1/health`, { key });
      expect(health.status, describeResponse(health)).toBe(200);
    }
  });

  test("every operation that takes JSON refuses a lone surrogate in its string values with 422 naming the field", async () => {
    /** A body built from the schema's own examples, every string value ending in half a surrogate pair. */
    const exampleWithSurrogates = (schema: Schema | undefined, doc: Document, depth = 0): unknown => {
      const s = resolve(schema, doc) as Schema & { example?: unknown };
      if (depth > 8) return null;
      const choice = s.anyOf?.[0] ?? s.oneOf?.[0] ?? s.allOf?.[0];
      if (choice) return exampleWithSurrogates(choice, doc, depth + 1);
      const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
      if (type === "object" || s.properties) {
        const entries = Object.entries(s.properties ?? {}).map(([name, property]) => [name, exampleWithSurrogates(property, doc, depth + 1)]);
        return Object.fromEntries(entries.length > 0 ? entries : [["key", "value\ud800"]]);
      }
      if (type === "array") return [exampleWithSurrogates(s.items, doc, depth + 1)];
      const example = s.example ?? s.enum?.[0];
      if (type === "string" || typeof example === "string") return `${typeof example === "string" ? example : "text"}\ud800`;
      return example ?? null;
    };
    let operations = 0;
    for (const [service, doc] of documents) {
      const own = service === "admin" ? h.deps.adminToken : service === "mail" ? keys.mail : keys.ads;
      for (const [path, item] of Object.entries(doc.paths)) {
        for (const method of ["post", "put", "patch", "delete"] as const) {
          const schema = item[method]?.requestBody?.content?.["application/json"]?.schema;
          if (!schema) continue;
          const url = `/${service}${path.replace(/\{[^}]+\}/g, "00000000-0000-4000-8000-000000000000")}`;
          const example = exampleWithSurrogates(schema, doc);
          // A body of numbers and booleans only carries the surrogate in a key instead.
          const text = JSON.stringify(example);
          const rawBody = text.includes("\\ud800") ? text : JSON.stringify({ ...(example as object), "note\ud800": 1 });
          const r = await h.call<ErrorEnvelope>(method.toUpperCase(), url, { key: own, rawBody, headers: { "content-type": "application/json" } });
          const described = `${method.toUpperCase()} ${url} ${rawBody.slice(0, 200)} → ${describeResponse({ status: r.status, text: r.text.slice(0, 400) })}`;
          expect(r.status, described).toBe(422);
          const [first] = r.json.error.details as ({ path: string; message: string } | { field: string; issue: string })[];
          expect("field" in (first ?? {}) ? (first as { issue: string }).issue : (first as { message: string }).message, described).toContain("lone surrogate");
          operations++;
        }
      }
    }
    expect(operations).toBeGreaterThan(40);
  });

  test("the core refuses NUL anywhere (422 naming the field), deep nesting (400) and integers past their column", async () => {
    const mail = <T = Mail["createTemplate"]>(body: unknown) => h.call<T>("POST", "/mail/v1/templates", { key: keys.mail, body });
    const nul = await mail<ErrorEnvelope>({ name: "a\u0000b", subject: "Hi", blocks: [] });
    expect(nul.status, describeResponse(nul)).toBe(422);
    expect(nul.json.error.details).toEqual([{ path: "name", message: expect.stringContaining("NUL") }]);
    const nested = await h.call<ErrorEnvelope>("POST", "/ads/v1/adsets", {
      key: keys.ads,
      rawBody: `{"target":"demo","daily_budget_cents":100,"targeting":${deepText(5000)}}`,
      headers: { "content-type": "application/json" },
    });
    expect(nested.status, describeResponse(nested)).toBe(400);
    expect(nested.json.error.message).toContain("32 levels");
    const adsNul = await h.call<ErrorEnvelope>("POST", "/ads/v1/adsets", { key: keys.ads, body: { target: "de\u0000mo", daily_budget_cents: 100 } });
    expect(adsNul.status, describeResponse(adsNul)).toBe(422);
    expect(adsNul.json.error.details).toEqual([{ field: "target", issue: expect.stringContaining("NUL") }]);
    // A lone surrogate, sent as the JSON escape a client writes: refused like NUL, naming the field, on every surface.
    const surrogate = (json: string) => ({ rawBody: json, headers: { "content-type": "application/json" } });
    const mailSurrogate = await h.call<ErrorEnvelope>("POST", "/mail/v1/templates", {
      key: keys.mail,
      ...surrogate('{"name":"a\\ud800b","subject":"Hi","blocks":[]}'),
    });
    expect(mailSurrogate.status, describeResponse(mailSurrogate)).toBe(422);
    expect(mailSurrogate.json.error.details).toEqual([{ path: "name", message: expect.stringContaining("lone surrogate") }]);
    const adsSurrogate = await h.call<ErrorEnvelope>("POST", "/ads/v1/adsets", {
      key: keys.ads,
      ...surrogate('{"target":"demo","daily_budget_cents":100,"targeting":{"flexible_spec":[{"interests":[{"id":"1","name":"\\udc00"}]}]}}'),
    });
    expect(adsSurrogate.status, describeResponse(adsSurrogate)).toBe(422);
    expect(adsSurrogate.json.error.details).toEqual([
      { field: "targeting.flexible_spec.0.interests.0.name", issue: expect.stringContaining("lone surrogate") },
    ]);
    const keySurrogate = await h.call<ErrorEnvelope>("PUT", `/admin/v1/customers/00000000-0000-4000-8000-000000000000/mail/design-rules`, {
      key: h.deps.adminToken,
      ...surrogate('{"tokens":{"\\ud83d":"#fff"}}'),
    });
    expect(keySurrogate.status, describeResponse(keySurrogate)).toBe(422);
    expect(keySurrogate.json.error.details).toEqual([{ path: "tokens.\uFFFD", message: expect.stringContaining("lone surrogate") }]);
    // A pair is one valid character and passes the check (the empty block list is what is refused here).
    const pair = await h.call<ErrorEnvelope>("POST", "/mail/v1/templates", {
      key: keys.mail,
      ...surrogate('{"name":"\\ud83d\\ude00 template","subject":"Hi","blocks":[]}'),
    });
    expect(pair.json.error.details, describeResponse(pair)).toEqual([{ path: "blocks", message: expect.any(String) }]);
    const query = await h.call("GET", "/mail/v1/templates?after=%00", { key: keys.mail });
    expect(query.status, describeResponse(query)).toBe(422);
    const customer = await h.admin<Admin["createCustomer"]>("POST", "/v1/customers", { name: "Big" });
    const big = await h.admin("PATCH", `/v1/customers/${customer.json.data.id}`, { mail: { monthly_limit: 2 ** 31 } });
    expect(big.status, describeResponse(big)).toBe(422);
    const fits = await h.admin("PATCH", `/v1/customers/${customer.json.data.id}`, { mail: { monthly_limit: 2 ** 31 - 1 } });
    expect(fits.status, describeResponse(fits)).toBe(200);
  });
});

/** A body built from the schema's own examples (strings without one read "text"; a free-form object `{ key: "value" }`). */
function exampleBody(schema: Schema | undefined, doc: Document, depth = 0): unknown {
  const s = resolve(schema, doc) as Schema & { example?: unknown };
  if (depth > 8) return null;
  const choice = s.anyOf?.[0] ?? s.oneOf?.[0] ?? s.allOf?.[0];
  if (choice) return exampleBody(choice, doc, depth + 1);
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
  if (type === "object" || s.properties) {
    const entries = Object.entries(s.properties ?? {}).map(([name, property]) => [name, exampleBody(property, doc, depth + 1)]);
    return Object.fromEntries(entries.length > 0 ? entries : [["key", "value"]]);
  }
  if (type === "array") return [exampleBody(s.items, doc, depth + 1)];
  const example = s.example ?? s.enum?.[0];
  if (type === "string") return typeof example === "string" ? example : "text";
  return example ?? null;
}

/** Every string value and every key of a JSON value, by its path. */
type TextPosition = { path: string[]; key: boolean };
function textPositions(value: unknown, path: string[] = []): TextPosition[] {
  if (typeof value === "string") return [{ path, key: false }];
  if (Array.isArray(value)) return value.flatMap((item, i) => textPositions(item, [...path, String(i)]));
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([name, item]) => [{ path: [...path, name], key: true }, ...textPositions(item, [...path, name])]);
  }
  return [];
}

/** `value` with `marker` appended to the string or key at `position`. */
function marked(value: unknown, position: TextPosition, marker: string, depth = 0): unknown {
  const [head, ...rest] = position.path.slice(depth);
  if (head === undefined) return typeof value === "string" ? `${value}${marker}` : value;
  if (Array.isArray(value)) return value.map((item, i) => (String(i) === head ? marked(item, position, marker, depth + 1) : item));
  const record = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(record).map(([name, item]) => {
      if (name !== head) return [name, item];
      return [
        rest.length === 0 && position.key ? `${name}${marker}` : name,
        rest.length === 0 && position.key ? item : marked(item, position, marker, depth + 1),
      ];
    }),
  );
}

/** The operations of the three documents: service, method, path template and the operation. */
function operationsOf(): { service: "mail" | "ads" | "admin"; method: (typeof METHODS)[number]; path: string; operation: Operation; doc: Document }[] {
  return documents.flatMap(([service, doc]) =>
    Object.entries(doc.paths).flatMap(([path, item]) =>
      METHODS.flatMap((method) => {
        const operation = item[method];
        return operation ? [{ service, method, path, operation, doc }] : [];
      }),
    ),
  );
}

const FAKE_ID = "00000000-0000-4000-8000-000000000000";
/** Path segments no operation can read: undecodable escapes (bad hex, cut short, overlong, surrogates, past U+10FFFF, no UTF-8 byte) and an id longer than any. */
const PATH_CASES = ["%ff%fe", "%ED%A0%80", "%C0%AF", "%E0%80%80", "%F4%90%80%80", "%", "%zz", "a%e2%82", "%80", "a".repeat(300)];

describe("text that is not UTF-8 is refused, never silently changed", () => {
  test("every operation with a path parameter answers 400 (undecodable) or 404 (too long) in the envelope, on its API and through the console", async () => {
    let operations = 0;
    let requests = 0;
    for (const { service, method, path } of operationsOf()) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? "");
      if (names.length === 0) continue;
      operations++;
      const own = service === "admin" ? h.deps.adminToken : service === "mail" ? keys.mail : keys.ads;
      for (let position = 0; position < names.length; position++) {
        for (const segment of PATH_CASES) {
          let i = 0;
          const concrete = path.replace(/\{[^}]+\}/g, () => (i++ === position ? segment : FAKE_ID));
          const urls = [`/${service}${concrete}`];
          // The console's `/console/api/<path>` is the admin API's `/admin/v1/<path>`: refused before the session is read.
          if (service === "admin") urls.push(`/console/api${concrete.replace(/^\/v1/, "")}`);
          for (const url of urls) {
            requests++;
            const body = method === "get" || method === "delete" ? {} : { rawBody: "{}", headers: { "content-type": "application/json" } };
            const r = await h.call<ErrorEnvelope>(method.toUpperCase(), url, { key: url.startsWith("/console") ? null : own, ...body });
            const described = `${method.toUpperCase()} ${url.slice(0, 200)} → ${describeResponse({ status: r.status, text: r.text.slice(0, 400) })}`;
            expect(r.status, described).toBe(segment.length > 256 ? 404 : 400);
            expect(r.json.error.code, described).toBe(segment.length > 256 ? "not_found" : "bad_request");
            expect(r.json.error.details, described).toEqual(
              segment.length > 256 ? [] : [expect.objectContaining(service === "ads" ? { field: "path" } : { path: "path" })],
            );
            expect(r.headers.get("x-content-type-options"), described).toBe("nosniff");
          }
        }
      }
    }
    process.stdout.write(`malformed paths: ${operations} operations with a path parameter x ${PATH_CASES.length} segments, ${requests} requests, 0 x 5xx\n`);
    expect(operations).toBeGreaterThan(60);
  });

  test("raw bytes that are not UTF-8 in every string and key of every operation's JSON body answer 400 naming the field; none is accepted", async () => {
    const MARKER = "\u0001RAW\u0001";
    let operations = 0;
    let requests = 0;
    let serverErrors = 0;
    let rewritten = 0;
    for (const { service, method, path, operation, doc } of operationsOf()) {
      const schema = operation.requestBody?.content?.["application/json"]?.schema;
      if (!schema) continue;
      operations++;
      const own = service === "admin" ? h.deps.adminToken : service === "mail" ? keys.mail : keys.ads;
      const url = `/${service}${path.replace(/\{[^}]+\}/g, FAKE_ID)}`;
      const example = exampleBody(schema, doc);
      const positions = textPositions(example);
      // A body without strings or keys (a bare number) carries the bytes in a key of its own.
      const bodies =
        positions.length > 0 ? positions.map((position) => ({ value: example, position })) : [{ value: { note: 1 }, position: { path: ["note"], key: true } }];
      for (const { value, position } of bodies) {
        const [before, after] = (JSON.stringify(marked(value, position, MARKER)) ?? "").split(JSON.stringify(MARKER).slice(1, -1));
        expect(after, `${url}: marker placed once`).toBeDefined();
        const named = position.key ? [...position.path.slice(0, -1), `${position.path.at(-1)}\uFFFD`].join(".") : position.path.join(".") || "body";
        for (const bytes of RAW_BYTE_CASES) {
          requests++;
          const rawBody = new Uint8Array([...Buffer.from(before ?? ""), ...bytes, ...Buffer.from(after ?? "")]);
          const r = await h.call<ErrorEnvelope<({ path: string } | { field: string })[]>>(method.toUpperCase(), url, {
            key: own,
            rawBody,
            headers: { "content-type": "application/json" },
          });
          if (r.status >= 500) serverErrors++;
          if (r.status < 300) rewritten++;
          const described = `${method.toUpperCase()} ${url} ${Buffer.from(rawBody).toString("latin1").slice(0, 300)} → ${describeResponse({ status: r.status, text: r.text.slice(0, 400) })}`;
          expect(r.status, described).toBe(400);
          const [first] = r.json.error.details;
          const field = first && ("field" in first ? first.field : first.path);
          // The named field ends in the U+FFFD that stands for the bytes (a sequence of several invalid bytes may add more).
          if (position.key) expect(field?.startsWith(named), described).toBe(true);
          else expect(field, described).toBe(named);
        }
      }
    }
    process.stdout.write(
      `raw body bytes: ${operations} operations, ${requests / RAW_BYTE_CASES.length} strings and keys x ${RAW_BYTE_CASES.length} byte cases = ${requests} requests, ${serverErrors} x 5xx, ${rewritten} silently rewritten\n`,
    );
    expect(serverErrors).toBe(0);
    expect(rewritten).toBe(0);
    expect(operations).toBeGreaterThan(40);
  });

  test("query parameters of every operation and every header the service reads answer 400 naming them when they are not text", async () => {
    const QUERY_CASES = ["%ff", "%ED%A0%80", "%C0%AF", "a%e2%82", "%"];
    let requests = 0;
    let queried = 0;
    for (const { service, method, path, operation } of operationsOf()) {
      const own = service === "admin" ? h.deps.adminToken : service === "mail" ? keys.mail : keys.ads;
      const url = `/${service}${path.replace(/\{[^}]+\}/g, FAKE_ID)}`;
      const body = method === "get" || method === "delete" ? {} : { rawBody: "{}" };
      const query = (operation.parameters ?? []).filter((p) => p.in === "query");
      if (query.length > 0) queried++;
      for (const parameter of query) {
        for (const value of QUERY_CASES) {
          requests++;
          const r = await h.call<ErrorEnvelope>(method.toUpperCase(), `${url}?${encodeURIComponent(parameter.name)}=${value}`, {
            key: own,
            ...body,
            headers: { "content-type": "application/json" },
          });
          const described = `${method.toUpperCase()} ${url}?${parameter.name}=${value} → ${describeResponse({ status: r.status, text: r.text.slice(0, 400) })}`;
          expect(r.status, described).toBe(400);
          expect(r.json.error.details, described).toEqual([expect.objectContaining(service === "ads" ? { field: parameter.name } : { path: parameter.name })]);
        }
      }
      // Header values arrive as latin-1 text of their bytes: a byte past ASCII is refused, not guessed at.
      for (const [name, value] of [
        ["idempotency-key", "key-\u00ff"],
        ["user-agent", "agent \u00c3\u00a9"],
        ["content-type", "application/json; charset=\u00ff"],
        ["authorization", `Bearer ${own}\u0080`],
      ] as const) {
        requests++;
        const r = await h.call<ErrorEnvelope>(method.toUpperCase(), url, {
          ...body,
          headers: { "content-type": "application/json", authorization: `Bearer ${own}`, [name]: value },
        });
        const described = `${method.toUpperCase()} ${url} ${name}: ${value} → ${describeResponse({ status: r.status, text: r.text.slice(0, 400) })}`;
        expect(r.status, described).toBe(400);
        expect(r.json.error.details, described).toEqual([expect.objectContaining(service === "ads" ? { field: name } : { path: name })]);
      }
    }
    process.stdout.write(`query and headers: ${queried} operations with query parameters, ${requests} requests, 0 x 5xx\n`);
    expect(queried).toBeGreaterThan(10);
  });
});
