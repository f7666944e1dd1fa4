import type { Context as HonoContext, Next } from "hono";
import { routePath } from "hono/route";
import type { AppEnv } from "./context";
import type { Surface } from "./errors";
import { contextFrom, inSpan, isTracingActive, SpanKind, SpanStatusCode, withRequestId } from "../base/tracing";

/**
 * One server span per request, continuing an incoming W3C `traceparent` (a caller's trace, or the trace of
 * the queue message QStash delivers). Named `METHOD /route/{param}` once routing has matched; the query
 * string is never recorded (it may hold signed tokens). Only the trace context is taken from the request:
 * baggage from outside is ignored. With tracing off (no SDK registered) nothing of this runs: the incoming
 * headers are not parsed and no span is started, only the request id is kept for the log lines. With it on,
 * the SDK's sampler (`OTEL_TRACES_SAMPLER`) decides; a span not sampled records nothing and is not filled.
 */
export function traceRequest(c: HonoContext<AppEnv>, surface: Surface, mountPath: string, requestId: string, next: Next): Promise<void> {
  if (!isTracingActive()) return withRequestId(requestId, next);
  const method = c.req.method;
  const parent = contextFrom(c.req.raw.headers);
  return withRequestId(requestId, () =>
    inSpan(
      method,
      {
        kind: SpanKind.SERVER,
        parent,
        attributes: { "http.request.method": method, "url.path": `${mountPath}${c.req.path}`, "app.request_id": requestId, "app.surface": surface },
      },
      async (span) => {
        await next();
        // Tracing off: the no-op span records nothing, so the route and status are not even looked up.
        if (!span.isRecording()) return;
        const route = routePath(c, -1);
        if (route && !route.endsWith("*")) {
          const template = `${mountPath}${route.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, "{$1}")}`;
          span.updateName(`${method} ${template}`);
          span.setAttribute("http.route", template);
        }
        const status = c.res.status;
        span.setAttribute("http.response.status_code", status);
        const principal = c.get("principal");
        if (principal) span.setAttribute("app.customer_id", principal.customerId);
        if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      },
    ),
  );
}
