import { z } from "@hono/zod-openapi";
import { MAX_BUCKETS, STAT_GRANULARITIES } from "../../../mail";

export const tags = ["Mail activity"];

const count = (description: string, example: number) => z.number().int().openapi({ description, example });

/** The six series, each counting messages by one of their own time fields (the names of the message states and events). */
const counts = {
  accepted: count("Messages Postmark accepted (`accepted_at` in the bucket): what was sent.", 1200),
  delivered: count("Messages delivered (`delivered_at`).", 1180),
  bounced: count("Messages bounced (`bounced_at`; hard or soft, the latest bounce of each message).", 14),
  complained: count("Messages a recipient marked as spam (`complained_at`).", 1),
  opened: count("Messages opened for the first time (`first_opened_at`): unique opens.", 512),
  clicked: count("Messages with their first link click (`first_clicked_at`): unique clicks.", 88),
};

const MailStatsBucket = z
  .object({
    start: z.string().openapi({ description: "Start of the bucket (ISO 8601, UTC); it ends where the next begins.", example: "2026-03-01T10:00:00.000Z" }),
    ...counts,
  })
  .openapi("MailStatsBucket");

export const MailStats = z
  .object({
    granularity: z.enum(STAT_GRANULARITIES).openapi({ description: "Bucket size.", example: "hour" }),
    from: z
      .string()
      .openapi({ description: "Start of the first bucket (ISO 8601, UTC): `from` as asked, rounded down to the bucket.", example: "2026-03-01T00:00:00.000Z" }),
    to: z
      .string()
      .openapi({ description: "End of the last bucket, exclusive (ISO 8601, UTC): `to` as asked, rounded up.", example: "2026-03-02T00:00:00.000Z" }),
    send_job_id: z.uuid().nullable().openapi({ description: "The send job the series are limited to, else null.", example: null }),
    totals: z.object(counts).openapi({ description: "Each series summed over the range." }),
    buckets: z.array(MailStatsBucket).openapi({ description: "Every bucket of the range, oldest first; a bucket without activity has zeros." }),
  })
  .openapi("MailStats");

const time = (description: string) =>
  z.iso
    .datetime({ offset: true, error: "Must be an ISO 8601 date-time with an offset (2026-03-01T00:00:00Z)." })
    .optional()
    .openapi({ description, example: "2026-03-01T00:00:00Z" });

export const MailStatsQuery = z.object({
  granularity: z
    .enum(STAT_GRANULARITIES)
    .default("hour")
    .openapi({
      description: `Bucket size, in UTC: \`hour\` (at most ${MAX_BUCKETS.hour} per request: 31 days) or \`day\` (at most ${MAX_BUCKETS.day}).`,
      example: "day",
    }),
  from: time("Start of the range, inclusive, rounded down to its bucket. Default: 24 hours (`hour`) or 30 days (`day`) before `to`."),
  to: time("End of the range, exclusive, rounded up to a bucket boundary. Default: now (the running bucket is the last)."),
  send_job_id: z
    .uuid()
    .optional()
    .openapi({ description: "Only this send job's messages. Another customer's job answers 404.", example: "8d7c6b5a-4f3e-4d2c-9b1a-0f9e8d7c6b5a" }),
});
