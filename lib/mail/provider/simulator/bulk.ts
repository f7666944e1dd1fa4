import { z } from "zod";
import { invalidField, POSTMARK_ERRORS } from "./errors";
import { compileMustachio, MustachioParseError, type CompiledMustachio } from "./mustachio";
import type { PostmarkError } from "./postmark-shapes";
import { TrackLinks } from "./outbound";

/**
 * Postmark's Bulk API request (`POST /email/bulk`, postmark.js 5.1 `BulkEmailRequest`/`BulkEmailMessage`):
 * the content once, then one entry per recipient with its own `TemplateModel` and `Metadata`. The
 * simulator compiles each message with Mustachio (HtmlBody escaped, Subject and TextBody raw, as Postmark's
 * templates do) and hands it to the same path as `/email`: validation, suppressions, events, webhooks.
 */
const optionalText = z.string().nullish();
const Header = z.object({ Name: z.string(), Value: z.string() });
const BulkMessage = z.object({
  To: z.string(),
  Cc: optionalText,
  Bcc: optionalText,
  TemplateModel: z.record(z.string(), z.unknown()).nullish(),
  Metadata: z.record(z.string(), z.unknown()).nullish(),
  Headers: z.array(Header).nullish(),
});
const BulkRequest = z.object({
  From: optionalText,
  Messages: z.array(BulkMessage).min(1),
  ReplyTo: optionalText,
  Subject: optionalText,
  HtmlBody: optionalText,
  TextBody: optionalText,
  TemplateId: z.number().nullish(),
  TemplateAlias: optionalText,
  Tag: optionalText,
  Metadata: z.record(z.string(), z.unknown()).nullish(),
  MessageStream: optionalText,
  TrackOpens: z.boolean().nullish(),
  TrackLinks: TrackLinks.nullish(),
  Headers: z.array(Header).nullish(),
});

type BulkStatus = "Accepted" | "Processing" | "Completed" | "Failed";
export type BulkSendingResponse = { Id: string; Status: BulkStatus; SubmittedAt: string };
export type BulkStatusResponse = BulkSendingResponse & { TotalMessages: number; PercentageCompleted: number; Subject: string };

/** One compiled message per recipient, in the `/email` body shape the simulator's send path validates. */
export type BulkPlan = { subject: string; messages: Record<string, unknown>[] };

function compile(template: string | null | undefined, field: string, htmlEncoded: boolean): CompiledMustachio | PostmarkError | null {
  if (!template) return null;
  try {
    return compileMustachio(template, { escape: htmlEncoded });
  } catch (error) {
    if (error instanceof MustachioParseError) return invalidField(field, `a valid template (${error.message})`);
    throw error;
  }
}

const isError = (value: unknown): value is PostmarkError => typeof value === "object" && value !== null && "ErrorCode" in value;

/** Validates the request and renders every message; a bad request fails as a whole (HTTP 422), as Postmark's does. */
export function planBulk(input: unknown): BulkPlan | PostmarkError {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return POSTMARK_ERRORS.incompatibleJson;
  const parsed = BulkRequest.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return invalidField(issue.path.map(String).join("."), issue.code === "invalid_type" ? `of type ${issue.expected}` : "valid");
  }
  const request = parsed.data;
  // Stored templates on the Bulk API are not simulated: our service sends its content inline.
  if (request.TemplateId != null || request.TemplateAlias) return invalidField("TemplateId", "absent (the simulator renders inline content only)");
  const subject = compile(request.Subject, "Subject", false);
  const html = compile(request.HtmlBody, "HtmlBody", true);
  const text = compile(request.TextBody, "TextBody", false);
  for (const compiled of [subject, html, text]) if (isError(compiled)) return compiled;
  const render = (compiled: CompiledMustachio | PostmarkError | null, model: unknown) => (compiled === null || isError(compiled) ? null : compiled(model));
  const messages: Record<string, unknown>[] = [];
  for (const message of request.Messages) {
    const model = message.TemplateModel ?? {};
    try {
      messages.push({
        From: request.From,
        To: message.To,
        Cc: message.Cc,
        Bcc: message.Bcc,
        Subject: render(subject, model),
        HtmlBody: render(html, model),
        TextBody: render(text, model),
        Tag: request.Tag,
        ReplyTo: request.ReplyTo,
        MessageStream: request.MessageStream,
        Metadata: { ...request.Metadata, ...message.Metadata },
        Headers: [...(request.Headers ?? []), ...(message.Headers ?? [])],
        TrackOpens: request.TrackOpens,
        TrackLinks: request.TrackLinks,
      });
    } catch (error) {
      if (error instanceof MustachioParseError) return invalidField("TemplateModel", `usable by the template (${error.message})`);
      throw error;
    }
  }
  return { subject: request.Subject ?? "", messages };
}
