import { declaredRoute } from "./route-declaration";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./context";
import { compressedBody, sendCompressed, type CompressedBody } from "./compressed";
import type { ServiceName } from "./errors";
import { errorResponseJson, HEADER_PARAMETERS, RESPONSE_HEADERS, headerRef, parameterRef } from "./openapi";
import { documentRouter } from "./route-groups";
import { WRITE_METHODS } from "./route";

export type DocsInfo = {
  /** Whose error envelope the responses added here (413, the admin's idempotency 409) use. */
  service: ServiceName;
  title: string;
  description: string;
  basePath: string;
  pathPrefix: string;
  /** The bearer scheme the operations name; customer API keys unless given (the admin API: the operator token). */
  auth?: { scheme: string; description: string };
  /**
   * Every POST/PUT/PATCH takes `Idempotency-Key` through one app-wide middleware (the admin API:
   * `operatorIdempotency`), so the document adds the parameter, the 409 and the replay headers to each
   * write here. The customer APIs declare it per route (`serviceRoute`).
   */
  idempotentWrites?: boolean;
};

// OpenAPI 3.1 licence object; the generator's type only knows 3.0's `url`.
const PROPRIETARY = { name: "Proprietary", identifier: "LicenseRef-Proprietary" } as { name: string };

const CUSTOMER_AUTH = { scheme: "bearerAuth", description: "API key of the customer. Scopes: `full` (read, write, send) and `reporting` (read-only)." };

type OpenApiDocument = ReturnType<OpenAPIHono<AppEnv>["getOpenAPI31Document"]>;

const requireHere = createRequire(import.meta.url);
let scalarBundle: CompressedBody | null = null;
function scalarScript(): CompressedBody {
  // Served from node_modules so the docs page works offline (no CDN).
  scalarBundle ??= compressedBody(readFileSync(requireHere.resolve("@scalar/api-reference/browser/standalone.js")));
  return scalarBundle;
}

/** The version of the Scalar bundle we serve (a hash of its bytes): the script's URL carries it, so new bytes are a new URL. */
export function scalarVersion(): string {
  return scalarScript().etag.slice(1, 13);
}

function buildDocument(app: OpenAPIHono<AppEnv>, info: DocsInfo): OpenApiDocument {
  const auth = info.auth ?? CUSTOMER_AUTH;
  app.openAPIRegistry.registerComponent("securitySchemes", auth.scheme, { type: "http", scheme: "bearer", description: auth.description });
  const document = app.getOpenAPI31Document({
    openapi: "3.1.0",
    // Not open source: offered under the operator's contract (SPDX: a licence reference of our own).
    info: { title: info.title, version: "v1", description: info.description, license: PROPRIETARY },
    servers: [{ url: info.basePath, description: "This deployment" }],
    tags: [],
  });
  return withConventionHeaders(document, info);
}

const OPERATION_METHODS = new Set(["get", "put", "post", "delete", "patch", "head", "options", "trace"]);

/**
 * The core middleware of every service app reads `Service-Version` and `X-Request-Id` on every request
 * and sends `X-Request-Id` and `Service-Version` on every response: declared here once for all
 * operations. Then the header and parameter components the document refers to are added (the routes
 * refer to them by `$ref`; see `RESPONSE_HEADERS` and `HEADER_PARAMETERS`).
 */
function withConventionHeaders(document: OpenApiDocument, info: DocsInfo): OpenApiDocument {
  for (const item of Object.values(document.paths ?? {})) {
    for (const [method, value] of Object.entries(item as Json)) {
      if (!OPERATION_METHODS.has(method)) continue;
      const operation = value as { parameters?: unknown[]; responses?: Record<string, Json> };
      operation.responses ??= {};
      const responses = operation.responses;
      // Every request's body is limited while it streams in, before anything else (`limitRequestBody`).
      responses["413"] ??= errorResponseJson(info.service, 413);
      // Whatever the route: the database unreachable or older than the code (`lib/core/database-unavailable.ts`,
      // `lib/db/schema-version.ts`), with Retry-After.
      responses["503"] ??= { ...errorResponseJson(info.service, 503), headers: { "Retry-After": headerRef("Retry-After") } };
      if (info.idempotentWrites && WRITE_METHODS.has(method)) documentIdempotency(operation, info.service);
      operation.parameters = [...(operation.parameters ?? []), parameterRef("ServiceVersion"), parameterRef("RequestId")];
      for (const response of Object.values(operation.responses ?? {})) {
        if ("$ref" in response) continue;
        response.headers = {
          "X-Request-Id": headerRef("X-Request-Id"),
          "Service-Version": headerRef("Service-Version"),
          ...(response.headers as Json | undefined),
        };
      }
    }
  }
  const text = JSON.stringify(document.paths);
  const used = <T>(all: Record<string, T>, kind: string) =>
    Object.fromEntries(Object.entries(all).filter(([name]) => text.includes(`"#/components/${kind}/${name}"`)));
  document.components = {
    ...document.components,
    parameters: { ...document.components?.parameters, ...used(HEADER_PARAMETERS, "parameters") },
    headers: { ...document.components?.headers, ...used(RESPONSE_HEADERS, "headers") },
  };
  return document;
}

