import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import * as adminEntry from "../../api/admin";
import * as adsEntry from "../../api/ads";
import * as cronEntry from "../../api/cron";
import * as mailEntry from "../../api/mail";
import * as mediaEntry from "../../api/media";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { scalarVersion } from "../../lib/core/docs";
import { cronJobs } from "../../lib/cron";
import { createHarness, type Harness, type ErrorEnvelope } from "../helpers/harness";

const run = promisify(execFile);
let h: Harness;
const services = [
  ["mail", "/mail/v1"],
  ["ads", "/ads/v1"],
  ["admin", "/admin/v1"],
] as const;

type Operation = {
  operationId?: string;
  responses?: Record<string, unknown>;
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string }[];
};
type Doc = { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, unknown> } };

const docs = new Map<string, Doc>();

beforeAll(async () => {
  // The function entries boot their own runtime from the environment: keep its files out of the repo.
  process.env.DATA_DIR = mkdtempSync(join(tmpdir(), "vercel-entry-"));
  h = await createHarness();
  for (const [name, base] of services) {
    const r = await h.call("GET", `${base}/openapi.json`);
    if (r.status !== 200) throw new Error(`${name} openapi.json: ${r.status}`);
    docs.set(name, r.json as Doc);
  }
});
afterAll(async () => h.close());

describe.each(services)("%s OpenAPI document", (name, base) => {
  test("is OpenAPI 3.1 and passes `redocly lint` (recommended rules) with zero warnings", async () => {
    const dir = mkdtempSync(join(tmpdir(), "openapi-"));
    const file = join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify(docs.get(name)));
    const result = await run("npx", ["--no-install", "redocly", "lint", file, "--config", join(process.cwd(), "redocly.yaml"), "--format", "stylish"], {
      cwd: process.cwd(),
    }).catch((error: { stdout: string; stderr: string; code: number }) => error);
    const output = `${result.stdout}\n${result.stderr}`;
    expect("code" in result ? result.code : 0, output).toBe(0);
    expect(output).toMatch(/Your API description is valid/);
    // Zero problems of any severity: the stylish format prints each as `line:col  warning|error  rule …`.
    const problems = output.split("\n").filter((line) => /^\s*\d+:\d+\s+(warning|error)\s/.test(line));
    expect(problems).toEqual([]);
    expect(output).not.toMatch(/You have \d+ warnings?/);
  }, 120_000);

  test("every schema is named and every property carries a description", () => {
    const doc = docs.get(name) as Doc;
    const undocumented: string[] = [];
    const visit = (schema: unknown, path: string) => {
      if (!schema || typeof schema !== "object") return;
      type Property = { description?: string; $ref?: string; allOf?: { description?: string }[] };
      const s = schema as { properties?: Record<string, Property>; items?: unknown; anyOf?: unknown[]; oneOf?: unknown[] };
      for (const [prop, value] of Object.entries(s.properties ?? {})) {
        // A named schema described where it is used comes as `allOf: [{ $ref }, { description }]`.
        const described = value.description || value.$ref || value.allOf?.some((part) => part.description);
        if (!described) undocumented.push(`${path}.${prop}`);
        visit(value, `${path}.${prop}`);
      }
      visit(s.items, `${path}[]`);
      for (const alt of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) visit(alt, path);
    };
    for (const [schemaName, schema] of Object.entries(doc.components?.schemas ?? {})) visit(schema, schemaName);
    expect(undocumented).toEqual([]);
  });

  test("the docs page works offline (its script is served by us) and llms.txt lists every operation", async () => {
    const page = await h.call("GET", `${base}/docs`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`src="${base.replace("/v1", "")}/v1/docs/scalar.js?v=${scalarVersion()}"`);
    expect(page.text).not.toMatch(/https?:\/\/(cdn|unpkg|jsdelivr)/);
    // No outside host at all from the page; every Scalar option that would reach one is off (the browser test,
    // tests/foundation/docs.browser.test.ts, checks the requests themselves), and the CSP allows only our origin.
    expect(page.text).not.toMatch(/https?:\/\//);
    const configuration = JSON.parse(/data-configuration='([^']*)'/.exec(page.text)?.[1] ?? "null") as Record<string, unknown>;
    expect(configuration).toEqual({
      withDefaultFonts: false,
      agent: { disabled: true },
      hideClientButton: true,
      telemetry: false,
      showDeveloperTools: "never",
      proxyUrl: "",
    });
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/https?:|\*/);
    const script = await h.call("GET", `${base}/docs/scalar.js?v=${scalarVersion()}`);
    expect(script.status).toBe(200);
    expect(script.text.length).toBeGreaterThan(100_000);
    expect(script.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const llms = await h.call("GET", `${base}/llms.txt`);
    expect(llms.status).toBe(200);
    const doc = docs.get(name) as Doc;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of Object.keys(item)) expect(llms.text).toContain(`## ${method.toUpperCase()} ${path}`);
    }
  });
});

