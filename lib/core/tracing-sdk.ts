import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  type Sampler,
  SimpleSpanProcessor,
  type SpanExporter,
  TraceIdRatioBasedSampler,
} from "@opentelemetry/sdk-trace-base";
import { setTracingActive } from "../base/tracing";

/**
 * The OpenTelemetry SDK, loaded only when tracing is on (a dynamic import, so the functions' cold start and
 * `npm start` do not pay for it otherwise). Settings are the standard `OTEL_*` variables:
 * - `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) set → spans go to that OTLP/HTTP
 *   collector in batches; `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_BSP_*`, `OTEL_TRACES_SAMPLER` apply as usual;
 * - `OTEL_TRACES_EXPORTER=console` → every span is printed to stdout as it ends (local debugging);
 * - `OTEL_TRACES_EXPORTER=none` or `OTEL_SDK_DISABLED=true` → off, whatever else is set.
 * `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` name the service (default `mail-ads-middleware`).
 */
export type TracingHandle = {
  /** Exports what is buffered (end of a serverless invocation, shutdown). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
};

export type TracingEnvironment = Record<string, string | undefined>;

/** The exporter the environment asks for, or null when tracing stays off. */
async function exporterFromEnvironment(env: TracingEnvironment): Promise<{ exporter: SpanExporter; batch: boolean } | null> {
  if (env.OTEL_SDK_DISABLED === "true") return null;
  const chosen = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (chosen === "none") return null;
  if (chosen === "console") return { exporter: new ConsoleSpanExporter(), batch: false };
  if (chosen === "otlp" || env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) {
    const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-http");
    return { exporter: new OTLPTraceExporter(), batch: true };
  }
  return null;
}

/**
 * Registers the global tracer provider, the async-context manager (spans follow `await`s) and the W3C
 * trace-context propagator. Once per process; tests pass an in-memory exporter.
 */
export function registerTracing(exporter: SpanExporter, options: { batch: boolean; env?: TracingEnvironment }): TracingHandle {
  const env = options.env ?? process.env;
  const resource = resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME || "mail-ads-middleware" }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const processor = options.batch ? new BatchSpanProcessor(exporter) : new SimpleSpanProcessor(exporter);
  const provider = new BasicTracerProvider({ resource, spanProcessors: [processor], sampler: samplerFromEnvironment(env) });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  setTracingActive(true);
  return {
    flush: () => provider.forceFlush(),
    // Unregisters too, so a later registration in the same process (a test, a restarted runtime) takes effect.
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
      setTracingActive(false);
    },
  };
}

/**
 * The sampler the standard variables name (`OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`), read from the
 * environment the runtime was given: `always_on`, `always_off`, `traceidratio`, and their `parentbased_`
 * forms; unset (or unknown) is the specification's default, `parentbased_always_on`.
 */
export function samplerFromEnvironment(env: TracingEnvironment): Sampler {
  const name = (env.OTEL_TRACES_SAMPLER ?? "").trim().toLowerCase();
  const argument = Number(env.OTEL_TRACES_SAMPLER_ARG);
  const ratio = Number.isFinite(argument) && argument >= 0 && argument <= 1 && env.OTEL_TRACES_SAMPLER_ARG?.trim() ? argument : 1;
  switch (name) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return new TraceIdRatioBasedSampler(ratio);
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** Tracing as the environment configures it, or null when it is off (the default). */
export async function startTracing(env: TracingEnvironment = process.env): Promise<TracingHandle | null> {
  const chosen = await exporterFromEnvironment(env);
  return chosen ? registerTracing(chosen.exporter, { batch: chosen.batch, env }) : null;
}
