import { handleMcpRequest } from "../../packages/mcp/src/index";

/**
 * api/mcp (`/mcp`): the MCP server as a function of its own. It holds no database: each tool call is an
 * HTTPS call to this deployment's APIs (`PUBLIC_BASE_URL`, else the request's own origin) with the caller's
 * credential, so the API functions decide as for any client.
 */
export const handler = (request: Request): Promise<Response> => handleMcpRequest(request, { baseUrl: process.env.PUBLIC_BASE_URL || undefined });
