import { and, asc, eq, lte } from "drizzle-orm";
import type { CoreDeps } from "../../core/context";
import { createSafeFetch, OutboundError, type SafeFetch } from "../../core/outbound/safe-fetch";
import { signWebhook, WEBHOOK_DELIVERY_HEADER, WEBHOOK_EVENT_HEADER, WEBHOOK_SIGNATURE_HEADER } from "../../core/webhook-signature";
import { mailWebhookDeliveries, mailWebhooks } from "../../db/schema";
import { WEBHOOK_DELIVERY_TOPIC } from "./emit";

/**
 * Waits before each retry (DESIGN §4): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 6 h, each ±10 % jitter, so
 * eight attempts span about 23.6 h; no attempt is ever scheduled later than 24 h after the event.
 */
export const WEBHOOK_RETRY_DELAYS_SECONDS = [5, 300, 1800, 7200, 18_000, 36_000, 21_600] as const;
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS_SECONDS.length + 1;
const RETRY_WINDOW_MS = 24 * 3600_000;
/** A 2xx within this time is success; anything else, a redirect or a time-out is a failure. */
export const WEBHOOK_TIMEOUT_MS = 15_000;
/** How long a started attempt owns its delivery before the recovery sweep may start the next one. */
const ATTEMPT_LEASE_MS = 2 * 60_000;
const RESPONSE_LIMIT_BYTES = 64 * 1024;

export type WebhookWorkerDeps = Pick<CoreDeps, "db" | "clock" | "queue" | "logger" | "secrets" | "config">;

type AttemptResult = { ok: true; status: number } | { ok: false; status: number | null; error: string };

function jittered(seconds: number): number {
  return seconds * (0.9 + 0.2 * Math.random());
}

/**
 * One signed POST. Every failure becomes a result, ours included (an unreadable secret, say): the attempt
 * then counts like any other, so a delivery can never be retried past its 24 hours.
 */
async function attemptPost(deps: WebhookWorkerDeps, safeFetch: SafeFetch, endpoint: { url: string; secretSealed: string }, delivery: { id: string; event: string; body: string }): Promise<AttemptResult> {
  try {
    const headers = {
      "content-type": "application/json",
      [WEBHOOK_SIGNATURE_HEADER]: signWebhook(deps.secrets.open(endpoint.secretSealed), delivery.body, deps.clock.now().getTime() / 1000),
      [WEBHOOK_EVENT_HEADER]: delivery.event,
      [WEBHOOK_DELIVERY_HEADER]: delivery.id,
    };
    const response = await safeFetch(endpoint.url, { method: "POST", headers, body: delivery.body, timeoutMs: WEBHOOK_TIMEOUT_MS, maxBytes: RESPONSE_LIMIT_BYTES });
    if (response.status >= 200 && response.status < 300) return { ok: true, status: response.status };
    return { ok: false, status: response.status, error: `The endpoint answered ${response.status}.` };
  } catch (error) {
    // A redirect is a failure too (the safe client never follows one); the message names the host only.
    if (error instanceof OutboundError) return { ok: false, status: error.status ?? null, error: `${error.reason}: ${error.message}` };
    deps.logger.error("webhook attempt failed on our side", { delivery_id: delivery.id, error: String(error) });
    return { ok: false, status: null, error: "The delivery could not be attempted (internal error)." };
  }
}

/**
 * Runs attempt `attempt` of one delivery. The conditional claim (`attempts = attempt - 1`) makes a
 * duplicated queue message a no-op. Each attempt is signed with the current time, so a retry hours later
 * verifies within a 5-minute tolerance. The worker never throws for an endpoint's failure: it records it
 * and schedules the next attempt itself; after the last one the endpoint is deactivated.
 */
