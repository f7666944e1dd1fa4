/**
 * `@mail-ads/mcp`: the mail, ads and admin APIs as a Model Context Protocol server, scoped by the credential
 * it runs with (a customer's key or an operator's token). Run it over stdio (`mail-ads-mcp`) or mount
 * `handleMcpRequest` behind an HTTP route (the service does, at `/mcp`).
 */
export { type ApiErrorBody, type Fetch, canonicalJson, derivedIdempotencyKey } from "./api.js";
export { type CompositeTool, compositeTools } from "./composites.js";
export { handleMcpRequest, type McpHttpOptions } from "./http.js";
export { type Credential, credentialMayCall, type OpenApiDocument, type OperationTool, operationTools, type Service, toolName } from "./operations.js";
export {
  type Catalogue,
  CredentialError,
  catalogue,
  createMcpServer,
  discoverCredential,
  type McpServerOptions,
  SERVER_NAME,
  SERVER_VERSION,
} from "./server.js";
