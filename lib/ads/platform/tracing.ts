import type { ProviderMetrics } from "../../core/provider-metrics";
import { inSpan, SpanKind, SpanStatusCode } from "../../base/tracing";

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/**
 * The Graph client's HTTP layer with a client span per request (method, path, status) and the call in the
 * process's provider figures (`metrics`, when the client has them). Only the path is recorded: the query and the form body carry the access
 * token and `appsecret_proof`. A call is an error when Graph did not answer or answered 4xx/5xx.
 */
export function tracedGraphFetch(fetch: FetchLike, metrics?: ProviderMetrics): FetchLike {
  return (input, init) => {
    const method = init.method ?? "GET";
    const url = new URL(input);
    return inSpan(
      `graph ${method}`,
      { kind: SpanKind.CLIENT, attributes: { "http.request.method": method, "server.address": url.hostname, "url.path": url.pathname } },
      async (span) => {
        const started = performance.now();
        let failed = true;
        try {
          const response = await fetch(input, init);
          span.setAttribute("http.response.status_code", response.status);
          failed = response.status >= 400;
          if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
          return response;
        } finally {
          metrics?.record("graph", performance.now() - started, failed);
        }
      },
    );
  };
}
