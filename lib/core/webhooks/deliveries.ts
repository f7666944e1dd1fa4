import { WEBHOOK_DELIVERY_HEADER, WEBHOOK_EVENT_HEADER, WEBHOOK_SIGNATURE_HEADER } from "../webhook-signature";
import { and, desc, eq, inArray, isNotNull, or } from "drizzle-orm";
import type { CoreDeps } from "../context";
import { ConflictError, NotFoundError } from "../errors";
import { beforeCursor, decodeCursor, toPage, type Cursor } from "../pagination";
import { WEBHOOK_TEST_EVENT, type WebhookStore } from "./engine";
import { webhookView, type WebhookView } from "./registrations";
import type { webhookDeliveryFields } from "./schema";
import type { z } from "@hono/zod-openapi";

/**
 * The delivery log of one endpoint and the two things a customer or an operator can do about it
 * (anchored on Stripe's and Svix's delivery logs): redeliver one delivery, and re-enable an endpoint the
 * engine deactivated after 24 hours of failures.
 *
 * Invariants:
 * - Every read and write filters by customer and endpoint: another customer's id is a 404, never a 403.
 * - A redelivery keeps the delivery's id (`X-Service-Delivery`) and body, so a receiver that deduplicates
 *   sees one event; it is one more attempt claimed by the engine's conditional update (`attempts = n - 1`),
 *   so a redelivery published twice still posts once.
 * - A finished delivery (delivered or failed) is redelivered as a single attempt (`redelivered_at` set: the
 *   engine neither retries it on the schedule nor deactivates the endpoint for it). A delivery still waiting
 *   for its next retry is attempted now instead, and keeps its schedule. An attempt in flight is never
 *   doubled: that case is a 409.
 */

/** A delivery log entry as the services answer it (`webhookDeliveryFields`), its event narrowed to the service's names. */
export type WebhookDeliveryView<E extends string> = Omit<z.infer<ReturnType<typeof webhookDeliveryFields<readonly [string]>>>, "event"> & {
  event: E | typeof WEBHOOK_TEST_EVENT;
};

type DeliveryStatus = WebhookDeliveryView<string>["status"];

type DeliveryRow = WebhookStore["deliveries"]["$inferSelect"];

const iso = (d: Date | null) => d?.toISOString() ?? null;

function deliveryView<E extends string>(row: DeliveryRow): WebhookDeliveryView<E> {
  return {
    id: row.id,
    webhook_id: row.webhookId,
    // The column holds only the service's event names and the test event.
    event: row.event as E | typeof WEBHOOK_TEST_EVENT,
    status: row.status,
    attempts: row.attempts,
    status_code: row.lastStatusCode,
    latency_ms: row.lastLatencyMs,
    response_excerpt: row.lastResponseExcerpt,
    error: row.lastError,
    // While pending, `next_attempt_at` is the next retry (or the lease of the attempt running now).
    next_attempt_at: row.status === "pending" ? row.nextAttemptAt.toISOString() : null,
    last_attempt_at: iso(row.lastAttemptAt),
    redelivered_at: iso(row.redeliveredAt),
    created_at: row.createdAt.toISOString(),
    completed_at: iso(row.completedAt),
    attempt_history: row.attemptLog,
    request: { headers: requestHeaders(row), body: row.body },
  };
}

/**
 * The headers every attempt of a delivery carries (lib/core/webhooks/engine.ts). The signature is made afresh
 * per attempt with the endpoint's secret and is not stored: its value is shown as its form, with the last
 * attempt's time where there was one, so nothing derived from the secret is ever shown.
 */
function requestHeaders(row: DeliveryRow): Record<string, string> {
  const t = row.lastAttemptAt ? String(Math.floor(row.lastAttemptAt.getTime() / 1000)) : "<attempt time>";
  return {
    "Content-Type": "application/json",
    [WEBHOOK_EVENT_HEADER]: row.event,
    [WEBHOOK_DELIVERY_HEADER]: row.id,
    [WEBHOOK_SIGNATURE_HEADER]: `t=${t},v1=<HMAC-SHA256 of "t.body" with the endpoint's secret, made per attempt, not stored>`,
  };
}

