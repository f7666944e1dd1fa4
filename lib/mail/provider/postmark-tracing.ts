import type { ProviderMetrics } from "../../core/provider-metrics";
import { inSpan, SpanKind, SpanStatusCode, type Span } from "../../base/tracing";
import type { BulkOutcome, BulkStatusOutcome, NewestOutcome, PostmarkProvider, SearchOutcome, SendOutcome } from "./postmark";

/**
 * A client span per Postmark call (`POST /email`, `POST /email/batch`, `GET /messages/outbound`) with its
 * outcome, and the call in the per-instance provider figures. A call is an error when Postmark did not answer,
 * answered 5xx or refused the request as a whole; a refused recipient (406, 300, another item error) is an
 * answer, not a provider error. Addresses and tokens never reach a span.
 */
export function tracePostmarkProvider(provider: PostmarkProvider, metrics: ProviderMetrics): PostmarkProvider {
  const call = <T>(name: string, attributes: Record<string, number>, run: () => Promise<T>, failed: (result: T, span: Span) => boolean) =>
    tracedCall(metrics, name, attributes, run, failed);
  return {
    send: (token, email) => call("POST /email", { "app.postmark.messages": 1 }, () => provider.send(token, email), sendFailed),
    probe: (token, probe) => call("POST /email", { "app.postmark.probes": 1 }, () => provider.probe(token, probe), sendFailed),
    sendBatchJson: (token, body, count) =>
      call("POST /email/batch", { "app.postmark.messages": count }, () => provider.sendBatchJson(token, body, count), sendFailed),
    sendBulkJson: (token, body) =>
      call(
        "POST /email/bulk",
        {},
        () => provider.sendBulkJson(token, body),
        (outcome: BulkOutcome) => outcome.kind !== "accepted",
      ),
    bulkStatus: (token, id) =>
      call(
        "GET /email/bulk",
        {},
        () => provider.bulkStatus(token, id),
        (outcome: BulkStatusOutcome) => outcome.kind === "unavailable",
      ),
    searchByMetadata: (token, key, value) =>
      call(
        "GET /messages/outbound",
        {},
        () => provider.searchByMetadata(token, key, value),
        (outcome: SearchOutcome, span) => {
          if (outcome.kind === "answered") span.setAttribute("app.postmark.found", outcome.messages.length);
          return outcome.kind === "unavailable";
        },
      ),
    newestReceivedAt: (token) =>
      call(
        "GET /messages/outbound?count=1",
        {},
        () => provider.newestReceivedAt(token),
        (outcome: NewestOutcome) => outcome.kind === "unavailable",
      ),
  };
}

async function tracedCall<T>(
  metrics: ProviderMetrics,
  name: string,
  attributes: Record<string, number>,
  run: () => Promise<T>,
  failed: (result: T, span: Span) => boolean,
): Promise<T> {
  const [method, path] = name.split(" ");
  return inSpan(
    `postmark ${name}`,
    { kind: SpanKind.CLIENT, attributes: { ...attributes, "http.request.method": method ?? "", "url.path": path ?? "", "server.address": "postmark" } },
    async (span) => {
      const started = performance.now();
      let isError = true;
      try {
        const result = await run();
        isError = failed(result, span);
        return result;
      } finally {
        metrics.record("postmark", performance.now() - started, isError);
        if (isError) span.setStatus({ code: SpanStatusCode.ERROR });
      }
    },
  );
}

function sendFailed(outcomes: SendOutcome | SendOutcome[], span: Span): boolean {
  const counts: Record<string, number> = {};
  let failed = false;
  for (const outcome of Array.isArray(outcomes) ? outcomes : [outcomes]) {
    counts[outcome.kind] = (counts[outcome.kind] ?? 0) + 1;
    // No answer, a 5xx, a refused request, or throttling (429, a 503 with Retry-After): a provider error.
    if (outcome.kind === "unknown" || outcome.kind === "throttled" || (outcome.kind === "failed" && outcome.status !== 422)) failed = true;
    if (outcome.kind === "failed") span.setAttribute("http.response.status_code", outcome.status);
  }
  for (const [kind, n] of Object.entries(counts)) span.setAttribute(`app.postmark.${kind}`, n);
  return failed;
}
