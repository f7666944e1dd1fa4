import { Ajv2020, type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import type { Middleware } from "openapi-fetch";
import { createAdsClient, createMailClient } from "@mail-ads/client";
import { createAdminClient } from "@mail-ads/client/admin";
import type { Harness } from "./harness";

type Json = Record<string, unknown>;
type ResponseObject = { content?: Record<string, { schema?: unknown }>; headers?: Record<string, { $ref?: string; required?: boolean }> };
type Document = {
  paths: Record<string, Record<string, { responses?: Record<string, ResponseObject> }>>;
  components?: { headers?: Record<string, { required?: boolean }> };
};

/** JSON pointer segment inside a URI fragment. */
const segment = (value: string) => encodeURIComponent(value.replace(/~/g, "~0").replace(/\//g, "~1"));

/**
 * Checks every answer a typed client receives against the OpenAPI document the app serves: the status must
 * be listed for the operation, the content type must be one the response declares, a JSON body must match
 * its schema (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses it) and every header the response marks as
 * required must be present. A mismatch throws from the client call, with the body, and is recorded.
 */
export class ContractRecorder {
  readonly operations = new Set<string>();
  readonly statuses = new Set<string>();
  responses = 0;
  readonly problems: string[] = [];
  /** The last answer seen, for a failing assertion's message. */
  last = "";
  readonly #documents = new Map<string, Document>();
  readonly #ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  readonly #validators = new Map<string, ValidateFunction>();

  constructor() {
    addFormats(this.#ajv);
  }

  addDocument(service: string, document: Document): void {
    this.#documents.set(service, document);
    this.#ajv.addSchema(document as Json, service);
  }

  /** Operations (method and path) of a document, for the coverage figure. */
  documentedOperations(service: string): string[] {
    const document = this.#documents.get(service);
    if (!document) return [];
    return Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, operation]) => typeof operation === "object" && operation !== null && "responses" in operation)
        .map(([method]) => `${service} ${method.toUpperCase()} ${path}`),
    );
  }

  middleware(service: string): Middleware {
    return { onResponse: ({ request, response, schemaPath }) => this.verify(service, request.method, schemaPath, response) };
  }

  /** Checks one answer (the client's, or one of a call the client cannot make, such as a signed upload URL). */
  async verify(service: string, method: string, schemaPath: string, response: Response): Promise<undefined> {
    const problem = await this.#check(service, method.toLowerCase(), schemaPath, response.clone());
    if (problem) {
      this.problems.push(problem);
      throw new Error(problem);
    }
    return undefined;
  }

  async #check(service: string, method: string, path: string, response: Response): Promise<string | null> {
    const document = this.#documents.get(service);
    if (!document) return `${service}: no document loaded`;
    const name = `${service} ${method.toUpperCase()} ${path}`;
    const status = String(response.status);
    const body = await response.text();
    const where = `${name} → ${status}: ${body.slice(0, 2000)}`;
    this.last = where;
    const described = document.paths[path]?.[method]?.responses?.[status] ?? document.paths[path]?.[method]?.responses?.default;
    if (!described) return `undocumented status: ${where}`;
    const valid = () => {
      this.operations.add(name);
      this.statuses.add(`${name} ${status}`);
      this.responses += 1;
      return null;
    };

    for (const [header, declared] of Object.entries(described.headers ?? {})) {
      const required = declared.$ref ? document.components?.headers?.[declared.$ref.split("/").pop() ?? ""]?.required : declared.required;
      if (required && !response.headers.has(header)) return `missing required header ${header}: ${where}`;
    }
    const type = (response.headers.get("content-type") ?? "").split(";")[0]?.trim() ?? "";
    if (body === "" && type === "") return valid();
    const content = described.content ?? {};
    if (!(type in content)) return `content type "${type}" not among ${JSON.stringify(Object.keys(content))}: ${where}`;
    if (type !== "application/json") return valid();
    const pointer = `${service}#/paths/${segment(path)}/${method}/responses/${status}/content/${segment(type)}/schema`;
    let validate = this.#validators.get(pointer);
    if (!validate) {
      validate = this.#ajv.getSchema(pointer);
      if (!validate) return `no schema at ${pointer}`;
      this.#validators.set(pointer, validate);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return `not JSON: ${where}`;
    }
    if (!validate(parsed)) return `schema mismatch ${this.#ajv.errorsText(validate.errors, { separator: "; " })}: ${where}`;
    return valid();
  }

  summary(services: string[]): string {
    const documented = services.flatMap((s) => this.documentedOperations(s));
    const untouched = documented.filter((operation) => !this.operations.has(operation));
    return `contract: ${this.responses} responses validated (${this.statuses.size} distinct operation/status pairs) over ${this.operations.size} of ${documented.length} documented operations; not exercised: ${untouched.join(", ") || "none"}`;
  }
}

/**
 * Typed clients (`@mail-ads/client` and its `admin` subpath) bound to the harness app in-process, with every answer checked by the
 * recorder; `documents` loads the served documents first.
 */
export async function contractClients(h: Harness, recorder: ContractRecorder) {
  const origin = "http://contract.local";
  const fetch = async (request: Request) => h.root.fetch(request);
  for (const service of ["mail", "ads", "admin"]) {
    const r = await h.call("GET", `/${service}/v1/openapi.json`);
    if (r.status !== 200) throw new Error(`${service} openapi.json: ${r.status}`);
    recorder.addDocument(service, r.json as unknown as Document);
  }
  const bind = <C extends { use(...middleware: Middleware[]): void }>(client: C, service: string): C => {
    client.use(recorder.middleware(service));
    return client;
  };
  return {
    mail: (apiKey: string) => bind(createMailClient({ baseUrl: `${origin}/mail/v1`, apiKey, fetch }), "mail"),
    ads: (apiKey: string) => bind(createAdsClient({ baseUrl: `${origin}/ads/v1`, apiKey, fetch }), "ads"),
    admin: (token = h.deps.adminToken) => bind(createAdminClient({ baseUrl: `${origin}/admin/v1`, apiKey: token, fetch }), "admin"),
  };
}