test("the docs script and the documents go out compressed (br, else gzip) with an ETag; a matching If-None-Match gets 304", async () => {
  {
    for (const path of [`/mail/v1/docs/scalar.js?v=${scalarVersion()}`, "/ads/v1/openapi.json", "/admin/v1/llms.txt"]) {
      const plain = await h.root.fetch(new Request(`http://localhost${path}`, { headers: { "accept-encoding": "identity" } }));
      const identity = Buffer.from(await plain.arrayBuffer());
      expect(plain.headers.get("content-encoding"), path).toBeNull();
      expect(plain.headers.get("vary")).toBe("Accept-Encoding");
      const br = await h.root.fetch(new Request(`http://localhost${path}`, { headers: { "accept-encoding": "gzip, deflate, br" } }));
      expect(br.headers.get("content-encoding"), path).toBe("br");
      const brBytes = Buffer.from(await br.arrayBuffer());
      expect(brBytes.length, path).toBeLessThan(identity.length / 2);
      expect(brotliDecompressSync(brBytes).equals(identity), path).toBe(true);
      const gz = await h.root.fetch(new Request(`http://localhost${path}`, { headers: { "accept-encoding": "gzip, br;q=0" } }));
      expect(gz.headers.get("content-encoding"), path).toBe("gzip");
      expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).equals(identity), path).toBe(true);
      const etag = plain.headers.get("etag") ?? "";
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      const again = await h.root.fetch(new Request(`http://localhost${path}`, { headers: { "if-none-match": etag, "accept-encoding": "br" } }));
      expect(again.status, path).toBe(304);
      expect((await again.arrayBuffer()).byteLength).toBe(0);
    }
    // An unversioned (or stale) script URL is not cached for a year.
    const unversioned = await h.root.fetch(new Request("http://localhost/mail/v1/docs/scalar.js"));
    expect(unversioned.headers.get("cache-control")).toBe("public, max-age=300");
  }
});

const METHODS = new Set(["get", "put", "post", "delete", "patch", "head", "options", "trace"]);

test("every operation of the three documents has a camelCase operationId, unique across them", () => {
  const seen = new Map<string, string>();
  const problems: string[] = [];
  for (const [name] of services) {
    for (const [path, item] of Object.entries((docs.get(name) as Doc).paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!METHODS.has(method)) continue;
        const where = `${name} ${method.toUpperCase()} ${path}`;
        const id = operation.operationId;
        if (!id || !/^[a-z][a-zA-Z0-9]*$/.test(id)) problems.push(`${where}: operationId ${String(id)}`);
        else if (seen.has(id)) problems.push(`${where}: operationId ${id} also used by ${seen.get(id)}`);
        else seen.set(id, where);
      }
    }
  }
  expect(problems).toEqual([]);
  // The `/v1/platform/…` aliases of the ads routes are served but not documented (so not named twice).
  expect(Object.keys((docs.get("ads") as Doc).paths).filter((path) => path.startsWith("/v1/platform/"))).toEqual([]);
  expect(seen.size).toBeGreaterThan(100);
});