/** `Idempotency-Key` on a write: the parameter, the 409 of a reused or busy key, and the replay headers (as `serviceRoute` documents them). */
function documentIdempotency(operation: { parameters?: unknown[]; responses?: Record<string, Json> }, service: ServiceName): void {
  operation.responses ??= {};
  const responses = operation.responses;
  operation.parameters = [...(operation.parameters ?? []), parameterRef("IdempotencyKey")];
  responses["409"] ??= errorResponseJson(service, 409);
  for (const [code, response] of Object.entries(responses)) {
    const status = Number(code);
    if ("$ref" in response || status >= 500 || status === 429) continue;
    response.headers = {
      ...(response.headers as Json | undefined),
      "Idempotent-Replayed": headerRef("Idempotent-Replayed"),
      ...(status === 409 ? { "Retry-After": headerRef("Retry-After") } : {}),
    };
  }
}

/**
 * Scalar without outside requests: every option that would reach another host is off. No default fonts from
 * fonts.scalar.com (system fonts instead); no agent ("Ask AI" would upload the document to Scalar); no "Open API
 * Client" button (client.scalar.com); no telemetry; no developer tools (their "share" uploads the document); an
 * empty proxy URL (Scalar's default on the web is proxy.scalar.com; "try it" calls go straight to this
 * deployment, which is the page's own origin). The page's Content-Security-Policy enforces the same.
 */
const SCALAR_CONFIGURATION = {
  withDefaultFonts: false,
  agent: { disabled: true },
  hideClientButton: true,
  telemetry: false,
  showDeveloperTools: "never",
  proxyUrl: "",
} as const;

/**
 * Only our origin: scripts from it (no inline script, no eval), connections to it (the document, "try it"),
 * styles from it plus the ones Scalar's components set inline, images and fonts from it or inline `data:`.
 */
const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "connect-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** One year, immutable: the versioned script URL changes with the bundle. */
const IMMUTABLE = "public, max-age=31536000, immutable";
/** The documents change with a deploy: the client revalidates (ETag, 304) on every use. */
const REVALIDATE = "public, max-age=0, must-revalidate";

/**
 * `/v1/openapi.json`, `/v1/docs` and `/v1/llms.txt`, all generated from the route definitions, and the docs
 * page's script `/v1/docs/scalar.js?v=<version>`. The script and the documents go out compressed (br or gzip,
 * lib/core/compressed.ts) with an ETag.
 */
