import { and, asc, count, eq } from "drizzle-orm";
import type { CoreDeps } from "../../core/context";
import { ConflictError, NotFoundError, ValidationError } from "../../core/errors";
import { assertOutboundUrl, OutboundError } from "../../core/outbound/safe-fetch";
import { generateWebhookSecret } from "../../core/webhook-signature";
import { mailWebhooks, type MailWebhookEvent } from "../../db/schema";

/** Endpoints per account: enough for staging + production receivers, small enough to list without paging. */
export const MAX_WEBHOOKS_PER_CUSTOMER = 10;

export type WebhookInput = { url: string; events: MailWebhookEvent[] };

export type WebhookView = {
  id: string;
  url: string;
  events: MailWebhookEvent[];
  active: boolean;
  deactivated_at: string | null;
  deactivation_reason: string | null;
  created_at: string;
};

type Row = typeof mailWebhooks.$inferSelect;

function view(row: Row): WebhookView {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    active: row.active,
    deactivated_at: row.deactivatedAt?.toISOString() ?? null,
    deactivation_reason: row.deactivationReason,
    created_at: row.createdAt.toISOString(),
  };
}

/**
 * Registers an endpoint and returns its signing secret, which is sealed at rest and never shown again.
 * The URL gets every check that needs no DNS now (https, no credentials, no private IP literal or
 * `localhost`); resolution is checked again on every delivery, because DNS answers change.
 */
export async function createWebhook(deps: Pick<CoreDeps, "db" | "clock" | "secrets" | "config">, customerId: string, input: WebhookInput): Promise<WebhookView & { secret: string }> {
  try {
    assertOutboundUrl(input.url, { allowLoopbackForTests: deps.config.ALLOW_LOOPBACK_OUTBOUND });
  } catch (error) {
    if (error instanceof OutboundError) throw new ValidationError("The webhook URL cannot be used.", [{ path: "url", message: error.message }]);
    throw error;
  }
  const [existing] = await deps.db.select({ n: count() }).from(mailWebhooks).where(eq(mailWebhooks.customerId, customerId));
  if ((existing?.n ?? 0) >= MAX_WEBHOOKS_PER_CUSTOMER) {
    throw new ConflictError(`An account can register at most ${MAX_WEBHOOKS_PER_CUSTOMER} webhook endpoints; delete one first.`, { reason: "webhook_limit_reached" });
  }
  const secret = generateWebhookSecret();
  const [row] = await deps.db
    .insert(mailWebhooks)
    .values({ customerId, url: input.url, events: [...new Set(input.events)], secretSealed: deps.secrets.seal(secret), createdAt: deps.clock.now() })
    .returning();
  if (!row) throw new Error("webhook insert returned nothing");
  return { ...view(row), secret };
}

export async function listWebhooks(db: CoreDeps["db"], customerId: string): Promise<WebhookView[]> {
  const rows = await db.select().from(mailWebhooks).where(eq(mailWebhooks.customerId, customerId)).orderBy(asc(mailWebhooks.createdAt), asc(mailWebhooks.id));
  return rows.map(view);
}

/** Deleting an endpoint also drops its pending deliveries (cascade): nothing more is sent to it. */
export async function deleteWebhook(db: CoreDeps["db"], customerId: string, id: string): Promise<void> {
  const deleted = await db
    .delete(mailWebhooks)
    .where(and(eq(mailWebhooks.customerId, customerId), eq(mailWebhooks.id, id)))
    .returning({ id: mailWebhooks.id });
  if (deleted.length === 0) throw new NotFoundError("Webhook");
}
