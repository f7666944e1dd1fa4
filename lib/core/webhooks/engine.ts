import { and, asc, eq, lt, lte, ne, sql } from "drizzle-orm";
import type { Database, Tx } from "../../db/client";
import type { WebhookAttemptRecord, WebhookDeliveriesTable, WebhookEndpointsTable } from "../../db/schema/webhooks";
import type { CoreDeps } from "../context";
import { createSafeFetch, OutboundError, type SafeFetch } from "../outbound/safe-fetch";
import { signWebhook, WEBHOOK_DELIVERY_HEADER, WEBHOOK_EVENT_HEADER, WEBHOOK_SIGNATURE_HEADER } from "../webhook-signature";

/**
 * The one outgoing-webhook delivery engine of both services (DESIGN §4). Each service gives it its own
 * table pair (`lib/db/schema/webhooks.ts`) and queue topic, and builds its own payloads; signing, the
 * attempt claim, retries, deactivation and the recovery sweep are the same code.
 *
 * Waits before each retry: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 6 h, each ±10 % jitter, so eight attempts
 * span about 23.6 h; no attempt is ever scheduled later than 24 h after the event.
 */
const WEBHOOK_RETRY_DELAYS_SECONDS = [5, 300, 1800, 7200, 18_000, 36_000, 21_600] as const;
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS_SECONDS.length + 1;
const WEBHOOK_RETRY_WINDOW_MS = 24 * 3600_000;
/** A 2xx within this time is success; anything else, a redirect or a time-out is a failure. */
const WEBHOOK_TIMEOUT_MS = 15_000;
/** How long a started attempt owns its delivery before the recovery sweep may start the next one. */
const ATTEMPT_LEASE_MS = 2 * 60_000;
const RESPONSE_LIMIT_BYTES = 64 * 1024;

/**
 * The event of a test delivery someone asked for (`POST /v1/webhooks/{id}/test`): sent to that one endpoint
 * whatever it subscribed to, and like a redelivery a single attempt (never retried, never deactivates it).
 */
export const WEBHOOK_TEST_EVENT = "webhook.test";

export type WebhookWorkerDeps = Pick<CoreDeps, "db" | "clock" | "queue" | "logger" | "secrets" | "config">;

export type WebhookStore = {
  /** Queue topic of this store's delivery worker. */
  topic: string;
  endpoints: WebhookEndpointsTable;
  deliveries: WebhookDeliveriesTable;
};

/** What a delivery log keeps of an answer's body (Stripe and Svix show about as much). */
const RESPONSE_EXCERPT_BYTES = 1024;

type AttemptOutcome = { ok: true; status: number } | { ok: false; status: number | null; error: string };
type AttemptResult = AttemptOutcome & { latencyMs: number; excerpt: string | null };

/**
 * The first `RESPONSE_EXCERPT_BYTES` of a body as valid UTF-8: cut on a character boundary, invalid bytes
 * replaced (U+FFFD) and NULs dropped (PostgreSQL text cannot hold them). Empty bodies give null.
 */
export function responseExcerpt(body: Uint8Array): string | null {
  if (body.length === 0) return null;
  let end = Math.min(body.length, RESPONSE_EXCERPT_BYTES);
  // Step back over continuation bytes (10xxxxxx) so the cut never splits a character.
  if (end < body.length) while (end > 0 && ((body[end] ?? 0) & 0xc0) === 0x80) end--;
  const text = new TextDecoder("utf-8", { fatal: false }).decode(body.subarray(0, end)).replaceAll("\u0000", "");
  return text === "" ? null : text;
}

function jittered(seconds: number): number {
  return seconds * (0.9 + 0.2 * Math.random());
}

/**
 * One signed POST. Every failure becomes a result, ours included (an unreadable secret, say): the attempt
 * then counts like any other, so a delivery can never be retried past its 24 hours.
 */
async function attemptPost(
  deps: WebhookWorkerDeps,
  safeFetch: SafeFetch,
  endpoint: { url: string; secretSealed: string },
  delivery: { id: string; event: string; body: string },
): Promise<AttemptResult> {
  const started = performance.now();
  const outcome = await attemptOutcome(deps, safeFetch, endpoint, delivery);
  return { ...outcome.result, latencyMs: Math.max(0, Math.round(performance.now() - started)), excerpt: outcome.excerpt };
}