test("request fields and parameters with a default are optional (BlockReference.values, SendRequest.params, suppression streams)", () => {
  const problems: string[] = [];
  const checked: string[] = [];
  type S = { $ref?: string; required?: string[]; properties?: Record<string, S & { default?: unknown }>; items?: S; anyOf?: S[]; oneOf?: S[]; allOf?: S[] };
  for (const [name] of services) {
    const doc = docs.get(name) as Doc & { components: { schemas: Record<string, S> } };
    const visit = (raw: S | undefined, where: string, seen: Set<string>) => {
      if (!raw) return;
      let schema = raw;
      if (raw.$ref) {
        const ref = raw.$ref.split("/").pop() as string;
        if (seen.has(ref)) return;
        seen.add(ref);
        schema = doc.components.schemas[ref] as S;
      }
      for (const [prop, value] of Object.entries(schema.properties ?? {})) {
        if (value.default !== undefined) checked.push(`${where}.${prop}`);
        if (value.default !== undefined && schema.required?.includes(prop)) problems.push(`${where}.${prop}`);
        visit(value, `${where}.${prop}`, seen);
      }
      visit(schema.items, `${where}[]`, seen);
      for (const alt of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) visit(alt, where, seen);
    };
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const op = operation as Operation & {
          requestBody?: { content?: Record<string, { schema?: S }> };
          parameters?: { required?: boolean; schema?: { default?: unknown }; name: string }[];
        };
        for (const media of Object.values(op.requestBody?.content ?? {})) visit(media.schema, `${name} ${method.toUpperCase()} ${path} body`, new Set());
        for (const p of op.parameters ?? [])
          if (p.required && p.schema?.default !== undefined) problems.push(`${name} ${method.toUpperCase()} ${path} ${p.name}`);
      }
    }
  }
  expect(problems).toEqual([]);
  expect(checked).toEqual(expect.arrayContaining(["mail POST /v1/templates/{id}/send body.params", "mail POST /v1/suppressions/lookup body.stream"]));
});

test("mail error bodies per status: `details` is an array of { path, message }; an object only on 403 and 409", () => {
  const doc = docs.get("mail") as Doc & {
    components: { schemas: Record<string, { properties: Record<string, { properties: Record<string, { type?: string; items?: { $ref?: string } }> }> }> };
  };
  const details = doc.components.schemas.MailError?.properties.error?.properties.details;
  expect(details).toMatchObject({ type: "array", items: { $ref: "#/components/schemas/ErrorDetail" } });
  const wrong: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      for (const [status, response] of Object.entries(
        (operation.responses ?? {}) as Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>,
      )) {
        if (!/^[45]/.test(status)) continue;
        const expected = status === "409" ? "MailConflictError" : status === "403" ? "MailForbiddenError" : "MailError";
        const ref = response.content?.["application/json"]?.schema?.$ref;
        if (ref !== `#/components/schemas/${expected}`) wrong.push(`${method.toUpperCase()} ${path} ${status}: ${String(ref)}`);
      }
    }
  }
  expect(wrong).toEqual([]);
});

