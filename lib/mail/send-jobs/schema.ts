import { z } from "@hono/zod-openapi";
import { bulkRequestStatuses, mailModes, sendJobPauseReasons, sendJobStatuses } from "../../db/schema";
import { cursorQuery, limitQuery } from "../../core/pagination";
import { PublicMessageStatus } from "../messages/schema";
import { idPathParam } from "../../core/openapi";
import { count, timestamp } from "../fields";

export const MAX_RECIPIENTS_PER_CALL = 5000;

const jobExample = "0190f3e4-5b2a-7c3d-8e4f-5a6b7c8d9e0f";
const messageExample = "0190f3e4-6c1d-7aa0-9b2c-3d4e5f6a7b8c";
const templateExample = "7b1c9a4e-2f0d-4e8b-9c3a-5d6e7f8a9b0c";

export const SendJobIdParam = idPathParam("Send job id (UUID).", jobExample);

const SendJobFrom = z
  .object({
    email: z.string().min(3).max(254).openapi({
      description:
        "Sender address. Only the part before `@` may differ from the account's sender: the domain must be one of the account's verified domains (or the whole address a verified sender).",
      example: "spring@news.example.com",
    }),
    name: z.string().max(200).optional().openapi({ description: "Display name; default the default sender's name.", example: "Example Shop" }),
  })
  .openapi("SendJobFrom");

export const CreateSendJob = z
  .object({
    name: z.string().trim().min(1).max(200).optional().openapi({
      description:
        "A name for the job, shown in lists and to the service's operators. Default: the template's name and the UTC date of creation (`Spring sale · 2026-03-01`).",
      example: "Spring sale, loyal customers",
    }),
    template_id: z.uuid().openapi({ description: "An active newsletter template of this account.", example: templateExample }),
    params: z
      .record(z.string(), z.string())
      .optional()
      .openapi({
        description:
          "Values for the template's known parameters (contract entries and the placeholders its content and subject leave open). Recipient `data` wins over them.",
        example: { campaign: "Spring" },
      }),
    from: SendJobFrom.optional().openapi({ description: "Sender exception; default the template's sender, else the account's newsletter sender." }),
    reply_to: z
      .string()
      .max(254)
      .nullable()
      .optional()
      .openapi({ description: "Reply-To address; empty or null = replies go to the sender.", example: "service@example.com" }),
    scheduled_at: z
      .union([z.iso.datetime({ offset: true }), z.literal("")])
      .nullable()
      .optional()
      .openapi({ description: "When to send (ISO 8601 with offset). Empty, null or a past time: at once when started.", example: "2026-04-01T08:00:00Z" }),
  })
  .openapi("CreateSendJob");

export const RecipientCounters = z
  .object({
    total: count("Recipients of the job (duplicates collapsed).", 1200),
    accepted: count("Accepted by the provider (later delivered, bounced or complained included).", 1180),
    suppressed: count("Suppressed on the newsletter stream (mirror or provider): not sent.", 12),
    invalid: count("Unparsable addresses or refused by the provider as invalid: not sent.", 3),
    failed: count("Refused by the provider for another reason, or not sent because the job was cancelled (`error: cancelled`) or failed.", 0),
    unknown: count("The provider's answer was lost; never sent again, corrected by a later provider event.", 0),
    pending: count("Not sent yet (including a batch in flight).", 5),
    sent_twice: count(
      "Of `accepted`: recipients Postmark received twice. A batch in doubt was decided never received and sent again, and Postmark's search later showed the first call too; both copies count in usage, as Postmark counts them. Not part of the `total` sum.",
      0,
    ),
  })
  .openapi("SendJobRecipientCounters", {
    description: "`total` = accepted + suppressed + invalid + failed + unknown + pending at every moment; `sent_twice` counts within `accepted`.",
  });

