import { z } from "@hono/zod-openapi";

const seconds = (description: string, example: number | null) => z.int().min(0).nullable().openapi({ description, example });
const total = (description: string, example: number) => z.int().min(0).openapi({ description, example });

const ProviderCalls = z
  .object({
    calls: total("Calls this instance made since `since`.", 1240),
    errors: total("Of those, calls that got no answer, a 5xx, or a refusal of the whole request (a refused recipient is an answer, not an error).", 3),
    error_rate: z.number().min(0).max(1).openapi({ description: "`errors / calls`; 0 without calls.", example: 0.0024 }),
    latency_ms: z
      .object({
        p50: total("Median duration of the latest calls (up to 512), ms.", 180),
        p95: total("95th percentile, ms.", 640),
        max: total("Longest of the latest calls, ms.", 2100),
      })
      .nullable()
      .openapi({ description: "Over the latest calls of this instance (up to 512); null without calls." }),
    since: z.string().openapi({ description: "ISO 8601 time this instance started counting (its start).", example: "2026-11-26T05:00:00.000Z" }),
  })
  .openapi("SystemProviderCalls", {
    description:
      "Per instance since it started: each serverless instance keeps its own figures, so they describe the instance that answered this request, not the fleet (the traces have every call).",
  });

const WebhookDeliveries = z
  .object({
    failed_last_24h: total("Deliveries that exhausted their retries (24 h) and ended `failed` in the last 24 hours.", 2),
    retrying: total("Pending deliveries with at least one failed attempt, waiting for their next retry.", 5),
  })
  .openapi("SystemWebhookDeliveries");

export const SystemStatus = z
  .object({
    generated_at: z.string().openapi({ description: "ISO 8601 time the figures were read.", example: "2026-11-26T05:40:00.000Z" }),
    queue: z
      .object({
        kind: z
          .enum(["local", "qstash"])
          .openapi({ description: "`qstash` in production; `local` is the in-process dispatcher of the embedded mode.", example: "qstash" }),
        send_job_batches: z
          .object({
            waiting: total("Batches (chunks of up to 500 recipients) of running send jobs no lane has claimed yet.", 40),
            oldest_wait_seconds: seconds(
              "Seconds since the job with the oldest waiting batch last made progress (a claim or a recorded batch); null when nothing waits. Growing = stalled lanes.",
              12,
            ),
          })
          .openapi({ description: "Send-job work waiting in the queue, read from the database." }),
        webhook_deliveries: z
          .object({
            due: total("Outgoing webhook deliveries (mail and ads) whose next attempt is due now.", 3),
            oldest_due_seconds: seconds("Seconds the most overdue of them has waited; null when none is due.", 4),
          })
          .openapi({ description: "Webhook deliveries due, read from the database." }),
      })
      .openapi({ description: "Queue depth and age, from the tables the workers take their work from (QStash itself is not asked)." }),
    send_jobs: z
      .object({
        running: total("Send jobs in `running`.", 2),
        paused: total("Send jobs in `paused` (blocked account, monthly limit, provider not ready).", 0),
        batches_in_flight: total("Batches claimed within the reconciliation grace period: their provider call is under way.", 3),
      })
      .openapi({ description: "Send jobs across all customers." }),
    providers: z
      .object({ postmark: ProviderCalls, graph: ProviderCalls })
      .openapi({ description: "Provider error rate and latency (this instance since it started)." }),
    webhook_failures: z.object({ mail: WebhookDeliveries, ads: WebhookDeliveries }).openapi({ description: "Outgoing webhook delivery failures per service." }),
    reconcile: z
      .object({
        batches_in_doubt: total(
          "Claimed batches older than `SEND_RECONCILE_GRACE_SECONDS` whose provider answer is not recorded: reconciliation asks Postmark what it received.",
          0,
        ),
        oldest_in_doubt_seconds: seconds("Seconds since the oldest of them was claimed; null when none.", null),
        unknown_messages: total("Messages in `unknown` of running or paused send jobs.", 0),
      })
      .openapi({ description: "Reconciliation backlog." }),
  })
  .openapi("SystemStatus");