test("ads error bodies per status: the document names one schema per status kind, and real answers match it", async () => {
  const doc = docs.get("ads") as Doc;
  const expected = (status: string) =>
    status === "400" || status === "422" ? "AdsValidationError" : status === "402" || status === "409" ? "AdsStateError" : "AdsError";
  const wrong: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      for (const [status, response] of Object.entries(
        (operation.responses ?? {}) as Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>,
      )) {
        if (!/^[45]/.test(status)) continue;
        const ref = response.content?.["application/json"]?.schema?.$ref;
        if (ref !== `#/components/schemas/${expected(status)}`) wrong.push(`${method.toUpperCase()} ${path} ${status}: ${String(ref)}`);
      }
    }
  }
  expect(wrong).toEqual([]);
  const customer = await h.customer();
  const unauthorized = await h.call<ErrorEnvelope>("GET", "/ads/v1/adsets", { key: "ak_live_wrong" });
  expect(unauthorized.status).toBe(401);
  expect(unauthorized.json.error.details).toEqual([]);
  const forbidden = await h.call<ErrorEnvelope>("POST", "/ads/v1/adsets", { key: customer.adsReporting, body: {} });
  expect(forbidden.status).toBe(403);
  expect(forbidden.json.error.details).toEqual([]);
  const missing = await h.call<ErrorEnvelope>("PATCH", "/ads/v1/adsets/00000000-0000-4000-8000-000000000000", { key: customer.adsFull, body: { name: "x" } });
  expect([404, 422]).toContain(missing.status);
  if (missing.status === 404) expect(missing.json.error.details).toEqual([]);
  const invalid = await h.call<ErrorEnvelope>("GET", "/ads/v1/adsets?limit=0", { key: customer.adsFull });
  expect(invalid.status).toBe(422);
  expect(invalid.json.error.details).toEqual([expect.objectContaining({ field: "limit" })]);
});

type Header = { $ref?: string; required?: boolean };
type DocResponse = { headers?: Record<string, Header>; $ref?: string };

test("request and response headers are declared: conventions everywhere, idempotency on writes, rate limits, Retry-After, ETag, Location", () => {
  const problems: string[] = [];
  for (const [name] of services) {
    const doc = docs.get(name) as Doc & { components: { parameters: Record<string, { name: string }> } };
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!METHODS.has(method)) continue;
        const where = `${name} ${method.toUpperCase()} ${path}`;
        const params = (operation.parameters ?? []).map((p) => {
          const ref = (p as { $ref?: string }).$ref;
          return ref ? doc.components.parameters[ref.split("/").pop() as string]?.name : p.name;
        });
        for (const header of ["Service-Version", "X-Request-Id"]) if (!params.includes(header)) problems.push(`${where}: no ${header} parameter`);
        // Customer writes and operator writes alike take Idempotency-Key (not the signed upload URL, which has no key).
        const customerWrite =
          ["post", "put", "patch"].includes(method) && (operation.security ?? []).some((s) => "bearerAuth" in s || (name === "admin" && "adminToken" in s));
        if (customerWrite !== params.includes("Idempotency-Key"))
          problems.push(`${where}: Idempotency-Key ${customerWrite ? "missing" : "declared on a route without idempotency"}`);
        for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, DocResponse>)) {
          const headers = response.headers ?? {};
          if (!headers["X-Request-Id"]) problems.push(`${where} ${status}: no X-Request-Id header`);
          if (status === "429" && !headers["Retry-After"]) problems.push(`${where} 429: no Retry-After header`);
          const authenticated = name !== "admin" && (operation.security ?? []).some((s) => "bearerAuth" in s);
          // 401, 413 and 503 can be answered before the rate limiter runs (413: before anything reads the body;
          // 503: the schema gate and a database that cannot be reached).
          if (authenticated && !["401", "413", "503"].includes(status) && !headers["X-RateLimit-Remaining"])
            problems.push(`${where} ${status}: no rate-limit headers`);
          if (!((operation.responses ?? {}) as Record<string, unknown>)["413"]) problems.push(`${where}: no 413`);
          if (!((operation.responses ?? {}) as Record<string, unknown>)["503"]) problems.push(`${where}: no 503`);
          if (status === "503" && !headers["Retry-After"]) problems.push(`${where} 503: no Retry-After header`);
          if (customerWrite && status.startsWith("2") && !headers["Idempotent-Replayed"]) problems.push(`${where} ${status}: no Idempotent-Replayed header`);
          if (customerWrite && status === "409" && !headers["Retry-After"]) problems.push(`${where} 409: no Retry-After header`);
        }
      }
    }
  }
  expect(problems).toEqual([]);
  const tile = (docs.get("mail") as Doc).paths["/v1/blocks/{id}/tile"]?.get?.responses as Record<string, DocResponse>;
  expect(tile["200"]?.headers?.ETag?.required).toBe(true);
  expect(tile["304"]?.headers?.ETag?.required).toBe(true);
  const preview = (docs.get("ads") as Doc).paths["/v1/templates/{id}/preview.png"]?.get?.responses as Record<string, DocResponse>;
  expect(Object.keys(preview).filter((status) => /^[23]/.test(status))).toEqual(["302"]);
  expect(preview["302"]?.headers?.Location?.required).toBe(true);
});