export function registerDocs(app: OpenAPIHono<AppEnv>, info: DocsInfo, documented: (router: OpenAPIHono<AppEnv>) => Promise<void>): void {
  let cached: Promise<OpenApiDocument> | null = null;
  // The routes register into a router of the document's own, every group in its order, whatever requests came first.
  const document = () => {
    if (!cached) {
      cached = (async () => {
        const router = documentRouter();
        await documented(router);
        return buildDocument(router, info);
      })();
      // A failed import is tried again by the next request.
      cached.catch(() => {
        cached = null;
      });
    }
    return cached;
  };
  let json: CompressedBody | null = null;
  let llms: CompressedBody | null = null;
  const jsonBody = async () => {
    json ??= compressedBody(JSON.stringify(await document()));
    return json;
  };
  const llmsBody = async () => {
    llms ??= compressedBody(toLlmsText(await document()));
    return llms;
  };
  const prefix = info.pathPrefix;
  // The documents need no credential, whatever the method (a wrong one is answered 404 without a key).
  for (const path of ["openapi.json", "docs/scalar.js", "docs", "llms.txt"]) app.use(`${prefix}/${path}`, declaredRoute({ public: true }));
  app.get(`${prefix}/openapi.json`, async (c) => sendCompressed(c, await jsonBody(), "application/json; charset=utf-8", REVALIDATE));
  app.get(`${prefix}/docs/scalar.js`, (c) =>
    // The versioned URL (the page's) is cached for a year; any other version asked for gets today's bytes, briefly cached.
    sendCompressed(c, scalarScript(), "text/javascript; charset=utf-8", c.req.query("v") === scalarVersion() ? IMMUTABLE : "public, max-age=300"),
  );
  app.get(`${prefix}/docs`, (c) => {
    c.header("Content-Security-Policy", DOCS_CONTENT_SECURITY_POLICY);
    c.header("Cache-Control", "no-cache");
    // The configuration rides in a script element Scalar reads by id; of type JSON, so it is data, not inline script.
    return c.html(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${info.title}</title><meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><script id="api-reference" type="application/json" data-url="${info.basePath}${prefix}/openapi.json" data-configuration='${JSON.stringify(SCALAR_CONFIGURATION)}'></script>
<script src="${info.basePath}${prefix}/docs/scalar.js?v=${scalarVersion()}"></script></body></html>`);
  });
  app.get(`${prefix}/llms.txt`, async (c) => sendCompressed(c, await llmsBody(), "text/plain; charset=utf-8", REVALIDATE));
}

type Json = Record<string, unknown>;

/** A plain-text reference of the same document: every operation with its parameters, body, responses. */
function toLlmsText(doc: OpenApiDocument): string {
  const lines: string[] = [`# ${doc.info.title} (${doc.info.version})`, "", doc.info.description ?? "", ""];
  const base = doc.servers?.[0]?.url ?? "";
  lines.push(
    `Base URL: ${base}`,
    "Authentication: Authorization: Bearer <API key>",
    "Every request may send `Service-Version: v1` and `X-Request-Id`; every response carries `X-Request-Id` and `Service-Version`.",
    "",
  );
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item as Json)) {
      const operation = op as Json;
      if (typeof operation !== "object" || !operation.responses) continue;
      lines.push(`## ${method.toUpperCase()} ${path}`);
      if (operation.summary) lines.push(String(operation.summary));
      if (operation.description) lines.push("", String(operation.description));
      const security = (operation.security as Json[] | undefined)?.[0];
      if (security) lines.push(`Scope: ${Object.values(security).flat().join(", ") || "none"}`);
      for (const raw of (operation.parameters as Json[] | undefined) ?? []) {
        const p = resolveRef(doc, raw);
        if (p.name === "Service-Version" || p.name === "X-Request-Id") continue;
        const schema = resolve(doc, p.schema as Json | undefined);
        lines.push(
          `- ${String(p.in)} \`${String(p.name)}\`${p.required ? " (required)" : ""}: ${describe(schema)}${p.description ? ` — ${String(p.description)}` : ""}`,
        );
      }
      const body = (operation.requestBody as Json | undefined)?.content as Json | undefined;
      const bodySchema = body ? ((Object.values(body)[0] as Json).schema as Json) : undefined;
      if (bodySchema) lines.push("Request body:", ...fields(doc, bodySchema, "  "));
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        const r = response as Json;
        lines.push(`Response ${status}: ${String(r.description ?? "")}`);
        const headers = Object.keys((r.headers as Json | undefined) ?? {}).filter((name) => name !== "X-Request-Id" && name !== "Service-Version");
        if (headers.length > 0) lines.push(`  Headers: ${headers.join(", ")}`);
        const schema = ((r.content as Json | undefined)?.["application/json"] as Json | undefined)?.schema as Json | undefined;
        if (schema && status.startsWith("2")) lines.push(...fields(doc, schema, "  "));
      }
      lines.push("");
    }
  }
  return lines.join("\n");
}

/** A `#/components/<kind>/<name>` reference to its object (one level). */
function resolveRef(doc: OpenApiDocument, value: Json): Json {
  const ref = value.$ref;
  if (typeof ref !== "string") return value;
  const [, , kind, name] = ref.split("/");
  return ((doc.components as Record<string, Record<string, Json> | undefined> | undefined)?.[kind ?? ""]?.[name ?? ""] as Json | undefined) ?? {};
}

function resolve(doc: OpenApiDocument, schema: Json | undefined): Json {
  if (!schema) return {};
  const ref = schema.$ref;
  if (typeof ref === "string") {
    const name = ref.split("/").pop() ?? "";
    return (doc.components?.schemas?.[name] as Json | undefined) ?? {};
  }
  return schema;
}

