/**
 * Tools from the services' OpenAPI documents: one tool per JSON operation the credential may call.
 *
 * What holds:
 * - A tool exists only for an operation the credential's access allows over HTTP: a customer key's scope
 *   against the operation's `security` (`full` needs a full key), an operator's role against
 *   `x-required-role` (owner ⊃ admin ⊃ support). The service still enforces it on every call.
 * - The input schema is the operation's own: path and query parameters, the JSON body under `body`, with the
 *   document's component schemas carried along under `$defs`, so the schema an agent sees is the one the
 *   service validates against.
 * - Operations whose body or answer is not JSON (file uploads, images) are not tools: a file does not travel
 *   through a tool call's arguments.
 */

export type Service = "mail" | "ads" | "admin";
type Role = "owner" | "admin" | "support";

/** Who is calling: a customer's key (its service and scope) or an operator (its role). */
export type Credential = { kind: "key"; service: "mail" | "ads"; scope: "full" | "reporting" } | { kind: "operator"; role: Role };

type JsonSchema = Record<string, unknown>;
type Parameter = { name: string; in: string; required?: boolean; description?: string; schema?: JsonSchema };
type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  parameters?: (Parameter | { $ref: string })[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, { content?: Record<string, unknown> } | { $ref: string }>;
  security?: Record<string, string[]>[];
  "x-required-role"?: Role;
  "x-operation-kind"?: "read" | "write";
};
export type OpenApiDocument = {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, JsonSchema>; parameters?: Record<string, Parameter> };
};

export type ToolAnnotations = { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };

export type OperationTool = {
  name: string;
  description: string;
  inputSchema: JsonSchema & { type: "object" };
  annotations: ToolAnnotations;
  operation: {
    service: Service;
    method: string;
    path: string;
    operationId: string;
    pathParams: string[];
    queryParams: string[];
    hasBody: boolean;
    /** Whether the call carries an `Idempotency-Key` (every write of the three APIs does). */
    idempotent: boolean;
  };
};

const METHODS = ["get", "post", "put", "patch", "delete"] as const;
const ROLE_RANK: Record<Role, number> = { support: 0, admin: 1, owner: 2 };
/** Verbs whose operation removes, stops or blocks something (besides DELETE, PUT and PATCH, which overwrite). */
const DESTRUCTIVE_VERB = /^(archive|cancel|deactivate|delete|disable|remove|revoke|rotate|unassign|block)/;
/** Headers the tool sets itself or that an agent has no reason to send. */
const HEADERS_SET_BY_THE_TOOL = new Set(["idempotency-key", "service-version", "x-request-id", "if-none-match"]);

/** `sendTemplate` → `send_template`: the tool's name (MCP names: letters, digits, `_` and `-`, at most 64). */
export function toolName(operationId: string): string {
  return operationId
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9_-]/g, "_")
    .toLowerCase()
    .slice(0, 64);
}

/** Whether `credential` may call the operation over HTTP, from the document's own declarations. */
export function credentialMayCall(credential: Credential, service: Service, operation: Operation): boolean {
  if (credential.kind === "operator") {
    if (service !== "admin") return false;
    const needed = operation["x-required-role"];
    return needed !== undefined && ROLE_RANK[credential.role] >= ROLE_RANK[needed];
  }
  if (service !== credential.service) return false;
  const scopes = operation.security?.flatMap((requirement) => requirement.bearerAuth ?? []) ?? [];
  if (scopes.length === 0) return false;
  return credential.scope === "full" || scopes.includes("reporting");
}

function isJsonContent(content: Record<string, unknown> | undefined): boolean {
  return content === undefined || Object.keys(content).some((type) => type.startsWith("application/json"));
}

/** Whether the operation takes and answers JSON (or nothing), which a tool call can carry. */
function speaksJson(operation: Operation): boolean {
  if (operation.requestBody?.content && !isJsonContent(operation.requestBody.content)) return false;
  const success = Object.entries(operation.responses ?? {}).filter(([status]) => status.startsWith("2"));
  return success.every(([, response]) => "$ref" in response || isJsonContent(response.content as Record<string, unknown> | undefined));
}

