import { adminRoute } from "../../access";
import type { z } from "@hono/zod-openapi";
import type { CoreDeps } from "../../../core/context";
import type { ProviderCallFigures } from "../../../core/provider-metrics";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { type SystemFigures, systemFigures } from "../../system";
import type { AdminRouter } from "../shared";
import { SystemStatus } from "../../system/schema";

type SystemStatusResponse = z.infer<typeof SystemStatus>;

export function registerGetSystem(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(deps, "support", {
      method: "get",
      path: "/v1/system",
      operationId: "getSystem",
      tags: ["System"],
      summary: "Queue, provider, webhook and reconciliation figures",
      description:
        "What an operator watches: queue depth and age, batches in flight, provider error rate and latency, webhook delivery failures and the reconciliation backlog. Database figures cover the whole deployment; provider figures are in-process counters of the instance that answers, since it started. Follow a single request or send job in the traces (OpenTelemetry; see the README).",
      responses: { 200: { description: "The figures.", content: json(envelope(SystemStatus)) }, ...errorResponses("admin", [401]) },
    }),
    async (c) => c.json({ data: systemView(await systemFigures(deps)), request_id: c.get("requestId") }, 200),
  );
}

function systemView(f: SystemFigures): SystemStatusResponse {
  return {
    generated_at: f.generatedAt.toISOString(),
    queue: {
      kind: f.queue.kind,
      send_job_batches: { waiting: f.queue.sendJobBatches.waiting, oldest_wait_seconds: f.queue.sendJobBatches.oldestWaitSeconds },
      webhook_deliveries: { due: f.queue.webhookDeliveries.due, oldest_due_seconds: f.queue.webhookDeliveries.oldestDueSeconds },
    },
    send_jobs: { running: f.sendJobs.running, paused: f.sendJobs.paused, batches_in_flight: f.sendJobs.batchesInFlight },
    providers: { postmark: providerView(f.providers.postmark), graph: providerView(f.providers.graph) },
    webhook_failures: {
      mail: { failed_last_24h: f.webhooks.mail.failedLast24h, retrying: f.webhooks.mail.retrying },
      ads: { failed_last_24h: f.webhooks.ads.failedLast24h, retrying: f.webhooks.ads.retrying },
    },
    reconcile: {
      batches_in_doubt: f.reconcile.batchesInDoubt,
      oldest_in_doubt_seconds: f.reconcile.oldestInDoubtSeconds,
      unknown_messages: f.reconcile.unknownMessages,
    },
  };
}

function providerView(p: ProviderCallFigures) {
  return { calls: p.calls, errors: p.errors, error_rate: p.errorRate, latency_ms: p.latencyMs, since: p.since.toISOString() };
}
