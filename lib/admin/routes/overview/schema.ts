import { z } from "@hono/zod-openapi";
import { messageStatuses, sendJobStatuses, templateKinds } from "../../../db/schema";
import { MESSAGE_STATES } from "../../overview";
import { SEARCH_KINDS } from "../../search";

const id = (description: string) => z.uuid().openapi({ description, example: "3f0e8a52-6f1e-4c1d-9a43-0d2f1b7c5e11" });
const int = (description: string, example = 0) => z.int().min(0).openapi({ description, example });
const share = (description: string) => z.number().min(0).max(1).nullable().openapi({ description, example: 0.97 });
const time = (description: string) =>
  z.iso.datetime({ offset: true, error: "Must be an ISO 8601 date-time with its offset, e.g. 2026-03-01T00:00:00+01:00." }).openapi({
    description,
    example: "2026-03-01T00:00:00Z",
  });

const StateCounts = z
  .object(Object.fromEntries(MESSAGE_STATES.map((s) => [s, int(`Messages now \`${s}\`.`, 10)])) as Record<(typeof MESSAGE_STATES)[number], z.ZodInt>)
  .openapi("OverviewStateCounts", { description: "Messages created in the period, by their state now (`sending` counts as `pending`)." });

const Rates = z
  .object({
    delivered: share("Delivered per message Postmark took (accepted, delivered, bounced, complained); null when none."),
    bounced: share("Bounced per message Postmark took."),
    complained: share("Complained per message Postmark took."),
  })
  .openapi("OverviewRates");

const Provider = z.object({
  calls: int("Calls this instance made since `since`.", 120),
  errors: int("Of those, failed calls.", 1),
  error_rate: z.number().min(0).max(1).openapi({ description: "`errors / calls`; 0 without calls.", example: 0.008 }),
  latency_p95_ms: z.int().nullable().openapi({ description: "95th percentile of the latest calls, ms; null without calls.", example: 420 }),
  since: z.string().openapi({ description: "When this instance started counting.", example: "2026-03-01T08:00:00.000Z" }),
});

export const Overview = z
  .object({
    generated_at: z.string().openapi({ description: "ISO 8601.", example: "2026-03-01T10:12:00.000Z" }),
    since: z.string().openapi({
      description: "The period's start, rounded down to the hour (UTC): use it for the lists behind the figures.",
      example: "2026-03-01T00:00:00.000Z",
    }),
    until: z.string().openapi({ description: "The period's end, rounded up to the hour.", example: "2026-03-01T11:00:00.000Z" }),
    mail: z
      .object({
        totals: StateCounts,
        rates: Rates,
        customers: z
          .array(
            z.object({
              customer_id: id("Customer id."),
              customer_name: z.string().openapi({ description: "The customer's name." }),
              counts: StateCounts,
              rates: Rates,
            }),
          )
          .openapi({
            description: "Customers with messages in the period, by name.",
          }),
      })
      .openapi({ description: "Messages created in the period, by state, in total and per customer." }),
    send_jobs: z
      .object({
        running: int("Jobs sending now.", 1),
        scheduled: int("Jobs waiting for their time.", 2),
        paused: int("Paused jobs (by an operator or a block).", 0),
        jobs: z
          .array(
            z.object({
              id: id("Send job id."),
              name: z
                .string()
                .nullable()
                .openapi({ description: "The job's name; null on jobs made before names existed.", example: "Spring newsletter 2026-03-01" }),
              customer_id: id("Customer id."),
              customer_name: z.string().openapi({ description: "The customer's name." }),
              status: z.enum(sendJobStatuses).openapi({ description: "State." }),
              pause_reason: z.string().nullable().openapi({ description: "Why it is paused (`bounce_rate`, `complaint_rate`, an operator), else null." }),
              scheduled_at: z.string().nullable().openapi({ description: "When it starts (ISO 8601), else null." }),
              total: int("Recipients.", 1000),
              done: int("Recipients with an outcome (accepted, suppressed, invalid, failed, unknown).", 600),
              progress: z.number().min(0).max(1).openapi({ description: "`done / total`.", example: 0.6 }),
            }),
          )
          .openapi({ description: "Those jobs, with their progress." }),
      })
      .openapi({ description: "Send jobs running, scheduled or paused." }),
    webhooks_failing: z
      .array(
        z.object({
          service: z.enum(["mail", "ads"]).openapi({ description: "`mail` or `ads`." }),
          webhook_id: id("Endpoint id."),
          customer_id: id("Customer id."),
          customer_name: z.string().openapi({ description: "The customer's name." }),
          url: z.string().openapi({ description: "The endpoint's URL." }),
          active: z.boolean().openapi({ description: "False once a delivery failed for 24 h and the endpoint was switched off." }),
          failure_count: int("Failed attempts since the last success.", 3),
          last_delivery_at: z.string().nullable().openapi({ description: "Last attempt (ISO 8601), else null." }),
        }),
      )
      .openapi({ description: "Webhook endpoints whose last deliveries failed." }),
    customers_attention: z
      .array(
        z.object({
          customer_id: id("Customer id."),
          customer_name: z.string().openapi({ description: "The customer's name." }),
          sending_blocked: z.boolean().openapi({ description: "Whether an operator blocked its sending." }),
          monthly_limit: int("Live messages allowed per calendar month (UTC).", 100000),
          sent_this_month: int("Live messages Postmark took this month, by creation time.", 85000),
        }),
      )
      .openapi({ description: "Customers whose sending is blocked or who used 80 % of their monthly limit or more, fullest first." }),
    providers: z
      .object({ postmark: Provider.openapi({ description: "Postmark." }), graph: Provider.openapi({ description: "Meta's Graph API." }) })
      .openapi({ description: "This instance's provider calls since it started (as `GET /v1/system`)." }),
    queue: z
      .object({
        send_job_batches_waiting: int("Batches of running jobs no lane has picked up yet."),
        send_job_batches_oldest_wait_seconds: z.int().nullable().openapi({ description: "Seconds the oldest waiting batch has waited; null when none waits." }),
        webhook_deliveries_due: int("Webhook deliveries due now."),
        webhook_deliveries_oldest_due_seconds: z
          .int()
          .nullable()
          .openapi({ description: "Seconds the oldest due delivery is overdue; null when none is due." }),
      })
      .openapi({ description: "Work waiting now." }),
    ads: z
      .object({
        customers: z
          .array(
            z.object({
              customer_id: id("Customer id."),
              customer_name: z.string().openapi({ description: "The customer's name." }),
              spend_minor: int("Spend in hundredths of the ad account's currency.", 12345),
              impressions: int("Impressions.", 40000),
              clicks: int("Clicks.", 800),
              since_date: z.string().openapi({ description: "First day counted (the account's days).", example: "2026-03-01" }),
              until_date: z.string().openapi({ description: "Last day counted.", example: "2026-03-01" }),
            }),
          )
          .openapi({ description: "Per customer." }),
      })
      .openapi({ description: "Ads delivery in the period." }),
  })
  .openapi("Overview");

