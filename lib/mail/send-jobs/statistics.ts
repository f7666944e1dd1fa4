import { and, asc, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mailMessageEvents, mailMessages } from "../../db/schema";
import { afterCursor, toPage, type Cursor } from "../../core/pagination";
import { messageOutcome } from "../messages/service";
import { queryRows } from "../../db/sql";
import type { z } from "@hono/zod-openapi";
import type { PublicMessageStatus as PublicMessageStatusSchema } from "../messages/schema";
import type { JobMessage as JobMessageSchema, LinkStat as LinkStatSchema, SendJobStats, TimelineEntry as TimelineEntrySchema } from "./schema";

/*
 * Statistics of a job, computed on every read from what is stored, so opens and clicks that arrive days
 * after completion show up at once. States and first times (delivered, bounced, complained, first open,
 * first click) come from the messages, which the provider-event processor derives from events and keeps
 * permanently; totals of opens and clicks and the link table count the stored `opened`/`clicked` events
 * (message history, kept 90 days). Only messages with an open or a click are joined with their events.
 */

export type JobStats = z.infer<typeof SendJobStats>;
export type TimelineEntry = z.infer<typeof TimelineEntrySchema>;
export type LinkStat = z.infer<typeof LinkStatSchema>;

// Tables and columns through the schema objects (qualified by the table name), so a rename fails the type check.
const m = mailMessages;
const e = mailMessageEvents;

function ofJob(customerId: string, jobId: string): SQL {
  return sql`${m.sendJobId} = ${jobId} and ${m.customerId} = ${customerId}`;
}

/** The job's messages with an open or a click (only those are joined with their events). */
const engaged = sql`(${m.firstOpenedAt} is not null or ${m.firstClickedAt} is not null)`;

export async function jobStats(db: Database, customerId: string, jobId: string): Promise<JobStats> {
  const [states] = await queryRows<Omit<JobStats, "opens" | "clicks">>(
    db,
    sql`select count(${m.deliveredAt})::int as delivered, count(${m.bouncedAt})::int as bounces, count(${m.complainedAt})::int as complaints,
               count(${m.firstOpenedAt})::int as unique_opens, count(${m.firstClickedAt})::int as unique_clicks
        from ${m} where ${ofJob(customerId, jobId)}`,
  );
  const engagement = await queryRows<{ type: string; n: number }>(
    db,
    sql`select ${e.type} as type, count(*)::int as n from ${m} join ${e} on ${e.messageId} = ${m.id}
        where ${ofJob(customerId, jobId)} and ${engaged} and ${e.type} in ('opened', 'clicked')
        group by ${e.type}`,
  );
  const total = (type: string) => engagement.find((row) => row.type === type)?.n ?? 0;
  return {
    delivered: states?.delivered ?? 0,
    bounces: states?.bounces ?? 0,
    complaints: states?.complaints ?? 0,
    opens: total("opened"),
    unique_opens: states?.unique_opens ?? 0,
    clicks: total("clicked"),
    unique_clicks: states?.unique_clicks ?? 0,
  };
}

const timelineKeys: Record<string, keyof Omit<TimelineEntry, "hour">> = {
  accepted: "accepted",
  delivered: "delivered",
  bounced: "bounces",
  complained: "complaints",
  opened: "opens",
  clicked: "clicks",
};

/**
 * One entry per UTC hour in which something happened (hours without activity are left out), oldest
 * first: acceptances, first deliveries, bounces and complaints by the message's time, opens and clicks by
 * event. Hours are computed from epoch seconds, so the database's time zone setting plays no part.
 */
export async function jobTimeline(db: Database, customerId: string, jobId: string): Promise<TimelineEntry[]> {
  const rows = await queryRows<{ hour: number; kind: string; n: number }>(
    db,
    sql`select floor(extract(epoch from t.at) / 3600)::int as hour, t.kind, count(*)::int as n
        from ${m}
        cross join lateral (values ('accepted', ${m.acceptedAt}), ('delivered', ${m.deliveredAt}), ('bounced', ${m.bouncedAt}), ('complained', ${m.complainedAt})) as t(kind, at)
        where ${ofJob(customerId, jobId)} and t.at is not null
        group by 1, 2
        union all
        select floor(extract(epoch from ${e.occurredAt}) / 3600)::int, ${e.type}, count(*)::int
        from ${m} join ${e} on ${e.messageId} = ${m.id}
        where ${ofJob(customerId, jobId)} and ${engaged} and ${e.type} in ('opened', 'clicked')
        group by 1, 2`,
  );
  const byHour = new Map<number, TimelineEntry>();
  for (const row of rows) {
    const key = timelineKeys[row.kind];
    if (!key) continue;
    let entry = byHour.get(row.hour);
    if (!entry) {
      entry = { hour: new Date(row.hour * 3_600_000).toISOString(), accepted: 0, delivered: 0, bounces: 0, complaints: 0, opens: 0, clicks: 0 };
      byHour.set(row.hour, entry);
    }
    entry[key] += row.n;
  }
  return [...byHour.entries()].sort(([a], [b]) => a - b).map(([, entry]) => entry);
}

/** Clicks per URL (Postmark reports one click event per link and recipient), most clicked first. */
export async function jobLinks(db: Database, customerId: string, jobId: string): Promise<LinkStat[]> {
  return queryRows<LinkStat>(
    db,
    sql`select ${e.details}->>'url' as url, count(*)::int as clicks, count(distinct ${e.messageId})::int as unique_clicks
        from ${m} join ${e} on ${e.messageId} = ${m.id}
        where ${ofJob(customerId, jobId)} and ${m.firstClickedAt} is not null and ${e.type} = 'clicked' and ${e.details}->>'url' is not null
        group by 1 order by clicks desc, url asc`,
  );
}

export type PublicMessageStatus = z.infer<typeof PublicMessageStatusSchema>;

export type JobMessage = z.infer<typeof JobMessageSchema>;

/** A job's messages in creation order, never with the address; `pending` includes in-flight messages. */
export async function listJobMessages(
  db: Database,
  customerId: string,
  jobId: string,
  input: { status?: PublicMessageStatus; limit: number; after: Cursor | null },
) {
  const statuses = input.status === "pending" ? (["pending", "sending"] as const) : input.status ? [input.status] : null;
  const rows = await db
    .select()
    .from(mailMessages)
    .where(
      and(
        eq(mailMessages.sendJobId, jobId),
        eq(mailMessages.customerId, customerId),
        statuses ? inArray(mailMessages.status, [...statuses]) : undefined,
        afterCursor(mailMessages.createdAt, mailMessages.id, input.after),
      ),
    )
    .orderBy(asc(mailMessages.createdAt), asc(mailMessages.id))
    .limit(input.limit + 1);
  const items = rows.map((row): JobMessage => ({ message_id: row.id, ...messageOutcome(row) }));
  return toPage(items, input.limit, (message) => ({ at: message.created_at, id: message.message_id }));
}
