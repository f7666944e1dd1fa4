import { and, eq, gte, inArray, lt, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mailMessageExtraCopies, mailMessages, mailSendJobs, unfinishedSendJobStatuses } from "../../db/schema";
import { acceptedLiveThisMonth } from "../messages/service";
import { reservedLive, type MonthlyLimits } from "./quota";
import type { z } from "@hono/zod-openapi";
import { PREVIOUS_MONTHS, type Usage as UsageSchema } from "./schema";

/** `GET /v1/usage` as the API documents it. */
export type Usage = z.infer<typeof UsageSchema>;

const DAY_MS = 86_400_000;

const monthStart = (year: number, month: number) => new Date(Date.UTC(year, month, 1));
const monthKey = (d: Date) => d.toISOString().slice(0, 7);

/**
 * Accepted live e-mails (sandbox never counts) of the current UTC month and the twelve before it.
 * `projection` = sent so far, extrapolated at this month's daily average to the end of the month (days
 * elapsed counted from the 1st, at least one), plus the pending recipients of scheduled, running and
 * paused live jobs, which go out whatever the average says. `remaining` is what can still be added:
 * the limit minus sent minus `reserved` (pending recipients of every open live job, drafts included),
 * the same sum the 429 checks.
 */
export async function getUsage(db: Database, customerId: string, limits: MonthlyLimits, now: Date): Promise<Usage> {
  const start = monthStart(now.getUTCFullYear(), now.getUTCMonth());
  const end = monthStart(now.getUTCFullYear(), now.getUTCMonth() + 1);
  const first = monthStart(now.getUTCFullYear(), now.getUTCMonth() - PREVIOUS_MONTHS);
  const sent = await acceptedLiveThisMonth(db, customerId, now);
  const reserved = await reservedLive(db, customerId);
  const [committed] = await db
    .select({ n: sql<number>`coalesce(sum(${mailSendJobs.pending}), 0)::int` })
    .from(mailSendJobs)
    .where(and(eq(mailSendJobs.customerId, customerId), eq(mailSendJobs.mode, "live"), inArray(mailSendJobs.status, unfinishedSendJobStatuses)));
  const history = await db
    .select({ month: sql<string>`to_char(${mailMessages.acceptedAt} at time zone 'UTC', 'YYYY-MM')`, sent: sql<number>`count(*)::int` })
    .from(mailMessages)
    .where(and(eq(mailMessages.customerId, customerId), eq(mailMessages.mode, "live"), gte(mailMessages.acceptedAt, first), lt(mailMessages.acceptedAt, start)))
    .groupBy(sql`1`);
  // Second copies Postmark received of a message count too (../send-jobs/late-truth.ts).
  const copies = await db
    .select({ month: sql<string>`to_char(${mailMessageExtraCopies.acceptedAt} at time zone 'UTC', 'YYYY-MM')`, sent: sql<number>`count(*)::int` })
    .from(mailMessageExtraCopies)
    .where(
      and(
        eq(mailMessageExtraCopies.customerId, customerId),
        eq(mailMessageExtraCopies.mode, "live"),
        gte(mailMessageExtraCopies.acceptedAt, first),
        lt(mailMessageExtraCopies.acceptedAt, start),
      ),
    )
    .groupBy(sql`1`);
  const byMonth = new Map(history.map((row) => [row.month, row.sent]));
  for (const row of copies) byMonth.set(row.month, (byMonth.get(row.month) ?? 0) + row.sent);

  const elapsedDays = Math.max(1, (now.getTime() - start.getTime()) / DAY_MS);
  const remainingDays = Math.max(0, (end.getTime() - now.getTime()) / DAY_MS);
  const projection = sent + Math.round((sent / elapsedDays) * remainingDays) + (committed?.n ?? 0);
  return {
    month: monthKey(start),
    sent,
    projection,
    limit: limits.monthlyLimit,
    remaining: Math.max(0, limits.monthlyLimit - sent - reserved),
    reserved,
    max_per_job: limits.maxPerJob,
    previous: Array.from({ length: PREVIOUS_MONTHS }, (_, i) => {
      const month = monthKey(monthStart(now.getUTCFullYear(), now.getUTCMonth() - 1 - i));
      return { month, sent: byMonth.get(month) ?? 0 };
    }),
  };
}
