import { trace } from "@opentelemetry/api";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, expect, test } from "vitest";
import { registerTracing, samplerFromEnvironment } from "../../lib/core/tracing-sdk";
import { createHarness, describeResponse, type Harness } from "../helpers/harness";

/**
 * Request spans are sampled as the standard variables say (`OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`,
 * read from the runtime's environment); the default is the specification's `parentbased_always_on`.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
});

test("each standard sampler name gives its sampler; unset or unknown is parentbased_always_on", () => {
  const named = (env: Record<string, string>) => samplerFromEnvironment(env).toString();
  expect(named({})).toMatch(/^ParentBased\{root=AlwaysOnSampler/);
  expect(named({ OTEL_TRACES_SAMPLER: "nonsense" })).toMatch(/^ParentBased\{root=AlwaysOnSampler/);
  expect(named({ OTEL_TRACES_SAMPLER: "always_off" })).toBe("AlwaysOffSampler");
  expect(named({ OTEL_TRACES_SAMPLER: "always_on" })).toBe("AlwaysOnSampler");
  expect(named({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.25" })).toBe("TraceIdRatioBased{0.25}");
  expect(named({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "7" })).toBe("TraceIdRatioBased{1}");
  expect(named({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.1" })).toMatch(/^ParentBased\{root=TraceIdRatioBased\{0\.1\}/);
  expect(named({ OTEL_TRACES_SAMPLER: "parentbased_always_off" })).toMatch(/^ParentBased\{root=AlwaysOffSampler/);
});

test("the runtime's environment picks the sampler: with always_off a request records no span", async () => {
  const exporter = new InMemorySpanExporter();
  const tracing = registerTracing(exporter, { batch: false, env: { OTEL_TRACES_SAMPLER: "always_off" } });
  try {
    expect(trace.getTracer("probe").startSpan("probe").isRecording()).toBe(false);
    const r = await h.call("GET", "/mail/v1/openapi.json");
    expect(r.status, describeResponse(r)).toBe(200);
    expect(exporter.getFinishedSpans()).toEqual([]);
  } finally {
    await tracing.shutdown();
  }
});