async function attemptOutcome(
  deps: WebhookWorkerDeps,
  safeFetch: SafeFetch,
  endpoint: { url: string; secretSealed: string },
  delivery: { id: string; event: string; body: string },
): Promise<{ result: AttemptOutcome; excerpt: string | null }> {
  try {
    const headers = {
      "content-type": "application/json",
      [WEBHOOK_SIGNATURE_HEADER]: signWebhook(deps.secrets.open(endpoint.secretSealed), delivery.body, deps.clock.now().getTime() / 1000),
      [WEBHOOK_EVENT_HEADER]: delivery.event,
      [WEBHOOK_DELIVERY_HEADER]: delivery.id,
    };
    const response = await safeFetch(endpoint.url, {
      method: "POST",
      headers,
      body: delivery.body,
      timeoutMs: WEBHOOK_TIMEOUT_MS,
      maxBytes: RESPONSE_LIMIT_BYTES,
    });
    const excerpt = responseExcerpt(response.body);
    if (response.status >= 200 && response.status < 300) return { result: { ok: true, status: response.status }, excerpt };
    return { result: { ok: false, status: response.status, error: `The endpoint answered ${response.status}.` }, excerpt };
  } catch (error) {
    // A redirect is a failure too (the safe client never follows one); the message names the host only.
    if (error instanceof OutboundError)
      return { result: { ok: false, status: error.status ?? null, error: `${error.reason}: ${error.message}` }, excerpt: null };
    deps.logger.error("webhook attempt failed on our side", { delivery_id: delivery.id, error: String(error) });
    return { result: { ok: false, status: null, error: "The delivery could not be attempted (internal error)." }, excerpt: null };
  }
}

/**
 * Writes one outbox row per active endpoint of the customer subscribed to `event`, inside the caller's
 * transaction, and returns their delivery ids; nothing is sent until `publishDeliveries`. Writing the rows
 * with the change that caused them means an event is never lost between commit and publish: the recovery
 * sweep publishes any due row that was not. `body` gets the delivery id (mail puts it in the payload).
 */
export async function enqueueWebhookEvent(
  store: WebhookStore,
  db: Database | Tx,
  now: Date,
  customerId: string,
  event: string,
  body: (deliveryId: string) => string,
): Promise<string[]> {
  const { endpoints, deliveries } = store;
  const subscribed = await db
    .select({ id: endpoints.id })
    .from(endpoints)
    .where(and(eq(endpoints.customerId, customerId), eq(endpoints.active, true), sql`${endpoints.events} @> ${JSON.stringify([event])}::jsonb`));
  if (subscribed.length === 0) return [];
  const rows = subscribed.map((endpoint) => {
    const id = crypto.randomUUID();
    return { id, webhookId: endpoint.id, customerId, event, body: body(id), nextAttemptAt: now, createdAt: now };
  });
  await db.insert(deliveries).values(rows);
  return rows.map((row) => row.id);
}

/**
 * Hands committed deliveries to the queue (first attempt, no delay). A failed publish is only logged:
 * the row stays due and the recovery sweep publishes it.
 */
export async function publishDeliveries(store: WebhookStore, deps: Pick<CoreDeps, "queue" | "logger">, deliveryIds: readonly string[]): Promise<void> {
  for (const id of deliveryIds) {
    try {
      await deps.queue.publish(store.topic, { delivery_id: id, attempt: 1 });
    } catch (error) {
      deps.logger.warn("webhook delivery not published; the recovery sweep will", { delivery_id: id, error: String(error) });
    }
  }
}

/**
 * Runs attempt `attempt` of one delivery. The conditional claim (`attempts = attempt - 1`) makes a
 * duplicated queue message a no-op. Each attempt is signed with the current time, so a retry hours later
 * verifies within a 5-minute tolerance. The worker never throws for an endpoint's failure: it records it
 * and schedules the next attempt itself; after the last one the endpoint is deactivated.
 */