export const OverviewQuery = z.object({
  since: time("Start of the period (rounded down to the hour)."),
  until: time("End of the period (rounded up to the hour); at most 93 days after `since`.").optional(),
});

export const SearchQuery = z.object({
  q: z.string().max(320).default("").openapi({
    description:
      "An address, an id (message, send job, customer, ad set, ad), Postmark's message id, an ads platform id, or a part of a name. Empty: the newest messages matching the filters.",
    example: "anna@example.com",
  }),
  kind: z.enum(SEARCH_KINDS).optional().openapi({ description: "Only this kind of result.", example: "message" }),
  status: z.enum(messageStatuses).exclude(["sending"]).optional().openapi({ description: "Messages only in this state.", example: "bounced" }),
  since: time("Messages created at or after this time.").optional(),
  until: time("Messages created before this time.").optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25).openapi({ description: "At most this many results per kind.", example: 25 }),
});

const named = {
  id: id("Id."),
  name: z.string().openapi({ description: "Name." }),
  customer_id: id("Customer id."),
  customer_name: z.string().openapi({ description: "The customer's name." }),
};

export const SearchResults = z
  .object({
    q: z.string().openapi({ description: "The search as typed." }),
    matched_by: z.enum(["address", "id", "text", "filters"]).openapi({ description: "How `q` was read." }),
    messages: z
      .array(
        z.object({
          id: id("Message id."),
          customer_id: id("Customer id."),
          customer_name: z.string().openapi({ description: "The customer's name." }),
          kind: z.enum(templateKinds).openapi({ description: "Kind of mail." }),
          status: z.enum(messageStatuses).exclude(["sending"]).openapi({ description: "State." }),
          subject: z.string().openapi({ description: "Subject as stored." }),
          send_job_id: z.uuid().nullable().openapi({ description: "Send job, null for transactional mail." }),
          provider_message_id: z.string().nullable().openapi({ description: "Postmark's MessageID, null until accepted." }),
          created_at: z.string().openapi({ description: "ISO 8601." }),
        }),
      )
      .openapi({ description: "Messages found." }),
    send_jobs: z
      .array(
        z.object({
          ...named,
          status: z.enum(sendJobStatuses).openapi({ description: "State." }),
          created_at: z.string().openapi({ description: "ISO 8601." }),
        }),
      )
      .openapi({ description: "Send jobs found." }),
    customers: z
      .array(
        z.object({ id: id("Customer id."), name: z.string().openapi({ description: "Name." }), created_at: z.string().openapi({ description: "ISO 8601." }) }),
      )
      .openapi({ description: "Customers found." }),
    ad_sets: z
      .array(
        z.object({ ...named, platform_id: z.string().openapi({ description: "The platform's id." }), status: z.string().openapi({ description: "Status." }) }),
      )
      .openapi({ description: "Ad sets found." }),
    ads: z
      .array(
        z.object({
          ...named,
          ad_set_id: id("Ad set id."),
          platform_id: z.string().openapi({ description: "The platform's id." }),
          status: z.string().openapi({ description: "Status." }),
        }),
      )
      .openapi({ description: "Ads found." }),
  })
  .openapi("SearchResults");
