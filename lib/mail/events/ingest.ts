import { and, eq, sql } from "drizzle-orm";
import type { CoreDeps } from "../../core/context";
import type { Tx } from "../../db/client";
import { mailMessageEvents, mailMessages, mailProviderConfigs, mailSendJobs } from "../../db/schema";
import { applySuppressionChange, type Stream, type SuppressionChange, type SuppressionEntry } from "../suppressions/mirror";
import { countTowardsGuard, guardDelta } from "../send-jobs/guard";
import { enqueueMailEvent, publishDeliveries } from "../webhooks/emit";
import { applyEvent, EVENT_DRIVEN_STATUSES, statusByPrecedence, type MessageState } from "./message-state";
import { isKnownRecordType, ourMessageId, postmarkPayloads, recipientOf, type PostmarkEvent } from "./postmark-payloads";
import { MESSAGE_EVENT, type MessageEventType } from "./types";

export type IngestDeps = Pick<CoreDeps, "db" | "clock" | "queue" | "logger">;

export type IngestResult =
  | { outcome: "stored"; record_type: string; message_id: string | null }
  | { outcome: "duplicate"; record_type: string; message_id: string | null }
  | { outcome: "ignored"; record_type: string | null; reason: string };

/** A payload of a known record type without the fields we need: the receiver answers 400. */
export class PayloadError extends Error {}

/** The message is still marked `sending`: its send outcome is about to be recorded; Postmark retries. */
export class MessageInFlightError extends Error {}

/**
 * Postmark bounce types that are not a failed delivery (Postmark's bounce-type table: "delayed", auto
 * replies, list requests, challenges, tests). They are kept as `bounce_notice` and change no state; every
 * other type (HardBounce, SoftBounce, Blocked, DnsError, …) means the message was not delivered.
 */
const NOT_A_FAILURE = new Set([
  "Transient",
  "AutoResponder",
  "AddressChange",
  "Subscribe",
  "Unsubscribe",
  "ChallengeVerification",
  "OpenRelayTest",
  "VirusNotification",
  "InboundError",
]);

type MessageRow = typeof mailMessages.$inferSelect;
type NewEvent = { type: MessageEventType; at: Date; identity: string; details: Record<string, unknown>; bounceType?: string; bounceFinal?: boolean };

/** Where an event came from: the customer whose webhook URL (and credentials) it arrived on. */
export type EventRoute = { customerId: string };

/** A bounce that ends delivery to the address for good; any other bounce can still be followed by a delivery. */
function isFinalBounce(type: string, inactive: boolean): boolean {
  return type === "HardBounce" || inactive;
}

function ignored(recordType: string | null, reason: string): IngestResult {
  return { outcome: "ignored", record_type: recordType, reason };
}