async function requireEndpoint(store: WebhookStore, db: CoreDeps["db"], customerId: string, webhookId: string) {
  const { endpoints } = store;
  const [endpoint] = await db
    .select()
    .from(endpoints)
    .where(and(eq(endpoints.customerId, customerId), eq(endpoints.id, webhookId)));
  if (!endpoint) throw new NotFoundError("Webhook");
  return endpoint;
}

export type DeliveryListInput = { limit: number; after: Cursor | null; status?: DeliveryStatus; event?: string };

/** The list query as the routes parse it (`deliveryListQuery`), with the cursor decoded (a bad one is 400). */
export function deliveryListInput(query: { limit: number; after?: string; status?: DeliveryStatus; event?: string }): DeliveryListInput {
  return { limit: query.limit, after: decodeCursor(query.after), status: query.status, event: query.event };
}

/** One endpoint's deliveries, newest first by (created_at, id); the cursor is opaque and stable under inserts. */
export async function listWebhookDeliveries<E extends string>(
  store: WebhookStore,
  db: CoreDeps["db"],
  customerId: string,
  webhookId: string,
  input: DeliveryListInput,
) {
  await requireEndpoint(store, db, customerId, webhookId);
  const { deliveries } = store;
  const rows = await db
    .select()
    .from(deliveries)
    .where(
      and(
        eq(deliveries.customerId, customerId),
        eq(deliveries.webhookId, webhookId),
        input.status ? eq(deliveries.status, input.status) : undefined,
        input.event ? eq(deliveries.event, input.event) : undefined,
        beforeCursor(deliveries.createdAt, deliveries.id, input.after),
      ),
    )
    .orderBy(desc(deliveries.createdAt), desc(deliveries.id))
    .limit(input.limit + 1);
  const page = toPage(rows, input.limit, (row) => ({ at: row.createdAt.toISOString(), id: row.id }));
  return { items: page.items.map((row) => deliveryView<E>(row)), paging: page.paging };
}

/**
 * Redelivers one delivery now (see the invariants above) and returns it as it stands (pending). The
 * endpoint must be active: an inactive one answers 409 `webhook_inactive` (re-enable it first).
 */
export async function redeliverWebhookDelivery<E extends string>(
  store: WebhookStore,
  deps: Pick<CoreDeps, "db" | "clock" | "queue" | "logger">,
  customerId: string,
  webhookId: string,
  deliveryId: string,
): Promise<WebhookDeliveryView<E>> {
  const { db } = deps;
  const { deliveries } = store;
  const endpoint = await requireEndpoint(store, db, customerId, webhookId);
  const own = and(eq(deliveries.id, deliveryId), eq(deliveries.webhookId, webhookId), eq(deliveries.customerId, customerId));
  const [existing] = await db.select({ id: deliveries.id }).from(deliveries).where(own);
  if (!existing) throw new NotFoundError("Delivery");
  if (!endpoint.active) {
    throw new ConflictError("The webhook endpoint is inactive (its deliveries failed for 24 hours); re-enable it before redelivering.", {
      reason: "webhook_inactive",
    });
  }
  const now = deps.clock.now();
  // A finished delivery becomes pending again for one attempt.
  let [row] = await db
    .update(deliveries)
    .set({ status: "pending", redeliveredAt: now, nextAttemptAt: now, completedAt: null })
    .where(and(own, inArray(deliveries.status, ["delivered", "failed"])))
    .returning();
  // A pending one waiting for its next retry (never attempted, or its last attempt recorded) is attempted now.
  row ??= (
    await db
      .update(deliveries)
      .set({ nextAttemptAt: now })
      .where(and(own, eq(deliveries.status, "pending"), or(eq(deliveries.attempts, 0), isNotNull(deliveries.lastError))))
      .returning()
  )[0];
  if (!row) {
    throw new ConflictError("An attempt of this delivery is running right now; look at its outcome before redelivering.", {
      reason: "delivery_in_progress",
    });
  }
  try {
    await deps.queue.publish(store.topic, { delivery_id: row.id, attempt: row.attempts + 1 });
  } catch (error) {
    // The row is due now: the recovery sweep publishes it.
    deps.logger.warn("webhook redelivery not published; the recovery sweep will", { delivery_id: row.id, error: String(error) });
  }
  return deliveryView<E>(row);
}

