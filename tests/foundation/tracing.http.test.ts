import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createQstashQueue } from "../../lib/adapters/queue";
import { createGraphClient } from "../../lib/ads/platform/client";
import { registerTracing, type TracingHandle } from "../../lib/core/tracing-sdk";
import { inSpan } from "../../lib/base/tracing";
import { createHarness, describeResponse, type Harness } from "../helpers/harness";

/**
 * The trace context across process boundaries: an incoming `traceparent` is continued by the request span,
 * a QStash publish forwards it to the worker route (`Upstash-Forward-traceparent`), and a Graph call's span
 * records the path but never the token in its query.
 */
const exporter = new InMemorySpanExporter();
let tracing: TracingHandle;
let h: Harness;
let qstash: Server;
let qstashUrl: string;
const published: { url: string; headers: IncomingHttpHeaders }[] = [];

beforeAll(async () => {
  tracing = registerTracing(exporter, { batch: false });
  h = await createHarness();
  // QStash's publish endpoint, as far as the SDK needs it: records what it was asked to deliver.
  qstash = createServer((request, response) => {
    published.push({ url: request.url ?? "", headers: request.headers });
    request.resume();
    response.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ messageId: "msg_1" }));
  });
  await new Promise<void>((resolve) => qstash.listen(0, "127.0.0.1", resolve));
  qstashUrl = `http://127.0.0.1:${(qstash.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => qstash.close(resolve));
  await h.close();
  await tracing.shutdown();
});

test("a request continues an incoming traceparent; a foreign one that is malformed starts a new trace", async () => {
  const traceId = "0af7651916cd43dd8448eb211c80319c";
  const r = await h.call("GET", "/mail/v1/openapi.json", { headers: { traceparent: `00-${traceId}-b7ad6b7169203331-01` } });
  expect(r.status, describeResponse(r)).toBe(200);
  const span = exporter.getFinishedSpans().find((s) => s.attributes["http.route"] === "/mail/v1/openapi.json");
  expect(span?.spanContext().traceId).toBe(traceId);
  expect(span?.parentSpanContext?.spanId).toBe("b7ad6b7169203331");

  exporter.reset();
  await h.call("GET", "/mail/v1/openapi.json", { headers: { traceparent: "00-not-a-trace-01" } });
  const fresh = exporter.getFinishedSpans().find((s) => s.attributes["http.route"] === "/mail/v1/openapi.json");
  expect(fresh?.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
  expect(fresh?.parentSpanContext).toBeUndefined();
});

test("a QStash publish carries the publisher's trace context to the worker route", async () => {
  const queue = createQstashQueue({ token: "qstash_test_token", publicBaseUrl: "https://middleware.example.com", qstashUrl, retries: 0 });
  let traceId = "";
  await inSpan("test parent", {}, async (span) => {
    traceId = span.spanContext().traceId;
    await queue.publish("send-job-batch", { job_id: "job-1", batch: 1 });
  });
  expect(published).toHaveLength(1);
  expect(published[0]?.url).toContain("/api/queue/send-job-batch");
  const forwarded = String(published[0]?.headers["upstash-forward-traceparent"] ?? "");
  expect(forwarded).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
  const publish = exporter.getFinishedSpans().find((s) => s.name === "publish send-job-batch");
  expect(publish?.attributes).toMatchObject({ "messaging.system": "qstash", "app.job_id": "job-1" });
  // The forwarded parent is the publish span, so the worker's spans hang under it.
  expect(forwarded.split("-")[2]).toBe(publish?.spanContext().spanId);
});

test("a Graph call's span has method, path and status, never the access token or proof", async () => {
  const seen: string[] = [];
  const graph = createGraphClient({
    baseUrl: "https://graph.example.com/v25.0",
    fetch: async (input) => {
      seen.push(input);
      return Response.json({ data: [] });
    },
  });
  await graph.connect({ accessToken: "EAAG-secret-token", appSecret: "app-secret" }).listImages("act_42");
  expect(seen[0]).toContain("access_token=EAAG-secret-token");
  const span = exporter.getFinishedSpans().find((s) => s.name === "graph GET");
  expect(span?.attributes).toMatchObject({ "http.request.method": "GET", "url.path": "/v25.0/act_42/adimages", "http.response.status_code": 200 });
  expect(JSON.stringify(exporter.getFinishedSpans().map((s) => s.attributes))).not.toMatch(/EAAG-secret-token|appsecret_proof|access_token=/);
});
