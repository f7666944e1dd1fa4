import { z } from "zod";
import { parseAddressList, parseSenderAddress } from "./addresses";
import { POSTMARK_ERRORS, invalidAddress, invalidField } from "./errors";
import type { Metadata, PostmarkError } from "./postmark-shapes";

/** Postmark's link tracking settings (`TrackLinks` of a message). */
export const TrackLinks = z.enum(["None", "HtmlAndText", "HtmlOnly", "TextOnly"]);

/** Postmark's default transactional stream, used when a message names none. */
const DEFAULT_STREAM_ID = "outbound";
const MAX_RECIPIENTS = 50;

const optionalText = z.string().nullish();

/**
 * The fields of Postmark's `POST /email` body that the simulator reads; others (Attachments, TrackLinks…)
 * are accepted and ignored. Postmark SDKs send null for unset fields, hence `nullish`.
 */
const OutboundMessage = z.object({
  From: optionalText,
  To: optionalText,
  Cc: optionalText,
  Bcc: optionalText,
  Subject: optionalText,
  HtmlBody: optionalText,
  TextBody: optionalText,
  Tag: optionalText,
  ReplyTo: optionalText,
  MessageStream: optionalText,
  Metadata: z.record(z.string(), z.unknown()).nullish(),
  Headers: z.array(z.object({ Name: z.string(), Value: z.string() })).nullish(),
  TrackOpens: z.boolean().nullish(),
  TrackLinks: TrackLinks.nullish(),
});

export type ValidatedMessage = {
  from: string;
  to: string;
  cc: string;
  bcc: string;
  recipients: string[];
  subject: string;
  htmlBody: string | null;
  textBody: string | null;
  tag: string;
  streamId: string;
  metadata: Metadata;
  /** Postmark's `X-PM-Bounce-Type` test header, honoured for the bounce-testing domain. */
  bounceTypeHeader: string | undefined;
  /** The custom `Headers` as sent (the simulator records what each message carried; see `deliveredHeaders`). */
  headers: { Name: string; Value: string }[];
  trackOpens: boolean;
  trackLinks: "None" | "HtmlAndText" | "HtmlOnly" | "TextOnly";
};

/**
 * Checks one message the way Postmark's `300 Invalid email request` does: sender, recipients, body. State
 * checks (stream, suppressions) happen where the server is known.
 */
export function validateOutbound(input: unknown): ValidatedMessage | PostmarkError {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return POSTMARK_ERRORS.incompatibleJson;
  const parsed = OutboundMessage.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return invalidField(issue.path.map(String).join("."), issue.code === "invalid_type" ? `of type ${issue.expected}` : "valid");
  }
  const message = parsed.data;

  const from = message.From?.trim() ?? "";
  if (from === "") return POSTMARK_ERRORS.missingFrom;
  if (!parseSenderAddress(from)) return invalidAddress("From", from);

  const recipients: string[] = [];
  for (const [field, value] of [
    ["To", message.To],
    ["Cc", message.Cc],
    ["Bcc", message.Bcc],
  ] as const) {
    if (!value) continue;
    const addresses = parseAddressList(value);
    if (!addresses) return invalidAddress(field, value);
    recipients.push(...addresses);
  }
  if (recipients.length === 0) return POSTMARK_ERRORS.zeroRecipients;
  if (recipients.length > MAX_RECIPIENTS) return POSTMARK_ERRORS.tooManyRecipients;

  if (!message.HtmlBody && !message.TextBody) return POSTMARK_ERRORS.missingBody;

  return {
    from,
    to: message.To ?? "",
    cc: message.Cc ?? "",
    bcc: message.Bcc ?? "",
    recipients,
    subject: message.Subject ?? "",
    htmlBody: message.HtmlBody || null,
    textBody: message.TextBody || null,
    tag: message.Tag ?? "",
    streamId: message.MessageStream || DEFAULT_STREAM_ID,
    metadata: message.Metadata ?? {},
    bounceTypeHeader: message.Headers?.find((header) => header.Name.toLowerCase() === "x-pm-bounce-type")?.Value,
    headers: message.Headers ?? [],
    trackOpens: message.TrackOpens ?? false,
    trackLinks: message.TrackLinks ?? "None",
  };
}

export function isPostmarkError(value: ValidatedMessage | PostmarkError): value is PostmarkError {
  return "ErrorCode" in value;
}
