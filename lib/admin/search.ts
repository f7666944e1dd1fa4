import { and, desc, eq, gte, ilike, inArray, lt, or, type SQL } from "drizzle-orm";
import type { Database } from "../db/client";
import { adsAdSets, adsAds, customers, mailMessages, mailSendJobs, type messageStatuses } from "../db/schema";
import { defaultJobName, messageColumns, parseRecipient, recipientHash, withJob } from "../mail";

/**
 * The operator's one search box (`GET /admin/v1/search`). What `q` is decides where it looks:
 * - an address (has `@`): messages through the stored recipient hash, across customers, so a message is
 *   found after its job's addresses were deleted, and only under the customer that sent it;
 * - a UUID: a message, send job, customer, ad set or ad with that id, or a message with that Postmark
 *   message id (Postmark's ids are UUIDs);
 * - anything else: Postmark's message id and the ads platform's ids (exact), names of customers, send jobs,
 *   ad sets and ads (a part, case-insensitive);
 * - nothing: the newest messages matching the filters (the overview's totals link here).
 * Every kind is readable by every operator role, so nothing is filtered by role; no address is returned.
 */

export const SEARCH_KINDS = ["message", "send_job", "customer", "ad_set", "ad"] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

export type SearchInput = {
  q: string;
  kind?: SearchKind;
  status?: Exclude<(typeof messageStatuses)[number], "sending">;
  since?: Date;
  until?: Date;
  limit: number;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export async function search(db: Database, input: SearchInput) {
  const q = input.q.trim();
  const wants = (kind: SearchKind) => !input.kind || input.kind === kind;
  const isId = UUID.test(q);
  const isAddress = q.includes("@");
  const names = new Map((await db.select({ id: customers.id, name: customers.name }).from(customers)).map((c) => [c.id, c.name]));
  const customerName = (id: string) => names.get(id) ?? id;

  const m = mailMessages;
  const messageWhere: (SQL | undefined)[] = [
    input.status ? inArray(m.status, input.status === "pending" ? ["pending", "sending"] : [input.status]) : undefined,
    input.since ? gte(m.createdAt, input.since) : undefined,
    input.until ? lt(m.createdAt, input.until) : undefined,
  ];
  const messageMatch = isAddress
    ? eq(m.recipientHash, recipientHash(parseRecipient(q)?.address ?? q))
    : isId
      ? or(eq(m.id, q), eq(m.providerMessageId, q))
      : q
        ? eq(m.providerMessageId, q)
        : undefined;
  const messages = wants("message")
    ? await db
        .select(messageColumns)
        .from(m)
        .leftJoin(mailSendJobs, withJob)
        .where(and(messageMatch, ...messageWhere))
        .orderBy(desc(m.createdAt), desc(m.id))
        .limit(input.limit)
    : [];

  const textual = q !== "" && !isAddress;
  const j = mailSendJobs;
  const jobs =
    wants("send_job") && textual
      ? await db
          .select()
          .from(j)
          .where(isId ? eq(j.id, q) : ilike(j.name, likePattern(q)))
          .orderBy(desc(j.createdAt))
          .limit(input.limit)
      : [];
  const found =
    wants("customer") && textual
      ? await db
          .select()
          .from(customers)
          .where(isId ? eq(customers.id, q) : ilike(customers.name, likePattern(q)))
          .orderBy(customers.name)
          .limit(input.limit)
      : [];
  const adSets =
    wants("ad_set") && textual
      ? await db
          .select()
          .from(adsAdSets)
          .where(isId ? eq(adsAdSets.id, q) : or(ilike(adsAdSets.name, likePattern(q)), eq(adsAdSets.platformAdSetId, q)))
          .orderBy(desc(adsAdSets.createdAt))
          .limit(input.limit)
      : [];
  const ads =
    wants("ad") && textual
      ? await db
          .select()
          .from(adsAds)
          .where(isId ? eq(adsAds.id, q) : or(ilike(adsAds.name, likePattern(q)), eq(adsAds.platformAdId, q)))
          .orderBy(desc(adsAds.createdAt))
          .limit(input.limit)
      : [];

  return {
    q,
    matched_by: isAddress ? ("address" as const) : isId ? ("id" as const) : q ? ("text" as const) : ("filters" as const),
    messages: messages.map((row) => ({
      id: row.id,
      customer_id: row.customerId,
      customer_name: customerName(row.customerId),
      kind: row.kind,
      status: row.status === "sending" ? ("pending" as const) : row.status,
      subject: row.subject,
      send_job_id: row.sendJobId,
      provider_message_id: row.providerMessageId,
      created_at: row.createdAt.toISOString(),
    })),
    send_jobs: jobs.map((row) => ({
      id: row.id,
      name: row.name ?? defaultJobName(null, row.createdAt),
      customer_id: row.customerId,
      customer_name: customerName(row.customerId),
      status: row.status,
      created_at: row.createdAt.toISOString(),
    })),
    customers: found.map((row) => ({ id: row.id, name: row.name, created_at: row.createdAt.toISOString() })),
    ad_sets: adSets.map((row) => ({
      id: row.id,
      name: row.name,
      customer_id: row.customerId,
      customer_name: customerName(row.customerId),
      platform_id: row.platformAdSetId,
      status: row.status,
    })),
    ads: ads.map((row) => ({
      id: row.id,
      name: row.name,
      customer_id: row.customerId,
      customer_name: customerName(row.customerId),
      ad_set_id: row.adSetId,
      platform_id: row.platformAdId,
      status: row.effectiveStatus,
    })),
  };
}