export const SendJob = z
  .object({
    id: z.uuid().openapi({ description: "Send job id.", example: jobExample }),
    name: z.string().openapi({
      description: "The job's name: as given at creation, else the template's name and the UTC date of creation.",
      example: "Spring sale · 2026-03-01",
    }),
    subject: z.string().nullable().openapi({
      description:
        "The subject the job sends: the template's, with `{{placeholders}}` filled per recipient. Null only for jobs created before it was recorded.",
      example: "Spring is here, {{first_name}}",
    }),
    status: z.enum(sendJobStatuses).openapi({
      description:
        "`draft` → `running` (start) or `scheduled` (start with a future `scheduled_at`) → `running` at that time → `completed` when no recipient is pending. `running` → `paused` when sending is blocked, the monthly limit is reached or the provider setup became incomplete (`pause_reason`); start resumes. `running` → `paused` also when the reputation guard trips (`pause_reason` `bounce_rate` / `complaint_rate`); only an operator resumes those. Cancel from draft, scheduled, running or paused → `cancelled`. `running` → `failed` when the template cannot be rendered or the provider refuses the job as a whole (`error`).",
      example: "running",
    }),
    mode: z
      .enum(mailModes)
      .openapi({ description: "Sandbox jobs go through the provider's test path: accepted, never delivered, never counted.", example: "live" }),
    template_id: z.uuid().openapi({ description: "The newsletter template.", example: templateExample }),
    params: z.record(z.string(), z.string()).openapi({ description: "Job parameters (defaults under recipient data).", example: { campaign: "Spring" } }),
    from: z
      .object({
        email: z.string().openapi({ description: "Sender address.", example: "news@example.com" }),
        name: z.string().openapi({ description: "Sender name.", example: "Example Shop" }),
      })
      .openapi({ description: "The sender used." }),
    reply_to: z.string().nullable().openapi({ description: "Reply-To, or null (replies go to the sender).", example: null }),
    scheduled_at: timestamp("When the job is to start (ISO 8601), or null."),
    recipients: RecipientCounters,
    batches: z
      .object({
        size: count(
          "Recipients per provider call, at most (Postmark's limit). A server that is also sending transactional mail at the moment sends its batches in calls of 25, so they never hold a transactional send up; `completed` then counts those.",
          500,
        ),
        completed: count("Provider batches recorded so far.", 3),
        remaining: count("Batches still to send at `size` per call (pending recipients / size, rounded up).", 1),
      })
      .nullable()
      .openapi({ description: "Batch progress; null while the job is a draft." }),
    pause_reason: z.enum(sendJobPauseReasons).nullable().openapi({
      description:
        "Why a `paused` job paused: `sending_blocked`, `monthly_limit` or `provider_not_ready` (start resumes once fixed), or the reputation guard's `bounce_rate` / `complaint_rate`: the job's hard-bounce or spam-complaint rate passed the threshold after the minimum sample (`job.paused` webhook). A job the guard paused is resumed only by an operator of the service; start answers 409 `paused_by_reputation_guard`, cancel works.",
      example: null,
    }),
    error: z.string().nullable().openapi({ description: "Why a `failed` job failed.", example: null }),
    created_at: z.string().openapi({ description: "ISO 8601.", example: "2026-03-01T10:00:00.000Z" }),
    started_at: timestamp("When it started running (ISO 8601), or null.", "2026-03-01T10:05:00.000Z"),
    completed_at: timestamp("When it completed, was cancelled or failed (ISO 8601), or null."),
  })
  .openapi("SendJob");

export const SendJobStats = z
  .object({
    delivered: count("Messages delivered.", 1150),
    bounces: count("Messages that bounced.", 20),
    complaints: count("Messages marked as spam.", 1),
    opens: count("Open events (every open).", 900),
    unique_opens: count("Messages opened at least once.", 610),
    clicks: count("Click events (one per link and recipient, as the provider reports them).", 240),
    unique_clicks: count("Messages with at least one click.", 180),
  })
  .openapi("SendJobStats", {
    description: "Sums over the job's messages, recomputed on every read: opens and clicks that arrive after completion count at once.",
  });

export const TimelineEntry = z
  .object({
    hour: z.string().openapi({ description: "Start of the UTC hour (ISO 8601).", example: "2026-03-01T10:00:00.000Z" }),
    accepted: count("Accepted by the provider in this hour.", 1180),
    delivered: count("Delivered in this hour.", 1100),
    bounces: count("Bounced in this hour.", 18),
    complaints: count("Complaints in this hour.", 0),
    opens: count("Open events in this hour.", 400),
    clicks: count("Click events in this hour.", 90),
  })
  .openapi("SendJobTimelineEntry");

export const BulkRequest = z
  .object({
    id: z
      .string()
      .openapi({ description: "Postmark's Bulk API request id (`GET /email/bulk/{id}` at Postmark).", example: "f1d2c3b4-0000-4000-8000-000000000001" }),
    batch_id: z.string().openapi({ description: "The batch it carried (also in every message's metadata).", example: "b_01J9ZC4Q6M" }),
    status: z.enum(bulkRequestStatuses).openapi({
      description:
        "Postmark's status of the request: as answered when it was sent, then as the send-jobs sweep last read it (`Completed` when every message was processed).",
      example: "Accepted",
    }),
    total_messages: z.number().int().openapi({ description: "Messages in the request.", example: 500 }),
    percentage_completed: z.number().int().openapi({ description: "Postmark's progress of the request when last read, 0–100.", example: 0 }),
    submitted_at: z.iso.datetime().nullable().openapi({ description: "When Postmark took the request.", example: "2026-11-26T09:00:00.000Z" }),
  })
  .openapi("SendJobBulkRequest");

