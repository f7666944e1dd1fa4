import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { type ApiResult, callApi, derivedIdempotencyKey, type Fetch } from "./api.js";
import { type CompositeTool, compositeTools } from "./composites.js";
import { type Credential, type OpenApiDocument, type OperationTool, operationTools, type Service } from "./operations.js";

export const SERVER_NAME = "mail-ads";
export const SERVER_VERSION = "0.1.0";

export type McpServerOptions = {
  /** The deployment's root, e.g. `https://api.example.com` (the services live under `/mail`, `/ads`, `/admin`). */
  baseUrl: string;
  /** A customer's API key (`mk_live_…` for mail, `ak_live_…` for ads) or an operator's token. */
  token: string;
  fetch?: Fetch;
  /** Where the OpenAPI documents come from; by default `GET /<service>/v1/openapi.json` of the deployment. */
  documents?: (service: Service) => Promise<OpenApiDocument>;
};

/** The credential was refused by the service (unknown, revoked, or the service could not be asked). */
export class CredentialError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = "CredentialError";
  }
}

/** What the token may do, asked of the service itself: a key's own record, or the operator's role. */
export async function discoverCredential(fetch: Fetch, baseUrl: string, token: string): Promise<Credential> {
  const service = token.startsWith("mk_live_") ? "mail" : token.startsWith("ak_live_") ? "ads" : "admin";
  const answer = await callApi(fetch, baseUrl, token, { service, method: "GET", path: service === "admin" ? "/v1/me" : "/v1/key" });
  if (!answer.ok) throw new CredentialError(`The ${service} service refused the credential: ${answer.error.message}`, answer.status || 502);
  const data = (answer.body as { data: Record<string, unknown> }).data;
  if (service === "admin") return { kind: "operator", role: data.role as Extract<Credential, { kind: "operator" }>["role"] };
  return { kind: "key", service, scope: data.scope as "full" | "reporting" };
}

function serviceOf(credential: Credential): Service {
  return credential.kind === "operator" ? "admin" : credential.service;
}

function defaultDocuments(fetch: Fetch, baseUrl: string): (service: Service) => Promise<OpenApiDocument> {
  return async (service) => {
    const response = await fetch(new Request(`${baseUrl.replace(/\/+$/, "")}/${service}/v1/openapi.json`, { headers: { Accept: "application/json" } }));
    if (!response.ok) throw new Error(`GET /${service}/v1/openapi.json answered ${response.status}`);
    return (await response.json()) as OpenApiDocument;
  };
}

function errorResult(result: Extract<ApiResult, { ok: false }>): CallToolResult {
  const body = { status: result.status, error: result.error, request_id: result.requestId };
  return { isError: true, content: [{ type: "text", text: JSON.stringify(body, null, 2) }], structuredContent: body };
}

function invalidArguments(message: string, path: string): CallToolResult {
  return errorResult({ ok: false, status: 400, error: { code: "invalid_arguments", message, details: [{ path, message }] }, requestId: null });
}

function successResult(body: unknown): CallToolResult {
  const data = body !== null && typeof body === "object" && "data" in body ? body : { data: body };
  return { content: [{ type: "text", text: JSON.stringify(data, null, 2) }], structuredContent: data as Record<string, unknown> };
}

/** Resources an agent reads to write correct calls: the document, and the catalogue its calls refer to. */
type Resource = { uri: string; name: string; description: string; service: Service; path: string | null };

function resourcesFor(credential: Credential): Resource[] {
  const service = serviceOf(credential);
  const list: Resource[] = [
    {
      uri: `openapi://${service}`,
      name: `${service} OpenAPI document`,
      description: `Every operation of the ${service} API with its schemas, examples and errors.`,
      service,
      path: null,
    },
  ];
  if (service === "mail")
    list.push(
      {
        uri: "mail://blocks",
        name: "Block library",
        description: "The MJML blocks a template stack may use, with their parameters.",
        service,
        path: "/v1/blocks",
      },
      { uri: "mail://templates", name: "Templates", description: "This account's templates with their parameter contracts.", service, path: "/v1/templates" },
      {
        uri: "mail://design-rules",
        name: "Design tokens",
        description: "Colours, fonts and spacing every template is rendered with.",
        service,
        path: "/v1/design-rules",
      },
    );
  if (service === "ads")
    list.push({
      uri: "ads://templates",
      name: "Ad templates",
      description: "The ad templates this account may render, with their parameters.",
      service,
      path: "/v1/templates",
    });
  return list;
}