test("a real answer carries the headers its response declares", async () => {
  const customer = await h.customer();
  const doc = docs.get("mail") as Doc & { components: { headers: Record<string, { required?: boolean }> } };
  const declared = ((doc.paths["/v1/blocks"]?.get?.responses ?? {}) as Record<string, DocResponse>)["200"]?.headers ?? {};
  const r = await h.call("GET", "/mail/v1/blocks", { key: customer.mailFull, headers: { "X-Request-Id": "portal-check-1", "Service-Version": "v1" } });
  expect(r.status).toBe(200);
  // Every declared header but the idempotency one (a GET has none) is sent on an authenticated read.
  expect(Object.keys(declared).length).toBeGreaterThanOrEqual(7);
  for (const header of Object.keys(declared)) expect(r.headers.get(header), header).not.toBeNull();
  expect(r.headers.get("X-Request-Id")).toBe("portal-check-1");
});

test("llms.txt: allOf/anyOf fields are listed; the root /llms.txt indexes the three services (and public/llms.txt is the same text for Vercel)", async () => {
  const mail = (await h.call("GET", "/mail/v1/llms.txt")).text;
  const job = mail.slice(mail.indexOf("## GET /v1/send-jobs/{id}\n"), mail.indexOf("\n## ", mail.indexOf("## GET /v1/send-jobs/{id}\n") + 5));
  expect(job).toContain("- status (required)");
  expect(job).toContain("- stats (required)");
  expect(job).toContain("- timeline (required)");
  const webhook = mail.slice(mail.indexOf("## POST /v1/webhooks\n"), mail.indexOf("\n## ", mail.indexOf("## POST /v1/webhooks\n") + 5));
  expect(webhook).toContain("- secret (required)");
  const ads = (await h.call("GET", "/ads/v1/llms.txt")).text;
  const adsWebhook = ads.slice(ads.indexOf("## POST /v1/webhooks\n"), ads.indexOf("\n## ", ads.indexOf("## POST /v1/webhooks\n") + 5));
  expect(adsWebhook).toContain("- signing_secret (required)");

  const root = await h.call("GET", "/llms.txt");
  expect(root.status).toBe(200);
  expect(root.text).toMatch(/^# /);
  for (const [, base] of services) {
    for (const page of ["llms.txt", "openapi.json", "docs"]) {
      expect(root.text).toContain(`](${base}/${page})`);
      expect((await h.call("GET", `${base}/${page}`)).status, `${base}/${page}`).toBe(200);
    }
  }
  expect(readFileSync("public/llms.txt", "utf8")).toBe(root.text);
});

const entries: Record<string, unknown> = {
  "/api/mail": mailEntry,
  "/api/ads": adsEntry,
  "/api/admin": adminEntry,
  "/api/cron": cronEntry,
  "/api/media": mediaEntry,
};

/** Vercel's `:path*` source syntax as a regular expression. */
function sourcePattern(source: string): RegExp {
  return new RegExp(`^${source.replace(/:[a-z]+\*/g, ".*").replace(/:[a-z]+/g, "[^/]+")}$`);
}

test("vercel.json routes every documented operation to a function that serves it", async () => {
  const vercel = JSON.parse(readFileSync("vercel.json", "utf8")) as { rewrites: { source: string; destination: string }[] };
  let checked = 0;
  for (const [name, base] of services) {
    const doc = docs.get(name) as Doc;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of Object.keys(item)) {
        const url = `${base.replace("/v1", "")}${path.replace(/\{[^}]+\}/g, "00000000-0000-4000-8000-000000000000")}`;
        const rewrite = vercel.rewrites.find((r) => sourcePattern(r.source).test(url));
        expect(rewrite, `${method} ${url} has no rewrite`).toBeDefined();
        const entry = entries[rewrite?.destination ?? ""] as Record<string, (r: Request) => Promise<Response>> | undefined;
        expect(entry, `${rewrite?.destination} is not a function file`).toBeDefined();
        const handler = entry?.[method.toUpperCase()];
        expect(handler, `${rewrite?.destination} does not export ${method.toUpperCase()}`).toBeTypeOf("function");
        const response = await (handler as (r: Request) => Promise<Response>)(new Request(`http://localhost${url}`, { method: method.toUpperCase() }));
        const body = await response.text();
        // Served means: the function's app has the route (any answer but "no such endpoint").
        expect(body, `${method} ${url}`).not.toContain("No endpoint");
        expect(response.status, `${method} ${url}`).not.toBe(405);
        checked++;
      }
    }
  }
  expect(checked).toBeGreaterThan(5);
}, 60_000);