/** Every `#/components/schemas/X` reference rewritten to `#/$defs/X`, collecting the schemas reached. */
function withDefinitions(schema: JsonSchema, document: OpenApiDocument, reached: Map<string, JsonSchema>): JsonSchema {
  const visit = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(visit);
    if (value === null || typeof value !== "object") return value;
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      if (key === "$ref" && typeof inner === "string" && inner.startsWith("#/components/schemas/")) {
        const name = inner.slice("#/components/schemas/".length);
        if (!reached.has(name)) {
          reached.set(name, {});
          reached.set(name, visit(document.components?.schemas?.[name] ?? {}) as JsonSchema);
        }
        out.$ref = `#/$defs/${name}`;
      } else out[key] = visit(inner);
    }
    return out;
  };
  return visit(schema) as JsonSchema;
}

function resolveParameter(parameter: Parameter | { $ref: string }, document: OpenApiDocument): Parameter | null {
  if (!("$ref" in parameter)) return parameter;
  const name = parameter.$ref.split("/").pop() ?? "";
  return document.components?.parameters?.[name] ?? null;
}

function isDestructive(method: string, operationId: string): boolean {
  return method === "delete" || method === "put" || method === "patch" || DESTRUCTIVE_VERB.test(operationId);
}

function isReadOnly(service: Service, method: string, operation: Operation): boolean {
  if (method === "get") return true;
  if (service === "admin") return operation["x-operation-kind"] === "read";
  // A customer POST that a reporting key may call is a lookup (e.g. suppressions/lookup), not a write.
  const scopes = operation.security?.flatMap((requirement) => requirement.bearerAuth ?? []) ?? [];
  return scopes.includes("reporting");
}

/** The tools `credential` may use from one service's document. */
export function operationTools(service: Service, document: OpenApiDocument, credential: Credential): OperationTool[] {
  const tools: OperationTool[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation?.operationId || !credentialMayCall(credential, service, operation) || !speaksJson(operation)) continue;
      const reached = new Map<string, JsonSchema>();
      const properties: Record<string, JsonSchema> = {};
      const required: string[] = [];
      const pathParams: string[] = [];
      const queryParams: string[] = [];
      let idempotent = false;
      for (const raw of operation.parameters ?? []) {
        const parameter = resolveParameter(raw, document);
        if (!parameter) continue;
        if (parameter.in === "header") {
          if (parameter.name.toLowerCase() === "idempotency-key") idempotent = true;
          if (HEADERS_SET_BY_THE_TOOL.has(parameter.name.toLowerCase())) continue;
        }
        if (parameter.in !== "path" && parameter.in !== "query") continue;
        (parameter.in === "path" ? pathParams : queryParams).push(parameter.name);
        properties[parameter.name] = withDefinitions({ ...(parameter.schema ?? {}), description: parameter.description }, document, reached);
        if (parameter.required || parameter.in === "path") required.push(parameter.name);
      }
      const bodySchema = operation.requestBody?.content?.["application/json"]?.schema;
      if (bodySchema) {
        properties.body = withDefinitions({ ...bodySchema, description: "The request body (JSON)." }, document, reached);
        if (operation.requestBody?.required) required.push("body");
      }
      if (idempotent) {
        properties.idempotency_key = {
          type: "string",
          minLength: 1,
          maxLength: 200,
          description:
            "Optional. The call's Idempotency-Key. Without it the tool derives one from the tool's name and arguments, so a retried call with the same arguments is answered once (for 24 hours); give a new value to do the same thing again on purpose.",
        };
      }
      const inputSchema: JsonSchema & { type: "object" } = { type: "object", properties, required, additionalProperties: false };
      if (reached.size > 0) inputSchema.$defs = Object.fromEntries(reached);
      const readOnly = isReadOnly(service, method, operation);
      const destructive = !readOnly && isDestructive(method, operation.operationId);
      const name = toolName(operation.operationId);
      tools.push({
        name,
        description: [operation.summary, operation.description, `HTTP: ${method.toUpperCase()} /${service}${path}.`].filter(Boolean).join("\n\n"),
        inputSchema,
        annotations: {
          title: operation.summary ?? name,
          readOnlyHint: readOnly,
          destructiveHint: destructive,
          idempotentHint: readOnly || idempotent || method === "put" || method === "delete",
          // Sends mail, calls Meta: a write reaches beyond this service.
          openWorldHint: !readOnly,
        },
        operation: {
          service,
          method: method.toUpperCase(),
          path,
          operationId: operation.operationId,
          pathParams,
          queryParams,
          hasBody: Boolean(bodySchema),
          idempotent,
        },
      });
    }
  }
  return tools;
}
