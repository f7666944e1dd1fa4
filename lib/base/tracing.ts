import { AsyncLocalStorage } from "node:async_hooks";
import { type Attributes, type Context, context, propagation, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";

/**
 * Tracing at the seams (request middleware, database handle, provider clients, blob store, queue), through
 * the OpenTelemetry API only. Until `startTracing` (`./tracing-sdk.ts`) registers a tracer provider the API
 * hands out its no-op tracer: a span costs a function call and nothing is recorded. Domain code never
 * starts spans; it runs inside the span of the seam that called it.
 */
const tracer = trace.getTracer("mail-ads-middleware");

export { SpanKind, SpanStatusCode, type Attributes, type Span };

/**
 * The request id of the request being handled, for the logger. Kept in an AsyncLocalStorage of its own, not in
 * the OpenTelemetry context: with tracing off the API's context manager is a no-op that carries nothing, and
 * every log line of a request carries its id with tracing on or off.
 */
const requestIds = new AsyncLocalStorage<string>();

/**
 * Runs `fn` in a new active span (a child of `parent`, default the active context) and ends it; an
 * exception marks the span as an error and is rethrown.
 */
export function inSpan<T>(name: string, options: { kind?: SpanKind; attributes?: Attributes; parent?: Context }, fn: (span: Span) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes },
    options.parent ?? context.active(),
    async (span) => {
      try {
        return await fn(span);
      } catch (error) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : "error" });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** Whether a tracer provider is registered (`./tracing-sdk.ts`); off, a request's span is not even started. */
let tracingActive = false;

export function setTracingActive(active: boolean): void {
  tracingActive = active;
}

export function isTracingActive(): boolean {
  return tracingActive;
}

/** Whether the environment asks for tracing at all; the SDK is loaded only then (`./tracing-sdk.ts` decides the rest). */
export function tracingRequested(env: Record<string, string | undefined>): boolean {
  return Boolean(env.OTEL_TRACES_EXPORTER || env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/** Runs `fn` (and everything it awaits or schedules) as the request `requestId`, for the logger. */
export function withRequestId<T>(requestId: string, fn: () => T): T {
  return requestIds.run(requestId, fn);
}

/**
 * Runs `fn` outside any request: a queue message's processing is work of its own (its lines carry the trace
 * and the message's ids), even when the in-process queue happens to start it from inside a request.
 */
export function outsideRequest<T>(fn: () => T): T {
  return requestIds.exit(fn);
}

/** The W3C trace context (`traceparent`, `tracestate`) of the active span, to carry in a queue message. */
export function traceCarrier(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** The context a carrier (queue message headers, HTTP headers) continues; empty or invalid = a new trace. */
export function contextFrom(carrier: Record<string, string | undefined> | Headers, base: Context = ROOT_CONTEXT): Context {
  if (carrier instanceof Headers) {
    return propagation.extract(base, carrier, {
      get: (h, key) => h.get(key) ?? undefined,
      keys: (h) => {
        const names: string[] = [];
        h.forEach((_, name) => {
          names.push(name);
        });
        return names;
      },
    });
  }
  return propagation.extract(base, carrier);
}

/** The ids a log line carries: the active trace and span, and the request being handled. */
export function logCorrelation(): { trace_id?: string; span_id?: string; request_id?: string } {
  const active = context.active();
  const span = trace.getSpan(active)?.spanContext();
  const requestId = requestIds.getStore();
  const ids: { trace_id?: string; span_id?: string; request_id?: string } = {};
  if (span && trace.isSpanContextValid(span)) {
    ids.trace_id = span.traceId;
    ids.span_id = span.spanId;
  }
  if (requestId) ids.request_id = requestId;
  return ids;
}