test("vercel.json sends the routes that process images to api/media, and the other API functions ship no image code", () => {
  const vercel = JSON.parse(readFileSync("vercel.json", "utf8")) as {
    rewrites: { source: string; destination: string }[];
    functions: Record<string, { excludeFiles?: string }>;
  };
  const id = "00000000-0000-4000-8000-000000000000";
  const destination = (path: string) => vercel.rewrites.find((r) => sourcePattern(r.source).test(path))?.destination;
  // Each of these answers with a finished image (sharp, resvg), as the specs ask.
  for (const path of [
    `/mail/v1/assets/${id}/complete`,
    "/ads/v1/media/images",
    "/ads/v1/templates/render",
    `/ads/v1/templates/${id}/preview.png`,
    "/admin/v1/ads/templates/preview",
    "/console/api/ads/templates/preview",
  ])
    expect(destination(path), path).toBe("/api/media");
  for (const [path, fn] of [
    [`/mail/v1/assets/${id}`, "/api/mail"],
    ["/mail/v1/assets", "/api/mail"],
    [`/ads/v1/templates/render/${id}`, "/api/ads"],
    [`/ads/v1/templates/${id}/preview`, "/api/ads"],
    ["/ads/v1/media/videos", "/api/ads"],
    ["/admin/v1/ads/templates", "/api/admin"],
    ["/console/api/ads/templates", "/api/console"],
  ])
    expect(destination(path), path).toBe(fn);
  for (const name of ["mail", "ads", "admin", "console", "cron", "postmark", "platform", "queue"]) {
    const excluded = vercel.functions[`api/${name}.js`]?.excludeFiles ?? "";
    for (const native of ["sharp", "@img", "@resvg", "@ffmpeg-installer"]) expect(excluded, `api/${name}.js ships ${native}`).toContain(native);
  }
});

test("vercel.json's function globs fit Vercel's limit of 256 characters (the CLI refuses the file otherwise)", () => {
  const vercel = JSON.parse(readFileSync("vercel.json", "utf8")) as { functions: Record<string, { includeFiles?: string; excludeFiles?: string }> };
  const globs = Object.values(vercel.functions)
    .flatMap((fn) => [fn.includeFiles, fn.excludeFiles])
    .filter((glob) => glob !== undefined);
  expect(globs.length).toBeGreaterThan(0);
  for (const glob of globs) expect(glob.length, glob).toBeLessThanOrEqual(256);
});

test("vercel.json declares every cron job with its schedule", () => {
  const vercel = JSON.parse(readFileSync("vercel.json", "utf8")) as { crons: { path: string; schedule: string }[] };
  expect(vercel.crons).toEqual(cronJobs.map((job) => ({ path: `/api/cron/${job.name}`, schedule: job.schedule })));
});
