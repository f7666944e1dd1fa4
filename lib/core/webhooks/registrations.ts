import { and, asc, count, eq } from "drizzle-orm";
import type { z } from "@hono/zod-openapi";
import type { CoreDeps } from "../context";
import { ConflictError, NotFoundError, ValidationError } from "../errors";
import { assertOutboundUrl, OutboundError } from "../outbound/safe-fetch";
import { generateWebhookSecret } from "../webhook-signature";
import type { WebhookStore } from "./engine";
import type { webhookEndpointFields } from "./schema";

/** Endpoints per account: enough for staging + production receivers, small enough to list without paging. */
export const MAX_WEBHOOKS_PER_CUSTOMER = 10;

/** An endpoint as the services answer it (`webhookEndpointFields`), its events narrowed to the service's names. */
export type WebhookView<E extends string> = Omit<z.infer<typeof webhookEndpointFields>, "events"> & { events: E[] };

/** What a registration takes: the endpoint's URL and events (each service's `CreateWebhook` validates them). */
export type WebhookInput<E extends string> = Pick<WebhookView<E>, "url" | "events">;

type Row = WebhookStore["endpoints"]["$inferSelect"];

export function webhookView<E extends string>(row: Row): WebhookView<E> {
  return {
    id: row.id,
    url: row.url,
    // The column holds only names the service's schema accepted.
    events: row.events as E[],
    status: row.active ? "active" : "inactive",
    active: row.active,
    deactivated_at: row.deactivatedAt?.toISOString() ?? null,
    deactivation_reason: row.deactivationReason,
    last_delivery_at: row.lastDeliveryAt?.toISOString() ?? null,
    failure_count: row.failureCount,
    created_at: row.createdAt.toISOString(),
  };
}

/**
 * Registers an endpoint and returns its signing secret, which is sealed at rest and never shown again.
 * The URL gets every check that needs no DNS now (https, no credentials, no private IP literal or
 * `localhost`); resolution is checked again on every delivery, because DNS answers change.
 */
export async function createWebhook<E extends string>(
  store: WebhookStore,
  deps: Pick<CoreDeps, "db" | "clock" | "secrets" | "config">,
  customerId: string,
  input: WebhookInput<E>,
): Promise<WebhookView<E> & { secret: string }> {
  const { endpoints } = store;
  try {
    assertOutboundUrl(input.url, { allowLoopbackForTests: deps.config.ALLOW_LOOPBACK_OUTBOUND });
  } catch (error) {
    if (error instanceof OutboundError) throw new ValidationError("The webhook URL cannot be used.", [{ path: "url", message: error.message }]);
    throw error;
  }
  const [existing] = await deps.db.select({ n: count() }).from(endpoints).where(eq(endpoints.customerId, customerId));
  if ((existing?.n ?? 0) >= MAX_WEBHOOKS_PER_CUSTOMER) {
    throw new ConflictError(`An account can register at most ${MAX_WEBHOOKS_PER_CUSTOMER} webhook endpoints; delete one first.`, {
      reason: "webhook_limit_reached",
    });
  }
  const secret = generateWebhookSecret();
  const [row] = await deps.db
    .insert(endpoints)
    .values({ customerId, url: input.url, events: [...new Set(input.events)], secretSealed: deps.secrets.seal(secret), createdAt: deps.clock.now() })
    .returning();
  if (!row) throw new Error("webhook insert returned nothing");
  return { ...webhookView<E>(row), secret };
}

export async function listWebhooks<E extends string>(store: WebhookStore, db: CoreDeps["db"], customerId: string): Promise<WebhookView<E>[]> {
  const { endpoints } = store;
  const rows = await db.select().from(endpoints).where(eq(endpoints.customerId, customerId)).orderBy(asc(endpoints.createdAt), asc(endpoints.id));
  return rows.map((row) => webhookView<E>(row));
}

/** Deleting an endpoint also drops its pending deliveries (cascade): nothing more is sent to it. */
export async function deleteWebhook(store: WebhookStore, db: CoreDeps["db"], customerId: string, id: string): Promise<void> {
  const { endpoints } = store;
  const deleted = await db
    .delete(endpoints)
    .where(and(eq(endpoints.customerId, customerId), eq(endpoints.id, id)))
    .returning({ id: endpoints.id });
  if (deleted.length === 0) throw new NotFoundError("Webhook");
}
