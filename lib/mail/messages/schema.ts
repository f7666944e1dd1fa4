import { z } from "@hono/zod-openapi";
import { cursorQuery, limitQuery } from "../../core/pagination";
import { mailModes, messageStatuses, templateKinds } from "../../db/schema";
import { timestamp, uuidExample } from "../fields";

/** A message's state as callers see it: `sending` is internal (the in-flight mark) and shows as `pending`. */
export const PublicMessageStatus = z.enum(messageStatuses).exclude(["sending"]);

const MessageEvent = z
  .object({
    type: z.string().openapi({ description: "`accepted`, `delivered`, `bounced`, `complained`, `opened`, `clicked`, …", example: "delivered" }),
    at: z.string().openapi({ description: "ISO 8601.", example: "2026-03-01T10:00:03.000Z" }),
    details: z.record(z.string(), z.unknown()).openapi({ description: "Event details (no recipient address).", example: {} }),
  })
  .openapi("MessageEvent");

export const Message = z
  .object({
    id: z.uuid().openapi({ description: "The message id.", example: uuidExample }),
    kind: z.enum(templateKinds).openapi({ description: "Kind of mail.", example: "transactional" }),
    mode: z.enum(mailModes).openapi({ description: "Sandbox mails are accepted but not delivered or counted.", example: "live" }),
    status: PublicMessageStatus.openapi({
      description:
        "State; `unknown` when the provider's answer was lost (never re-sent; reconciliation asks Postmark: `accepted` if it has the mail, `failed` once it is shown never to have received it; a provider event also settles it). A transactional mail `failed` that way is still asked about for `SEND_RECONCILE_LIMIT_HOURS` (24 h): should Postmark show it late, it becomes `accepted` with an `accepted` event whose `details.late` is `true`, and usage and billing count it (also beside a copy the customer sent again meanwhile: both count, as Postmark received both).",
      example: "accepted",
    }),
    template_id: z.uuid().openapi({ description: "Template it was sent from.", example: uuidExample }),
    send_job_id: z.uuid().nullable().openapi({ description: "Send job, null for transactional mail.", example: null }),
    subject: z.string().openapi({
      description:
        "Subject as sent for a transactional mail; for a send job's message the job's subject as written, `{{placeholders}}` unfilled, so no recipient's name or address is kept after the job.",
      example: "Your order A-10023",
    }),
    bounce_type: z.string().nullable().openapi({ description: "Provider bounce type, e.g. `HardBounce`.", example: null }),
    error: z
      .string()
      .nullable()
      .openapi({ description: "Why the provider did not accept it; null again when Postmark shows late that it received the mail after all.", example: null }),
    created_at: z.string().openapi({ description: "ISO 8601.", example: "2026-03-01T10:00:00.000Z" }),
    delivered_at: timestamp("ISO 8601 or null."),
    first_opened_at: timestamp("ISO 8601 or null (newsletters only)."),
    first_clicked_at: timestamp("ISO 8601 or null (newsletters only)."),
    bounced_at: timestamp("ISO 8601 or null."),
    complained_at: timestamp("ISO 8601 or null."),
    events: z.array(MessageEvent).openapi({ description: "History, kept 90 days." }),
  })
  .openapi("Message");

/** A message in a search: the `Message` without its history, plus when the provider accepted it. */
export const MessageSummary = Message.omit({ events: true })
  .extend({
    accepted_at: z.string().nullable().openapi({ description: "ISO 8601; when Postmark accepted it, else null.", example: "2026-03-01T10:00:00.412Z" }),
  })
  .openapi("MessageSummary");

const time = (description: string) =>
  z.iso.datetime({ offset: true, error: "Must be an ISO 8601 date-time." }).optional().openapi({ description, example: "2026-03-01T00:00:00Z" });

/** The filters of a message search, the same for a customer's own messages and for an operator's. */
export const MessageSearchQuery = z.object({
  recipient: z.string().min(1).max(320).optional().openapi({
    description:
      "A recipient address (`anna@example.com` or `Anna <anna@example.com>`, any case). Matched through the stored SHA-256 of the normalised address, so it finds messages whose address was deleted when their job ended; nothing partial.",
    example: "anna@example.com",
  }),
  status: PublicMessageStatus.optional().openapi({ description: "Only messages in this state.", example: "bounced" }),
  kind: z.enum(templateKinds).optional().openapi({ description: "Only this kind.", example: "newsletter" }),
  send_job_id: z.uuid().optional().openapi({ description: "Only this send job's messages.", example: "8d7c6b5a-4f3e-4d2c-9b1a-0f9e8d7c6b5a" }),
  template_id: z.uuid().optional().openapi({ description: "Only messages from this template.", example: "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f" }),
  since: time("Created at or after this time (ISO 8601 with offset)."),
  until: time("Created before this time (ISO 8601 with offset)."),
  limit: limitQuery(100, 25),
  ...cursorQuery,
});