/** The message event an event contributes to the message's history, if any. */
function messageEventOf(event: PostmarkEvent, message: MessageRow): NewEvent | null {
  switch (event.RecordType) {
    case "Delivery":
      return { type: MESSAGE_EVENT.delivered, at: event.DeliveredAt.date, identity: `delivery:${event.DeliveredAt.raw}`, details: {} };
    case "Bounce": {
      const details = { bounce_type: event.Type, type_code: event.TypeCode ?? null, description: event.Description ?? null };
      if (NOT_A_FAILURE.has(event.Type)) return { type: MESSAGE_EVENT.bounceNotice, at: event.BouncedAt.date, identity: `bounce:${event.ID}`, details };
      const bounceFinal = isFinalBounce(event.Type, event.Inactive);
      return {
        type: MESSAGE_EVENT.bounced,
        at: event.BouncedAt.date,
        identity: `bounce:${event.ID}`,
        details: { ...details, inactive: event.Inactive, final: bounceFinal, source: "bounce" },
        bounceType: event.Type,
        bounceFinal,
      };
    }
    case "SpamComplaint":
      return { type: MESSAGE_EVENT.complained, at: event.BouncedAt.date, identity: `complaint:${event.ID}`, details: { source: "spam_complaint" } };
    case "Open":
      if (message.kind !== "newsletter") return null;
      return {
        type: MESSAGE_EVENT.opened,
        at: event.ReceivedAt.date,
        identity: `open:${event.ReceivedAt.raw}`,
        details: {
          first_open: event.FirstOpen ?? null,
          platform: event.Platform ?? null,
          client: event.Client?.Name ?? null,
          os: event.OS?.Name ?? null,
          read_seconds: event.ReadSeconds ?? null,
        },
      };
    case "Click":
      if (message.kind !== "newsletter") return null;
      return {
        type: MESSAGE_EVENT.clicked,
        at: event.ReceivedAt.date,
        identity: `click:${event.ReceivedAt.raw}:${event.OriginalLink}`,
        details: { url: event.OriginalLink, location: event.ClickLocation ?? null, platform: event.Platform ?? null, client: event.Client?.Name ?? null },
      };
    case "SubscriptionChange": {
      if (!event.SuppressSending) return null;
      const identity = `subscription:${event.ChangedAt.raw}:${event.SuppressionReason ?? "none"}`;
      const at = event.ChangedAt.date;
      if (event.SuppressionReason === "ManualSuppression" && event.Origin === "Recipient") {
        return { type: MESSAGE_EVENT.unsubscribed, at, identity, details: { origin: event.Origin } };
      }
      // Broadcast streams report bounces and complaints only through SubscriptionChange (P5); on
      // transactional streams the Bounce/SpamComplaint record is the event and this is the mirror's part.
      if (message.kind !== "newsletter") return null;
      if (event.SuppressionReason === "HardBounce") {
        return {
          type: MESSAGE_EVENT.bounced,
          at,
          identity,
          details: { bounce_type: "HardBounce", type_code: 1, description: null, inactive: true, final: true, source: "subscription_change" },
          bounceType: "HardBounce",
          bounceFinal: true,
        };
      }
      if (event.SuppressionReason === "SpamComplaint") return { type: MESSAGE_EVENT.complained, at, identity, details: { source: "subscription_change" } };
      return null;
    }
  }
}

/** The mirror change an event asks for, if any (P5: Inactive decides, not a private list of codes; P7). */
function suppressionChangeOf(event: PostmarkEvent): SuppressionChange | null {
  switch (event.RecordType) {
    case "Bounce":
      return event.Inactive ? { active: true, reason: "hard_bounce", at: event.BouncedAt.date } : null;
    case "SpamComplaint":
      return event.Inactive ? { active: true, reason: "spam_complaint", at: event.BouncedAt.date } : null;
    case "SubscriptionChange": {
      const at = event.ChangedAt.date;
      if (!event.SuppressSending) return { active: false, at };
      if (event.SuppressionReason === "HardBounce") return { active: true, reason: "hard_bounce", at };
      if (event.SuppressionReason === "SpamComplaint") return { active: true, reason: "spam_complaint", at };
      // ManualSuppression: by the recipient (the unsubscribe link) or by the customer/an admin in Postmark.
      return { active: true, reason: "unsubscribe", at };
    }
    default:
      return null;
  }
}

/**
 * The key a stored event's `details` carries the provider's stream id under when that stream is not one
 * of the customer's configured streams; the operator's count of "events on unconfigured streams" reads it.
 */
export const UNCONFIGURED_STREAM_KEY = "unconfigured_stream";

/**
 * The mirror an event on an unconfigured stream feeds: its message's kind; without a message, Bounce and
 * SpamComplaint records are transactional (Postmark sends them only from transactional streams, P5) and a
 * SubscriptionChange is the broadcast stream's (where bounces and complaints arrive only that way).
 */
function fallbackStream(event: PostmarkEvent, message: MessageRow | undefined): Stream {
  if (message) return message.kind === "newsletter" ? "newsletter" : "transactional";
  return event.RecordType === "SubscriptionChange" ? "newsletter" : "transactional";
}

function stateOf(row: MessageRow): MessageState {
  return {
    status: row.status,
    deliveredAt: row.deliveredAt,
    bouncedAt: row.bouncedAt,
    bounceType: row.bounceType,
    bounceFinal: row.bounceFinal,
    complainedAt: row.complainedAt,
    firstOpenedAt: row.firstOpenedAt,
    firstClickedAt: row.firstClickedAt,
  };
}

