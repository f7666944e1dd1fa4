import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { registerTracing, type TracingHandle } from "../../lib/core/tracing-sdk";
import { createHarness, describeResponse, type Harness } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { addRecipients, createJob, createNewsletter, people, waitForJob } from "../helpers/send-jobs";

/**
 * One send job is one trace: the `POST /start` request span, a queue span per batch (with the job id), and
 * under them every Postmark call and the database statements, all with the request's trace id, through the
 * real in-process queue and the real `postmark` client against the simulator. The SDK is the production one
 * with an in-memory exporter instead of OTLP.
 */
const exporter = new InMemorySpanExporter();
let tracing: TracingHandle;
let h: Harness;
let c: Awaited<ReturnType<typeof readyMailCustomer>>;

beforeAll(async () => {
  tracing = registerTracing(exporter, { batch: false });
  h = await createHarness();
  c = await readyMailCustomer(h, "Traced Co");
});
afterAll(async () => {
  await h.close();
  await tracing.shutdown();
});

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe("tracing a send job", () => {
  test("1,000 recipients: one trace from POST /start through every batch to every provider call, carrying the job id", async () => {
    const templateId = await createNewsletter(h, c.mailFull);
    const job = await createJob(h, c.mailFull, { template_id: templateId, params: { campaign: "Traced" } });
    await addRecipients(h, c.mailFull, job.id, people(1000, "traced.example.com"));
    exporter.reset();

    const started = await h.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: c.mailFull });
    expect(started.status, describeResponse(started)).toBe(200);
    await h.deps.queue.idle();
    const done = await waitForJob(h, c.mailFull, job.id, "completed");
    expect(done.recipients).toMatchObject({ total: 1000, accepted: 1000 });

    const spans = exporter.getFinishedSpans();
    const request = spans.find((s) => s.attributes["http.route"] === "/mail/v1/send-jobs/{id}/start");
    expect(request, spans.map((s) => s.name).join(", ")).toBeDefined();
    if (!request) return;
    expect(request.name).toBe("POST /mail/v1/send-jobs/{id}/start");
    expect(request.attributes).toMatchObject({
      "http.response.status_code": 200,
      "url.path": `/mail/v1/send-jobs/${job.id}/start`,
      "app.customer_id": c.id,
      "app.request_id": started.headers.get("x-request-id"),
    });
    const traceId = request.spanContext().traceId;
    const inTrace = spans.filter((s) => s.spanContext().traceId === traceId);
    const byId = new Map(inTrace.map((s) => [s.spanContext().spanId, s]));
    const descendsFromRequest = (span: ReadableSpan) => {
      for (let at: ReadableSpan | undefined = span; at; at = byId.get(parentOf(at) ?? "")) if (at === request) return true;
      return false;
    };

    // Every batch of the job, and nothing of it outside this trace.
    const batches = spans.filter((s) => s.name === "process send-job-batch");
    expect(batches.length).toBeGreaterThanOrEqual(2);
    for (const batch of batches) {
      expect(batch.attributes["app.job_id"]).toBe(job.id);
      expect(batch.spanContext().traceId).toBe(traceId);
      expect(descendsFromRequest(batch)).toBe(true);
    }

    // Every provider call: 1,000 messages in batches of 500, each call under a batch span of the trace.
    const postmark = spans.filter((s) => s.name.startsWith("postmark "));
    expect(postmark.map((s) => s.name)).toEqual(["postmark POST /email/batch", "postmark POST /email/batch"]);
    expect(postmark.reduce((n, s) => n + Number(s.attributes["app.postmark.messages"]), 0)).toBe(1000);
    for (const call of postmark) {
      expect(call.spanContext().traceId).toBe(traceId);
      expect(call.attributes["app.postmark.accepted"]).toBe(500);
      const batch = batches.find((b) => {
        for (let at: ReadableSpan | undefined = call; at; at = byId.get(parentOf(at) ?? "")) if (at === b) return true;
        return false;
      });
      expect(batch, call.name).toBeDefined();
    }

    // Log lines written inside the trace carry its id (and the span's), so a log search finds the trace.
    const completed = h.logLines.map((l) => JSON.parse(l)).find((l) => l.message === "send job completed" && l.send_job_id === job.id);
    expect(completed).toMatchObject({ trace_id: traceId });
    expect(byId.has(completed.span_id)).toBe(true);

    // The database work of the trace is there too, as statements and transactions, never with values.
    const database = inTrace.filter((s) => s.attributes["db.system.name"] === "postgresql");
    expect(database.length).toBeGreaterThan(0);
    expect(database.some((s) => s.name === "TRANSACTION")).toBe(true);
    expect(JSON.stringify(database.map((s) => s.attributes))).not.toContain("traced.example.com");
  });
});
