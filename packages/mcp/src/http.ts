import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Fetch } from "./api.js";
import type { OpenApiDocument, Service } from "./operations.js";
import { CredentialError, createMcpServer } from "./server.js";

export type McpHttpOptions = {
  /** The deployment's root the tools call (`http://localhost:3000`), or the request's own origin when absent. */
  baseUrl?: string;
  fetch?: Fetch;
  documents?: (service: Service) => Promise<OpenApiDocument>;
};

function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

/**
 * MCP's Streamable HTTP transport, stateless: each POST carries the bearer credential (a customer's key or
 * an operator's token) and gets a server built for it, answered as JSON. Without a credential, or with one
 * the service refuses, the answer is 401 with `WWW-Authenticate: Bearer`, as the transport's authorization
 * rules ask. GET (a server-initiated stream) and DELETE (ending a session) answer 405: there are no sessions.
 */
export async function handleMcpRequest(request: Request, options: McpHttpOptions = {}): Promise<Response> {
  if (request.method !== "POST")
    return jsonRpcError(405, -32000, "Method not allowed: this MCP endpoint is stateless; POST JSON-RPC messages.", { Allow: "POST" });
  const authorization = request.headers.get("authorization") ?? "";
  const token = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
  const challenge = { "WWW-Authenticate": 'Bearer realm="mcp", error="invalid_token"' };
  if (!token)
    return jsonRpcError(401, -32001, "Send a customer's API key or an operator's token as `Authorization: Bearer …`.", {
      "WWW-Authenticate": 'Bearer realm="mcp"',
    });
  const baseUrl = options.baseUrl ?? new URL(request.url).origin;
  let server: Awaited<ReturnType<typeof createMcpServer>>;
  try {
    server = await createMcpServer({ baseUrl, token, fetch: options.fetch, documents: options.documents });
  } catch (error) {
    if (error instanceof CredentialError && error.status === 401) return jsonRpcError(401, -32001, error.message, challenge);
    if (error instanceof CredentialError) return jsonRpcError(error.status >= 400 ? error.status : 502, -32002, error.message);
    throw error;
  }
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    await server.close();
  }
}