async function deliverWebhook(store: WebhookStore, deps: WebhookWorkerDeps, safeFetch: SafeFetch, deliveryId: string, attempt: number): Promise<void> {
  const { db, clock } = deps;
  const { endpoints, deliveries } = store;
  const claimedAt = clock.now();
  const [delivery] = await db
    .update(deliveries)
    // The last outcome is cleared while the attempt runs: `lastError` set again means it finished.
    .set({
      attempts: attempt,
      lastAttemptAt: claimedAt,
      nextAttemptAt: new Date(claimedAt.getTime() + ATTEMPT_LEASE_MS),
      lastStatusCode: null,
      lastError: null,
      lastLatencyMs: null,
      lastResponseExcerpt: null,
    })
    .where(and(eq(deliveries.id, deliveryId), eq(deliveries.status, "pending"), eq(deliveries.attempts, attempt - 1)))
    .returning();
  if (!delivery) return;

  const [endpoint] = await db.select().from(endpoints).where(eq(endpoints.id, delivery.webhookId));
  if (!endpoint?.active) {
    await db
      .update(deliveries)
      .set({ status: "failed", completedAt: claimedAt, lastError: "The webhook endpoint is inactive." })
      .where(eq(deliveries.id, deliveryId));
    return;
  }

  const result = await attemptPost(deps, safeFetch, endpoint, delivery);
  const now = clock.now();
  const record: WebhookAttemptRecord = {
    attempt,
    at: claimedAt.toISOString(),
    status_code: result.status,
    latency_ms: result.latencyMs,
    error: result.ok ? null : result.error,
  };
  const answer = {
    lastLatencyMs: result.latencyMs,
    lastResponseExcerpt: result.excerpt,
    attemptLog: sql`${deliveries.attemptLog} || ${JSON.stringify([record])}::jsonb`,
  };

  if (result.ok) {
    await db
      .update(deliveries)
      .set({ status: "delivered", completedAt: now, lastStatusCode: result.status, lastError: null, ...answer })
      .where(eq(deliveries.id, deliveryId));
    await db.update(endpoints).set({ lastDeliveryAt: now, failureCount: 0 }).where(eq(endpoints.id, endpoint.id));
    return;
  }

  await db
    .update(endpoints)
    .set({ failureCount: sql`${endpoints.failureCount} + 1` })
    .where(eq(endpoints.id, endpoint.id));
  const failed = { status: "failed" as const, completedAt: now, lastStatusCode: result.status, lastError: result.error, ...answer };
  if (delivery.redeliveredAt || delivery.event === WEBHOOK_TEST_EVENT) {
    // A redelivery or a test someone asked for is one attempt: its failure is recorded, not retried, and
    // never deactivates the endpoint (a redelivered delivery's automatic schedule ended before).
    await db.update(deliveries).set(failed).where(eq(deliveries.id, deliveryId));
    return;
  }
  const delay = WEBHOOK_RETRY_DELAYS_SECONDS[attempt - 1];
  const deadline = delivery.createdAt.getTime() + WEBHOOK_RETRY_WINDOW_MS;
  if (delay === undefined || now.getTime() >= deadline) {
    await db.update(deliveries).set(failed).where(eq(deliveries.id, deliveryId));
    await db
      .update(endpoints)
      .set({ active: false, deactivatedAt: now, deactivationReason: `Deliveries failed for 24 hours (last: ${result.error})` })
      .where(and(eq(endpoints.id, endpoint.id), eq(endpoints.active, true)));
    deps.logger.warn("webhook endpoint deactivated after 24 h of failed deliveries", { webhook_id: endpoint.id, delivery_id: deliveryId });
    return;
  }

  const nextAt = Math.min(now.getTime() + jittered(delay) * 1000, deadline);
  await db
    .update(deliveries)
    .set({ nextAttemptAt: new Date(nextAt), lastStatusCode: result.status, lastError: result.error, ...answer })
    .where(eq(deliveries.id, deliveryId));
  await deps.queue.publish(
    store.topic,
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
export async function republishDueDeliveries(store: WebhookStore, deps: Pick<CoreDeps, "db" | "clock" | "queue">, limit = 1000): Promise<number> {
  const { deliveries } = store;
  const due = await deps.db
    .select({ id: deliveries.id, attempts: deliveries.attempts })
    .from(deliveries)
    .where(and(eq(deliveries.status, "pending"), lte(deliveries.nextAttemptAt, deps.clock.now())))
    .orderBy(asc(deliveries.nextAttemptAt))
    .limit(limit);
  for (const row of due) {
    await deps.queue.publish(store.topic, { delivery_id: row.id, attempt: row.attempts + 1 });
  }
  return due.length;
}

/** Finished deliveries stay in the delivery log this long, for support questions ("did you send it?"). */
const WEBHOOK_DELIVERY_RETENTION_DAYS = 30;

/** Deletes the store's deliveries that finished (delivered or failed) more than 30 days ago; pending ones stay. */
export async function pruneFinishedDeliveries(store: WebhookStore, deps: Pick<CoreDeps, "db" | "clock">): Promise<number> {
  const { deliveries } = store;
  const cutoff = new Date(deps.clock.now().getTime() - WEBHOOK_DELIVERY_RETENTION_DAYS * 86_400_000);
  const deleted = await deps.db
    .delete(deliveries)
    .where(and(ne(deliveries.status, "pending"), lt(deliveries.completedAt, cutoff)))
    .returning({ id: deliveries.id });
  return deleted.length;
}

/** Registers the store's delivery worker on the queue; the outbound client is the one SSRF-safe client. */
export function registerWebhookWorker(store: WebhookStore, deps: WebhookWorkerDeps): void {
  const safeFetch = createSafeFetch({ allowLoopbackForTests: deps.config.ALLOW_LOOPBACK_OUTBOUND, trustedCa: deps.config.OUTBOUND_TRUSTED_CA });
  deps.queue.register(store.topic, async (body) => {
    const id = typeof body.delivery_id === "string" ? body.delivery_id : null;
    const attempt = typeof body.attempt === "number" && Number.isInteger(body.attempt) && body.attempt >= 1 ? body.attempt : null;
    if (!id || !attempt || !/^[0-9a-f-]{36}$/i.test(id)) {
      deps.logger.warn("webhook delivery message ignored: bad body", { body: JSON.stringify(body).slice(0, 200) });
      return;
    }
    await deliverWebhook(store, deps, safeFetch, id, attempt);
  });
}
