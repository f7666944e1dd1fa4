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
