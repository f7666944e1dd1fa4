import type { OpenAPIHono } from "@hono/zod-openapi";
import { handleMcpRequest, type OpenApiDocument, type Service } from "../packages/mcp/src/index";
import type { AppEnv } from "./core/context";

/** Where MCP clients connect: `POST /mcp` (Streamable HTTP, stateless, the bearer credential per request). */
export const MCP_PATH = "/mcp";

/**
 * The MCP server (packages/mcp) at `/mcp`, its tool calls answered by this same app in-process: the request
 * goes through the services' own routes, authentication, scopes, rate limits and idempotency, exactly as a
 * call over the network would, without leaving the process. The OpenAPI documents are read once: the routes
 * do not change while the process runs.
 */
export function mountMcp(root: OpenAPIHono<AppEnv>): void {
  const inProcess = (request: Request) => Promise.resolve(root.fetch(request));
  const documents = new Map<Service, Promise<OpenApiDocument>>();
  const document = (service: Service) => {
    let cached = documents.get(service);
    if (!cached) {
      cached = inProcess(new Request(`http://mcp.internal/${service}/v1/openapi.json`)).then(async (response) => {
        if (!response.ok) throw new Error(`GET /${service}/v1/openapi.json answered ${response.status}`);
        return (await response.json()) as OpenApiDocument;
      });
      cached.catch(() => documents.delete(service));
      documents.set(service, cached);
    }
    return cached;
  };
  root.all(MCP_PATH, (c) => handleMcpRequest(c.req.raw, { baseUrl: "http://mcp.internal", fetch: inProcess, documents: document }));
}