export const SendJobDetail = SendJob.extend({
  bulk_requests: z.array(BulkRequest).openapi({
    description:
      "The Postmark Bulk API requests of the job, oldest first: one per batch when the operator has switched the customer's newsletters to the Bulk API (`bulk_api_enabled` in the mail-provider settings); empty on the batch path. Per-recipient results are in `recipients` and the messages, as on the batch path.",
  }),
  stats: SendJobStats,
  timeline: z.array(TimelineEntry).openapi({ description: "One entry per UTC hour with activity, oldest first; hours without activity are left out." }),
}).openapi("SendJobDetail");

const RecipientInput = z
  .object({
    email: z.string().max(1000).openapi({
      description: "Recipient address (RFC 5322; `Jane <jane@example.com>` keeps the name). Unparsable addresses become `invalid` messages.",
      example: "jane@example.com",
    }),
    data: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({
        description: "Values for `{{placeholders}}` (strings, numbers, booleans; nested objects for dotted names). Win over job `params`; HTML-escaped.",
        example: { first_name: "Jane" },
      }),
  })
  .openapi("SendJobRecipient");

export const AddRecipients = z
  .object({
    recipients: z
      .array(RecipientInput)
      .min(1)
      .max(MAX_RECIPIENTS_PER_CALL)
      .openapi({ description: `1–${MAX_RECIPIENTS_PER_CALL} recipients.` }),
  })
  .openapi("AddSendJobRecipients");

export const RecipientsAdded = z
  .object({
    recipients: z
      .array(
        z.object({
          email: z.string().openapi({ description: "The address as given.", example: "jane@example.com" }),
          message_id: z.uuid().openapi({ description: "The message id for this recipient (the same for a duplicate).", example: messageExample }),
        }),
      )
      .openapi({ description: "One entry per input recipient, in input order." }),
    counts: z
      .object({
        received: count("Recipients in this call.", 5000),
        added: count("New recipients added by this call (invalid ones included).", 4990),
        duplicates: count("Recipients already in the job (from this or an earlier call): nothing added.", 10),
        invalid: count("Added recipients whose address could not be parsed (status `invalid`).", 2),
      })
      .openapi({ description: "This call's counts." }),
    job: RecipientCounters,
  })
  .openapi("SendJobRecipientsAdded");

export const JobMessage = z
  .object({
    message_id: z.uuid().openapi({ description: "The message id.", example: messageExample }),
    status: PublicMessageStatus.openapi({ description: "Message state.", example: "bounced" }),
    bounce_type: z.string().nullable().openapi({ description: "Provider bounce type, e.g. `HardBounce`.", example: "HardBounce" }),
    error: z.string().nullable().openapi({ description: "Why it was not sent (`cancelled` for a cancelled job).", example: null }),
    created_at: z.string().openapi({ description: "ISO 8601.", example: "2026-03-01T10:00:00.000Z" }),
    delivered_at: timestamp("ISO 8601 or null."),
    first_opened_at: timestamp("ISO 8601 or null."),
    first_clicked_at: timestamp("ISO 8601 or null."),
    bounced_at: timestamp("ISO 8601 or null.", "2026-03-01T10:00:04.000Z"),
    complained_at: timestamp("ISO 8601 or null."),
  })
  .openapi("SendJobMessage", { description: "A message of the job; the recipient address never appears." });

export const MessagesQuery = z.object({
  status: JobMessage.shape.status
    .optional()
    .openapi({ description: "Only messages in this state (`pending` includes a batch in flight).", example: "bounced" }),
  limit: limitQuery(500, 100),
  ...cursorQuery,
});

export const ListQuery = z.object({
  status: z.enum(sendJobStatuses).optional().openapi({ description: "Only jobs in this state.", example: "running" }),
  limit: limitQuery(100, 25),
  ...cursorQuery,
});

export const LinkStat = z
  .object({
    url: z.string().openapi({ description: "The link's URL as the provider reports it.", example: "https://shop.example.com/spring" }),
    clicks: count("Click events.", 240),
    unique_clicks: count("Messages with a click on this link.", 180),
  })
  .openapi("LinkStat");
