import { z } from "zod";

/**
 * What Postmark POSTs to our receiver, one event per request (PROVIDER-FACTS P3), field names and casing
 * exactly as Postmark sends them. Only the fields we use are required; everything else passes through.
 * Nullable where Postmark sends null (P7: MessageID, SuppressionReason and Tag on reactivations); Metadata
 * may be missing, `{}`, or hold non-string values (P8).
 */

/**
 * ISO 8601 as Postmark writes it (P9): 0–7 fraction digits and `Z` or `±hh:mm`. Parsed by hand because
 * `Date.parse` is only specified for exactly three fraction digits. A time without an offset is UTC.
 */
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?(Z|[+-]\d{2}:?\d{2})?$/i;

function parsePostmarkTimestamp(value: string): Date | null {
  const match = TIMESTAMP.exec(value.trim());
  if (!match) return null;
  const [, year, month, day, hour, minute, second, fraction = "", offset = "Z"] = match;
  const ms = Number(fraction.padEnd(3, "0").slice(0, 3));
  const utc = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second), ms);
  let offsetMinutes = 0;
  if (offset.toUpperCase() !== "Z") {
    const digits = offset.replace(":", "");
    const sign = digits.startsWith("-") ? -1 : 1;
    offsetMinutes = sign * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5)));
  }
  const date = new Date(utc - offsetMinutes * 60_000);
  // Rejects calendar overflow such as 2026-02-30, which Date.UTC would silently roll over.
  const local = new Date(utc);
  if (
    local.getUTCMonth() !== Number(month) - 1 ||
    local.getUTCDate() !== Number(day) ||
    local.getUTCHours() !== Number(hour) ||
    Number(minute) > 59 ||
    Number(second) > 59
  )
    return null;
  return date;
}

const Timestamp = z.string().transform((value, ctx) => {
  const date = parsePostmarkTimestamp(value);
  if (!date) {
    ctx.addIssue({ code: "custom", message: "Not an ISO 8601 timestamp." });
    return z.NEVER;
  }
  return { raw: value, date };
});

const Metadata = z.record(z.string(), z.unknown()).nullish();
const Stream = z.string().min(1);

const DeliveryPayload = z.object({
  RecordType: z.literal("Delivery"),
  MessageID: z.string().nullish(),
  MessageStream: Stream,
  Recipient: z.string(),
  DeliveredAt: Timestamp,
  Metadata,
});

/** Bounce and SpamComplaint share one shape (P4); the recipient is in `Email`. */
const bounceShape = {
  ID: z.union([z.number(), z.string()]),
  Type: z.string(),
  TypeCode: z.number().nullish(),
  Description: z.string().nullish(),
  MessageID: z.string().nullish(),
  MessageStream: Stream,
  Email: z.string(),
  BouncedAt: Timestamp,
  Inactive: z.boolean(),
  CanActivate: z.boolean().nullish(),
  Metadata,
};
const BouncePayload = z.object({ RecordType: z.literal("Bounce"), ...bounceShape });
const SpamComplaintPayload = z.object({ RecordType: z.literal("SpamComplaint"), ...bounceShape });

const engagementShape = {
  MessageID: z.string().nullish(),
  MessageStream: Stream,
  Recipient: z.string(),
  ReceivedAt: Timestamp,
  Platform: z.string().nullish(),
  Client: z.object({ Name: z.string().nullish() }).nullish(),
  OS: z.object({ Name: z.string().nullish() }).nullish(),
  Metadata,
};
const OpenPayload = z.object({
  RecordType: z.literal("Open"),
  ...engagementShape,
  FirstOpen: z.boolean().nullish(),
  ReadSeconds: z.number().nullish(),
});
const ClickPayload = z.object({
  RecordType: z.literal("Click"),
  ...engagementShape,
  OriginalLink: z.string(),
  ClickLocation: z.string().nullish(),
});

const SubscriptionChangePayload = z.object({
  RecordType: z.literal("SubscriptionChange"),
  MessageID: z.string().nullish(),
  MessageStream: Stream,
  Recipient: z.string(),
  ChangedAt: Timestamp,
  Origin: z.string().nullish(),
  SuppressSending: z.boolean(),
  SuppressionReason: z.string().nullish(),
  Metadata,
});

export const postmarkPayloads = {
  Delivery: DeliveryPayload,
  Bounce: BouncePayload,
  SpamComplaint: SpamComplaintPayload,
  Open: OpenPayload,
  Click: ClickPayload,
  SubscriptionChange: SubscriptionChangePayload,
} as const;

export type PostmarkRecordType = keyof typeof postmarkPayloads;
export type PostmarkEvent = z.infer<(typeof postmarkPayloads)[PostmarkRecordType]>;

export function isKnownRecordType(value: unknown): value is PostmarkRecordType {
  return typeof value === "string" && Object.hasOwn(postmarkPayloads, value);
}

/** Our message id from `Metadata.message_id`, when it is there and shaped like a UUID. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const METADATA_MESSAGE_ID_KEY = "message_id";

export function ourMessageId(metadata: Record<string, unknown> | null | undefined): string | null {
  const value = metadata?.[METADATA_MESSAGE_ID_KEY];
  return typeof value === "string" && UUID.test(value) ? value.toLowerCase() : null;
}

export function recipientOf(event: PostmarkEvent): string {
  return "Email" in event ? event.Email : event.Recipient;
}