export type Catalogue = { credential: Credential; tools: (OperationTool | CompositeTool)[] };

/** The tools the credential may use: its service's operations, then the composite tools. */
export async function catalogue(options: McpServerOptions): Promise<Catalogue> {
  const fetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const credential = await discoverCredential(fetch, options.baseUrl, options.token);
  const service = serviceOf(credential);
  const document = await (options.documents ?? defaultDocuments(fetch, options.baseUrl))(service);
  return { credential, tools: [...operationTools(service, document, credential), ...compositeTools(credential)] };
}

async function callOperation(tool: OperationTool, args: Record<string, unknown>, options: McpServerOptions, fetch: Fetch): Promise<CallToolResult> {
  const { operation } = tool;
  const allowed = new Set(Object.keys((tool.inputSchema.properties ?? {}) as Record<string, unknown>));
  for (const key of Object.keys(args)) if (!allowed.has(key)) return invalidArguments(`Unknown argument \`${key}\`.`, key);
  const pathParams: Record<string, unknown> = {};
  for (const name of operation.pathParams) {
    if (args[name] === undefined || args[name] === "") return invalidArguments(`\`${name}\` is required.`, name);
    pathParams[name] = args[name];
  }
  const query = Object.fromEntries(operation.queryParams.filter((name) => args[name] !== undefined).map((name) => [name, args[name]]));
  const { idempotency_key: given, ...rest } = args;
  const idempotencyKey = operation.idempotent ? (typeof given === "string" ? given : await derivedIdempotencyKey(tool.name, rest)) : undefined;
  const result = await callApi(fetch, options.baseUrl, options.token, {
    service: operation.service,
    method: operation.method,
    path: operation.path,
    pathParams,
    query,
    body: operation.hasBody ? args.body : undefined,
    idempotencyKey,
  });
  return result.ok ? successResult(result.body) : errorResult(result);
}

/**
 * The MCP server for one credential: its tools and resources are exactly what that credential may use.
 * Every tool call is an HTTP call to the services with the same credential, so the service decides, as
 * for any other client; a refused call comes back as a tool error carrying the API's envelope.
 */
export async function createMcpServer(options: McpServerOptions): Promise<Server> {
  const fetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const { credential, tools } = await catalogue({ ...options, fetch });
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const server = new Server(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        credential.kind === "operator"
          ? `Operator tools of the mail and ads middleware's admin API, for the role ${credential.role}. Tools marked destructive change or remove data: confirm with the user first.`
          : `Tools of the ${credential.service} API for one customer (scope ${credential.scope}). Tools marked destructive change or remove data: confirm with the user first. Read the resources for the block library, templates and the OpenAPI document.`,
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema, annotations: tool.annotations })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    if (!tool) return invalidArguments(`There is no tool \`${request.params.name}\` for this credential.`, "name");
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    if ("operation" in tool) return callOperation(tool, args, options, fetch);
    const outcome = await tool.run(args, { fetch, baseUrl: options.baseUrl, token: options.token });
    if (!outcome.ok) return errorResult(outcome.result);
    return { content: [{ type: "text", text: outcome.text }], structuredContent: outcome.data };
  });
  const resources = resourcesFor(credential);
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: resources.map(({ uri, name, description }) => ({ uri, name, description, mimeType: "application/json" })),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const resource = resources.find((item) => item.uri === request.params.uri);
    if (!resource) throw new Error(`Unknown resource ${request.params.uri}`);
    let text: string;
    if (resource.path === null) text = JSON.stringify(await (options.documents ?? defaultDocuments(fetch, options.baseUrl))(resource.service));
    else {
      const answer = await callApi(fetch, options.baseUrl, options.token, { service: resource.service, method: "GET", path: resource.path });
      if (!answer.ok) throw new Error(`${answer.error.code}: ${answer.error.message}`);
      text = JSON.stringify(answer.body);
    }
    return { contents: [{ uri: resource.uri, mimeType: "application/json", text }] };
  });
  return server;
}