export async function deliverWebhook(deps: WebhookWorkerDeps, safeFetch: SafeFetch, deliveryId: string, attempt: number): Promise<void> {
  const { db, clock } = deps;
  const claimedAt = clock.now();
  const [delivery] = await db
    .update(mailWebhookDeliveries)
    // The last outcome is cleared while the attempt runs: `lastError` set again means it finished.
    .set({ attempts: attempt, lastAttemptAt: claimedAt, nextAttemptAt: new Date(claimedAt.getTime() + ATTEMPT_LEASE_MS), lastStatusCode: null, lastError: null })
    .where(and(eq(mailWebhookDeliveries.id, deliveryId), eq(mailWebhookDeliveries.status, "pending"), eq(mailWebhookDeliveries.attempts, attempt - 1)))
    .returning();
  if (!delivery) return;

  const [endpoint] = await db.select().from(mailWebhooks).where(eq(mailWebhooks.id, delivery.webhookId));
  if (!endpoint?.active) {
    await db
      .update(mailWebhookDeliveries)
      .set({ status: "failed", completedAt: claimedAt, lastError: "The webhook endpoint is inactive." })
      .where(eq(mailWebhookDeliveries.id, deliveryId));
    return;
  }

  const result = await attemptPost(deps, safeFetch, endpoint, delivery);
  const now = clock.now();

  if (result.ok) {
    await db
      .update(mailWebhookDeliveries)
      .set({ status: "delivered", completedAt: now, lastStatusCode: result.status, lastError: null })
      .where(eq(mailWebhookDeliveries.id, deliveryId));
    return;
  }

  const delay = WEBHOOK_RETRY_DELAYS_SECONDS[attempt - 1];
  const deadline = delivery.createdAt.getTime() + RETRY_WINDOW_MS;
  if (delay === undefined || now.getTime() >= deadline) {
    await db
      .update(mailWebhookDeliveries)
      .set({ status: "failed", completedAt: now, lastStatusCode: result.status, lastError: result.error })
      .where(eq(mailWebhookDeliveries.id, deliveryId));
    await db
      .update(mailWebhooks)
      .set({ active: false, deactivatedAt: now, deactivationReason: `Deliveries failed for 24 hours (last: ${result.error})` })
      .where(and(eq(mailWebhooks.id, endpoint.id), eq(mailWebhooks.active, true)));
    deps.logger.warn("webhook endpoint deactivated after 24 h of failed deliveries", { webhook_id: endpoint.id, delivery_id: deliveryId });
    return;
  }

  const nextAt = Math.min(now.getTime() + jittered(delay) * 1000, deadline);
  await db
    .update(mailWebhookDeliveries)
    .set({ nextAttemptAt: new Date(nextAt), lastStatusCode: result.status, lastError: result.error })
    .where(eq(mailWebhookDeliveries.id, deliveryId));
  await deps.queue.publish(
    WEBHOOK_DELIVERY_TOPIC,
    { delivery_id: deliveryId, attempt: attempt + 1 },
    { delaySeconds: Math.max(1, Math.ceil((nextAt - now.getTime()) / 1000)) },
  );
}

/**
 * The recovery sweep: every pending delivery that is due (never published, its retry message lost with a
 * restarted process, or its attempt crashed past the lease) is published again as its next attempt. No
 * queue deduplication id: the attempt claim already makes a second copy a no-op, and a deduplicated
 * publish could swallow exactly the copy that replaces a lost one.
 */
export async function republishDueDeliveries(deps: Pick<CoreDeps, "db" | "clock" | "queue">, limit = 1000): Promise<number> {
  const due = await deps.db
    .select({ id: mailWebhookDeliveries.id, attempts: mailWebhookDeliveries.attempts })
    .from(mailWebhookDeliveries)
    .where(and(eq(mailWebhookDeliveries.status, "pending"), lte(mailWebhookDeliveries.nextAttemptAt, deps.clock.now())))
    .orderBy(asc(mailWebhookDeliveries.nextAttemptAt))
    .limit(limit);
  for (const row of due) {
    await deps.queue.publish(WEBHOOK_DELIVERY_TOPIC, { delivery_id: row.id, attempt: row.attempts + 1 });
  }
  return due.length;
}

/** Registers the delivery worker on the queue; the outbound client is the one SSRF-safe client. */
export function registerWebhookWorker(deps: WebhookWorkerDeps): void {
  const safeFetch = createSafeFetch({ allowLoopbackForTests: deps.config.ALLOW_LOOPBACK_OUTBOUND, trustedCa: deps.config.OUTBOUND_TRUSTED_CA });
  deps.queue.register(WEBHOOK_DELIVERY_TOPIC, async (body) => {
    const id = typeof body.delivery_id === "string" ? body.delivery_id : null;
    const attempt = typeof body.attempt === "number" && Number.isInteger(body.attempt) && body.attempt >= 1 ? body.attempt : null;
    if (!id || !attempt || !/^[0-9a-f-]{36}$/i.test(id)) {
      deps.logger.warn("webhook delivery message ignored: bad body", { body: JSON.stringify(body).slice(0, 200) });
      return;
    }
    await deliverWebhook(deps, safeFetch, id, attempt);
  });
}
