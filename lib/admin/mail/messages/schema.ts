import { z } from "@hono/zod-openapi";
import { cursorQuery, limitQuery } from "../../../core/pagination";
import { templateKinds } from "../../../db/schema";
import { Message, PublicMessageStatus } from "../../../mail/messages/schema";
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

const time = (description: string) =>
  z.iso.datetime({ offset: true, error: "Must be an ISO 8601 date-time." }).optional().openapi({ description, example: "2026-03-01T00:00:00Z" });

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

export const MessageParams = CustomerIdParam.extend({
  messageId: z.uuid().openapi({ param: { name: "messageId", in: "path" }, description: "Message id.", example: "7b1c9a4e-2f0d-4e8b-9c3a-5d6e7f8a9b0c" }),
});