async function streamOf(tx: Tx, customerId: string, providerStream: string): Promise<Stream | null> {
  const [config] = await tx
    .select({ transactional: mailProviderConfigs.transactionalStream, broadcast: mailProviderConfigs.broadcastStream })
    .from(mailProviderConfigs)
    .where(eq(mailProviderConfigs.customerId, customerId));
  if (config?.broadcast === providerStream) return "newsletter";
  if (config?.transactional === providerStream) return "transactional";
  return null;
}

/**
 * Stores the message event and moves the message's state. Returns whether the event was new. A message
 * in `unknown` learns here that Postmark accepted it: it gets `accepted_at` (its send time, so usage
 * counts it in the right month), the provider id and an `accepted` event.
 */
async function recordMessageEvent(
  tx: Tx,
  now: Date,
  message: MessageRow,
  event: NewEvent,
  providerMessageId: string | null,
  deliveries: string[],
): Promise<boolean> {
  const [inserted] = await tx
    .insert(mailMessageEvents)
    .values({ messageId: message.id, customerId: message.customerId, type: event.type, occurredAt: event.at, identity: event.identity, details: event.details })
    .onConflictDoNothing()
    .returning({ id: mailMessageEvents.id });
  if (!inserted) return false;

  const merged = applyEvent(stateOf(message), { type: event.type, at: event.at, bounceType: event.bounceType, bounceFinal: event.bounceFinal });
  const corrected = message.status === "unknown";
  if (corrected) {
    await tx
      .insert(mailMessageEvents)
      .values({
        messageId: message.id,
        customerId: message.customerId,
        type: "accepted",
        occurredAt: message.createdAt,
        identity: "send:accepted",
        details: { corrected_from: "unknown" },
      })
      .onConflictDoNothing();
    // The job counts it as accepted from now on: nothing of it is in doubt any more.
    if (message.sendJobId) {
      await tx
        .update(mailSendJobs)
        .set({ unknown: sql`${mailSendJobs.unknown} - 1`, accepted: sql`${mailSendJobs.accepted} + 1` })
        .where(eq(mailSendJobs.id, message.sendJobId));
    }
  }
  await tx
    .update(mailMessages)
    .set({
      status: statusByPrecedence(merged),
      deliveredAt: merged.deliveredAt,
      bouncedAt: merged.bouncedAt,
      bounceType: merged.bounceType,
      bounceFinal: merged.bounceFinal,
      complainedAt: merged.complainedAt,
      firstOpenedAt: merged.firstOpenedAt,
      firstClickedAt: merged.firstClickedAt,
      ...(corrected && { acceptedAt: message.acceptedAt ?? message.createdAt, providerMessageId: message.providerMessageId ?? providerMessageId, error: null }),
    })
    .where(eq(mailMessages.id, message.id));
  // Newsletters count into their job's reputation sample (../send-jobs/guard.ts); transactional mail never.
  if (message.kind === "newsletter" && message.sendJobId) {
    deliveries.push(...(await countTowardsGuard(tx, now, message.sendJobId, guardDelta(message, merged))));
  }
  return true;
}

type Effects = { result: IngestResult; deliveries: string[] };