const TEST_MESSAGE = "A test event: your endpoint is reachable and can verify our signature. Nothing happened in the account.";

/** A test event in the service's own body shape: mail's `{ event, delivery_id, …, occurred_at }`, ads' `{ id, type, created, data }`. */
function testEventBody(service: "mail" | "ads", deliveryId: string, webhookId: string, now: Date): string {
  if (service === "ads") {
    return JSON.stringify({
      id: deliveryId,
      type: WEBHOOK_TEST_EVENT,
      created: Math.floor(now.getTime() / 1000),
      data: { webhook_id: webhookId, test: true, message: TEST_MESSAGE },
    });
  }
  return JSON.stringify({
    event: WEBHOOK_TEST_EVENT,
    delivery_id: deliveryId,
    webhook_id: webhookId,
    test: true,
    message: TEST_MESSAGE,
    occurred_at: now.toISOString(),
  });
}

/**
 * Queues a test event to one endpoint now (whatever events it subscribed to) and returns its delivery as it
 * stands (pending): a single attempt, signed like every delivery, in the endpoint's log like any other. The
 * endpoint must be active (409 `webhook_inactive` otherwise), as for a redelivery.
 */
export async function sendTestWebhookEvent(
  store: WebhookStore,
  service: "mail" | "ads",
  deps: Pick<CoreDeps, "db" | "clock" | "queue" | "logger">,
  customerId: string,
  webhookId: string,
): Promise<WebhookDeliveryView<never>> {
  const endpoint = await requireEndpoint(store, deps.db, customerId, webhookId);
  if (!endpoint.active) {
    throw new ConflictError("The webhook endpoint is inactive (its deliveries failed for 24 hours); re-enable it before sending a test event.", {
      reason: "webhook_inactive",
    });
  }
  const now = deps.clock.now();
  const id = crypto.randomUUID();
  const body = testEventBody(service, id, webhookId, now);
  const [row] = await deps.db
    .insert(store.deliveries)
    .values({ id, webhookId, customerId, event: WEBHOOK_TEST_EVENT, body, nextAttemptAt: now, createdAt: now })
    .returning();
  if (!row) throw new Error("test delivery insert returned nothing");
  try {
    await deps.queue.publish(store.topic, { delivery_id: id, attempt: 1 });
  } catch (error) {
    deps.logger.warn("webhook test event not published; the recovery sweep will", { delivery_id: id, error: String(error) });
  }
  return deliveryView<never>(row);
}

/**
 * Re-enables an endpoint the engine deactivated: it receives new events again and its failure count
 * starts over. Deliveries that failed meanwhile stay failed (redeliver them one by one). Enabling an
 * active endpoint changes nothing.
 */
export async function enableWebhook<E extends string>(store: WebhookStore, db: CoreDeps["db"], customerId: string, webhookId: string): Promise<WebhookView<E>> {
  const { endpoints } = store;
  const [row] = await db
    .update(endpoints)
    .set({ active: true, deactivatedAt: null, deactivationReason: null, failureCount: 0 })
    .where(and(eq(endpoints.customerId, customerId), eq(endpoints.id, webhookId), eq(endpoints.active, false)))
    .returning();
  return webhookView<E>(row ?? (await requireEndpoint(store, db, customerId, webhookId)));
}
