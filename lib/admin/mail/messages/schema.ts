import { z } from "@hono/zod-openapi";
import { Message } from "../../../mail";
import { CustomerIdParam } from "../../customers/schema";

export const tags = ["Mail activity"];

const providerFields = {
  accepted_at: z.string().nullable().openapi({ description: "ISO 8601; when Postmark accepted it, else null.", example: "2026-03-01T10:00:00.412Z" }),
  provider_message_id: z.string().nullable().openapi({
    description: "Postmark's `MessageID` (search Postmark's activity with it); null until accepted.",
    example: "883953f4-6105-42a2-a16a-77a8eac79483",
  }),
};

/** A message in the operator's search: the customer's `Message` without its history, plus the provider's id. */
export const MailMessageSummary = Message.omit({ events: true }).extend(providerFields).openapi("MailMessageSummary");

const TimelineEntry = z
  .object({
    type: z
      .string()
      .openapi({ description: "`created` and `accepted` (ours), then the provider's events: `delivered`, `bounced`, `opened`, …", example: "delivered" }),
    at: z.string().openapi({ description: "ISO 8601.", example: "2026-03-01T10:00:03.000Z" }),
    details: z.record(z.string(), z.unknown()).openapi({ description: "Event details (no recipient address).", example: {} }),
  })
  .openapi("MailMessageTimelineEntry");

export const MailMessageDetail = Message.extend({
  ...providerFields,
  provider_attempts: z.number().int().openapi({ description: "How often a send job handed it to Postmark (at most 2; 0 for transactional mail).", example: 1 }),
  timeline: z.array(TimelineEntry).openapi({ description: "Oldest first: our steps, then the provider's events of the last 90 days." }),
}).openapi("MailMessageDetail");

export const MessageParams = CustomerIdParam.extend({
  messageId: z.uuid().openapi({ param: { name: "messageId", in: "path" }, description: "Message id.", example: "7b1c9a4e-2f0d-4e8b-9c3a-5d6e7f8a9b0c" }),
});

export const MailMessageContent = z
  .object({
    message_id: z.uuid().openapi({ description: "The message.", example: "7b1c9a4e-2f0d-4e8b-9c3a-5d6e7f8a9b0c" }),
    source: z.enum(["as_sent", "template_placeholders", "expired", "not_sent"]).openapi({
      description:
        "`as_sent`: transactional mail, the HTML (and text) body as sent to Postmark (kept 45 days, the recipient's address replaced). `template_placeholders`: a newsletter, whose recipients' values are not kept: the job's template with the job's parameters and each recipient value shown as its `{{placeholder}}`. `expired`: older than the 45 days. `not_sent`: nothing went to Postmark (invalid or suppressed address, a job never started) or it was sent before contents were kept.",
      example: "as_sent",
    }),
    note: z.string().openapi({ description: "What the content is, in a sentence for the reader.", example: "The HTML body as it was sent to Postmark, …" }),
    subject: z.string().openapi({ description: "The subject as sent (for newsletters: with the recipient's placeholders).", example: "Your order 1042" }),
    html: z.string().nullable().openapi({
      description: "The HTML body; null when none is kept. Show it in a sandboxed frame without scripts: it is the customer's content.",
      example: "<!doctype html><html>…</html>",
    }),
    text: z.string().nullable().openapi({
      description: "The text part (see `text_source`); null with `html`.",
      example: "Thank you for your order …",
    }),
    text_source: z.enum(["as_sent", "derived_from_html"]).nullable().openapi({
      description:
        "`as_sent`: the text part sent to Postmark beside the HTML (`TextBody`, transactional mail), the recipient's address replaced likewise. `derived_from_html`: no text part was sent (newsletters, and transactional mail sent before text parts were), so `text` is what a plain-text mail client shows of the HTML. Null with `text`.",
      example: "as_sent",
    }),
    template: z
      .object({
        id: z.uuid().openapi({ description: "The template.", example: "0190f3e4-5b2a-7c3d-8e4f-5a6b7c8d9e0f" }),
        name: z.string().nullable().openapi({ description: "Its name now; null if it was deleted for good.", example: "Order confirmation" }),
        version_sent: z.number().int().nullable().openapi({ description: "The version sent; null when not recorded (older mail).", example: 3 }),
        version_now: z.number().int().nullable().openapi({ description: "Its version now.", example: 4 }),
      })
      .openapi({ description: "The template the message was sent from." }),
    send_job: z
      .object({
        id: z.uuid().openapi({ description: "The send job.", example: "0190f3e4-5b2a-7c3d-8e4f-5a6b7c8d9e0f" }),
        name: z.string().openapi({ description: "Its name.", example: "Spring sale · 2026-03-01" }),
      })
      .nullable()
      .openapi({ description: "The newsletter's send job; null for transactional mail." }),
    kept_until: z.string().nullable().openapi({ description: "ISO 8601; when the kept content is deleted, else null.", example: "2026-04-15T10:00:00.000Z" }),
  })
  .openapi("MailMessageContent");
