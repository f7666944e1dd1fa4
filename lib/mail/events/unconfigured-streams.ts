import { sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mailMessageEvents } from "../../db/schema";
import { queryRows } from "../../db/sql";
import { UNCONFIGURED_STREAM_KEY } from "./ingest";

export type UnconfiguredStreamEvents = { count: number; last_received_at: string | null; streams: string[] };

/** At most this many distinct stream ids are named; the count covers all of them. */
const MAX_STREAMS_NAMED = 20;

/**
 * Provider events of a customer's messages that arrived on a Postmark stream the customer has not
 * configured (stored and applied like the others, marked in `details`): how many, the latest, and which
 * stream ids, so the operator can complete the provider configuration. Suppression-only events without a
 * message of ours feed the mirror and are logged, but have no message to be counted against.
 */
export async function unconfiguredStreamEvents(db: Database, customerId: string): Promise<UnconfiguredStreamEvents> {
  const [row] = await queryRows<{ count: number; last_received_at: string | null; streams: string[] | null }>(
    db,
    sql`select count(*)::int as count,
               to_char(max(${mailMessageEvents.receivedAt}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as last_received_at,
               (array_agg(distinct ${mailMessageEvents.details} ->> ${UNCONFIGURED_STREAM_KEY}))[1:${MAX_STREAMS_NAMED}] as streams
        from ${mailMessageEvents}
        where ${mailMessageEvents.customerId} = ${customerId} and ${mailMessageEvents.details} ? ${UNCONFIGURED_STREAM_KEY}`,
  );
  return { count: row?.count ?? 0, last_received_at: row?.last_received_at ?? null, streams: row?.streams ?? [] };
}