/** `allOf` merged into one object schema (properties and required of every part), recursively. */
function flatten(doc: OpenApiDocument, raw: Json | undefined): Json {
  const schema = resolve(doc, raw);
  if (!Array.isArray(schema.allOf)) return schema;
  const parts = (schema.allOf as Json[]).map((part) => flatten(doc, part));
  return {
    ...schema,
    type: "object",
    properties: Object.assign({}, ...parts.map((part) => (part.properties as Json | undefined) ?? {}), (schema.properties as Json | undefined) ?? {}),
    required: [...parts.flatMap((part) => (part.required as string[] | undefined) ?? []), ...((schema.required as string[] | undefined) ?? [])],
  };
}

/** The alternatives of an `anyOf`/`oneOf`, without the `null` of a nullable one. */
function alternatives(doc: OpenApiDocument, schema: Json): Json[] {
  const list = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  return (list ?? []).map((alt) => flatten(doc, alt)).filter((alt) => alt.type !== "null");
}

function describe(schema: Json, doc?: OpenApiDocument): string {
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((v) => JSON.stringify(v)).join(", ")}`;
  if (doc && (schema.anyOf || schema.oneOf)) {
    const list = ((schema.anyOf ?? schema.oneOf) as Json[]).map((alt) => flatten(doc, alt));
    return [...new Set(list.map((alt) => describe(alt, doc)))].join(" | ");
  }
  const type = Array.isArray(schema.type) ? schema.type.join("|") : String(schema.type ?? "object");
  return schema.format ? `${type} (${String(schema.format)})` : type;
}

function fields(doc: OpenApiDocument, raw: Json, indent: string, depth = 0): string[] {
  const schema = flatten(doc, raw);
  if (depth > 3) return [];
  const props = schema.properties as Json | undefined;
  if (!props) {
    if (schema.type === "array" && schema.items) return fields(doc, schema.items as Json, indent, depth);
    const alts = alternatives(doc, schema).filter((alt) => alt.properties || alt.items || alt.allOf);
    if (alts.length === 1) return fields(doc, alts[0] as Json, indent, depth);
    // Several shapes (e.g. an image or a video render): each with its fields.
    return alts.flatMap((alt, i) => {
      const lines = fields(doc, alt, `${indent}  `, depth + 1);
      return lines.length > 0 ? [`${indent}- variant ${i + 1}${alt.description ? ` — ${String(alt.description)}` : ""}:`, ...lines] : [];
    });
  }
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const out: string[] = [];
  for (const [name, value] of Object.entries(props)) {
    const child = flatten(doc, value as Json);
    const desc = child.description ?? (value as Json).description;
    out.push(`${indent}- ${name}${required.has(name) ? " (required)" : ""}: ${describe(child, doc)}${desc ? ` — ${String(desc)}` : ""}`);
    out.push(...fields(doc, child, `${indent}  `, depth + 1));
  }
  return out;
}

const SERVICES = [
  {
    title: "Mail service API",
    base: "/mail/v1",
    summary: "Newsletter and transactional mail over Postmark: blocks, templates, sends, send jobs, suppressions, webhooks, assets.",
  },
  {
    title: "Ads service API",
    base: "/ads/v1",
    summary: "Meta ads behind a uniform API: media, ad sets, creatives, ads, status, templates, audiences, targeting, insights, plan, webhooks.",
  },
  { title: "Admin API", base: "/admin/v1", summary: "Operator API: customers, their mail and ads settings, and API keys (operator token)." },
] as const;

/**
 * The root `/llms.txt` (llmstxt.org format): the three services with their plain-text reference, OpenAPI
 * document and docs page. `npm start` serves it from the root app; Vercel serves the same text as the
 * static `public/llms.txt` (a test keeps the two equal).
 */
export function rootLlmsText(): string {
  const lines = [
    "# Mail and ads middleware",
    "",
    "> Three HTTP APIs of one deployment. Each has a plain-text reference for LLMs (every operation with its parameters, body and responses), an OpenAPI 3.1 document and an interactive docs page. Authentication: `Authorization: Bearer <key>`.",
    "",
  ];
  for (const service of SERVICES) {
    lines.push(`## ${service.title}`, "", service.summary, "");
    lines.push(`- [${service.title}, plain-text reference](${service.base}/llms.txt): every operation, for LLMs`);
    lines.push(`- [OpenAPI document](${service.base}/openapi.json): OpenAPI 3.1, the source of the other two`);
    lines.push(`- [Docs](${service.base}/docs): interactive reference`, "");
  }
  return lines.join("\n");
}