async function ingestInTransaction(tx: Tx, now: Date, route: EventRoute, event: PostmarkEvent, logger: IngestDeps["logger"]): Promise<Effects> {
  const recordType = event.RecordType;
  const customerId = route.customerId;
  const messageId = ourMessageId(event.Metadata);
  // The row lock serialises concurrent events of one message, so each merges into the latest state. Our
  // id in Metadata first; else Postmark's MessageID, which we stored when Postmark accepted the message.
  const [message] = messageId
    ? await tx.select().from(mailMessages).where(eq(mailMessages.id, messageId)).for("update")
    : event.MessageID
      ? await tx
          .select()
          .from(mailMessages)
          .where(and(eq(mailMessages.customerId, customerId), eq(mailMessages.providerMessageId, event.MessageID)))
          .for("update")
      : [];
  if (message && message.customerId !== customerId) {
    return { result: ignored(recordType, "The message belongs to another customer than this webhook URL."), deliveries: [] };
  }
  // A stream id the customer has not configured (a stream added at Postmark, a renamed one) still carries
  // the customer's mail: attribution is by our metadata whatever the stream, and the mirror is fed.
  const configured = await streamOf(tx, customerId, event.MessageStream);
  const stream = configured ?? fallbackStream(event, message);
  const unconfigured = configured === null ? event.MessageStream : null;

  const deliveries: string[] = [];
  let stored = false;
  let duplicate = false;
  if (message) {
    if (message.status === "sending") throw new MessageInFlightError(message.id);
    const derived = EVENT_DRIVEN_STATUSES.has(message.status) ? messageEventOf(event, message) : null;
    const messageEvent = derived && unconfigured ? { ...derived, details: { ...derived.details, [UNCONFIGURED_STREAM_KEY]: unconfigured } } : derived;
    if (messageEvent) {
      stored = await recordMessageEvent(tx, now, message, messageEvent, event.MessageID ?? null, deliveries);
      duplicate = !stored;
      if (stored && messageEvent.type === MESSAGE_EVENT.bounced) {
        deliveries.push(
          ...(await enqueueMailEvent(tx, now, customerId, "message.bounced", {
            message_id: message.id,
            send_job_id: message.sendJobId,
            kind: message.kind,
            bounce_type: messageEvent.bounceType ?? "Unknown",
            final: messageEvent.bounceFinal ?? true,
            bounced_at: messageEvent.at.toISOString(),
          })),
        );
      }
    }
  } else if (event.RecordType === "Delivery" || event.RecordType === "Open" || event.RecordType === "Click") {
    // Without a message these say nothing; suppression changes and inactive bounces still feed the mirror.
    return { result: ignored(recordType, messageId || event.MessageID ? "Unknown message." : "No message id in Metadata and no MessageID."), deliveries: [] };
  }

  // A repeated webhook changes nothing, not even the mirror: it could re-apply a suppression lifted since.
  const change = duplicate ? null : suppressionChangeOf(event);
  let entry: SuppressionEntry | null = null;
  if (change) {
    entry = await applySuppressionChange(tx, customerId, stream, recipientOf(event), change, now);
    if (entry) deliveries.push(...(await enqueueMailEvent(tx, now, customerId, "suppression.changed", entry)));
  }

  if (unconfigured) {
    logger.warn("postmark event on a stream not configured for the customer; stored", {
      customer_id: customerId,
      message_stream: unconfigured,
      record_type: recordType,
      message_id: message?.id ?? null,
      mirror_changed: entry !== null,
    });
  }
  const attributed = message?.id ?? null;
  if (duplicate) return { result: { outcome: "duplicate", record_type: recordType, message_id: attributed }, deliveries };
  if (stored || entry) return { result: { outcome: "stored", record_type: recordType, message_id: attributed }, deliveries };
  return {
    result: ignored(
      recordType,
      change ? "The suppression feed already had this state, or the change is older than the one mirrored." : "Nothing to record for this message.",
    ),
    deliveries,
  };
}

/**
 * Ingests one Postmark webhook body that arrived on a customer's URL: validates it, attributes it to that
 * customer's message (our message id in `Metadata`, else Postmark's `MessageID`), and in one transaction stores the message event, moves the message's state,
 * updates the suppression mirror and writes the outgoing webhook deliveries it causes. Unknown record
 * types and unknown messages are acknowledged and ignored; events on a stream the customer has not
 * configured are handled like the others (stored against their message, the mirror fed), marked and logged.
 */
export async function ingestPostmarkEvent(deps: IngestDeps, route: EventRoute, body: unknown): Promise<IngestResult> {
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw new PayloadError("The body must be a JSON object.");
  const recordType = (body as { RecordType?: unknown }).RecordType;
  if (!isKnownRecordType(recordType)) return ignored(typeof recordType === "string" ? recordType : null, "Unknown record type.");
  const parsed = postmarkPayloads[recordType].safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new PayloadError(`Invalid ${recordType} payload: ${issue ? `${issue.path.join(".") || "body"}: ${issue.message}` : "unreadable"}.`);
  }
  const now = deps.clock.now();
  const effects = await deps.db.transaction((tx) => ingestInTransaction(tx, now, route, parsed.data, deps.logger));
  await publishDeliveries(deps, effects.deliveries);
  return effects.result;
}
