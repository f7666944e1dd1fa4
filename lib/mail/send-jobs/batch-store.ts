import { and, eq, getTableColumns, inArray, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mailMessageEvents, mailMessages, mailSendJobChunks, mailSendJobs, mailSettings } from "../../db/schema";
import type { BatchRecipient } from "./batch-payload";
import { timeOrderedUuid } from "./ids";
import type { SendJobRow } from "./model";
import type { ChunkEntry } from "./recipients";
import { col, cols, queryRows } from "../../db/sql";

/*
 * The statements of one batch (see `./batch.ts` for the order they run in): read the job, claim a row of
 * recipients, record the results. Tables and columns are named through the schema objects, so a rename in
 * `lib/db/schema` fails the type check here.
 */

/** A running job as a batch reads it: everything but the rendered template (see `./batch-writers.ts`). */
export type BatchJob = Omit<SendJobRow, "compiled">;
const { compiled: _compiled, ...batchJobColumns } = getTableColumns(mailSendJobs);

export type BatchSettings = { sendingBlocked: boolean; monthlyLimit: number };

/** The job with its customer's access switch and monthly limit, in one read. */
export async function readBatchJob(db: Database, jobId: string, customerId: string): Promise<{ job: BatchJob; settings: BatchSettings | null } | null> {
  const [found] = await db
    .select({ job: batchJobColumns, settings: { sendingBlocked: mailSettings.sendingBlocked, monthlyLimit: mailSettings.monthlyLimit } })
    .from(mailSendJobs)
    .leftJoin(mailSettings, eq(mailSettings.customerId, mailSendJobs.customerId))
    .where(and(eq(mailSendJobs.id, jobId), eq(mailSendJobs.customerId, customerId)));
  return found ?? null;
}

/**
 * How long a claim's provider call may be in flight without news from its worker. The worker renews it
 * every third of this while it waits for the provider (`renewLease`), so only a claim whose worker is gone
 * (process killed) ever lets it pass; recovery then takes the call for lost (./recovery.ts).
 */
export const BATCH_LEASE_MS = 60_000;
/** No message is handed to the provider more than this many times (the first send and one re-send). */
export const MAX_HANDOVERS = 2;

export type Claim = { kind: "stale" } | { kind: "exhausted" } | { kind: "claimed"; batchId: string; rows: BatchRecipient[] };

/**
 * Takes the next unclaimed row of recipients, if the job is still running in this run. The row gets a
 * fresh batch id and the claim time, and its messages become `sending`, in one transaction: a crash after
 * the commit leaves in-flight messages (recovered as `unknown`, then reconciled by the batch id) and never
 * a recipient sent twice. Only `size` recipients are taken when the monthly limit leaves less than a row;
 * the rest goes back as a row of its own. The job row is locked for the claim, so lanes of one job claim
 * in turn.
 */
export async function claimBatch(db: Database, jobId: string, run: number, size: number, now: Date): Promise<Claim> {
  const chunks = mailSendJobChunks;
  return db.transaction(async (tx) => {
    const [locked] = await tx
      .update(mailSendJobs)
      .set({ lastProgressAt: now })
      .where(and(eq(mailSendJobs.id, jobId), eq(mailSendJobs.status, "running"), eq(mailSendJobs.run, run)))
      .returning({ id: mailSendJobs.id });
    if (!locked) return { kind: "stale" };
    const batchId = crypto.randomUUID();
    const [row] = await queryRows<{ seq: number; recipients: string }>(
      tx,
      sql`update ${chunks} set ${col(chunks.batchId)} = ${batchId}, ${col(chunks.claimedAt)} = ${now},
                 ${col(chunks.leaseUntil)} = ${new Date(now.getTime() + BATCH_LEASE_MS)}
          where ${chunks.sendJobId} = ${jobId} and ${chunks.seq} = (
            select ${chunks.seq} from ${chunks} where ${chunks.sendJobId} = ${jobId} and ${chunks.batchId} is null order by ${chunks.seq} limit 1 for update skip locked)
          returning ${chunks.seq} as seq, ${chunks.recipients} as recipients`,
    );
    if (!row) return { kind: "exhausted" };
    const entries = JSON.parse(row.recipients) as ChunkEntry[];
    if (entries.length > size) {
      await tx.insert(chunks).values({ sendJobId: jobId, recipients: JSON.stringify(entries.slice(size)) });
      entries.length = size;
      await tx
        .update(chunks)
        .set({ recipients: JSON.stringify(entries) })
        .where(and(eq(chunks.sendJobId, jobId), eq(chunks.seq, row.seq)));
    }
    const ids = sql.param(entries.map((e) => e[0]));
    // The count, not the ids: answering 500 rows costs more than the update itself. The hand-over count
    // is raised here, before the call, and a message handed over twice already is never marked again.
    const [marked] = await queryRows<{ count: number }>(
      tx,
      sql`with marked as (update ${mailMessages} set ${col(mailMessages.status)} = 'sending', ${col(mailMessages.attempts)} = ${mailMessages.attempts} + 1
                          where ${mailMessages.id} = any(${ids}::uuid[]) and ${mailMessages.status} = 'pending' and ${mailMessages.attempts} < ${MAX_HANDOVERS} returning 1)
          select count(*)::int as count from marked`,
    );
    let claimed = entries;
    if (marked?.count !== entries.length) {
      // Some were no longer pending (a cancel raced the claim). The row was this claim's alone, so its
      // messages now `sending` are exactly the ones just marked.
      const sending = await queryRows<{ id: string }>(
        tx,
        sql`select ${mailMessages.id} as id from ${mailMessages} where ${mailMessages.id} = any(${ids}::uuid[]) and ${mailMessages.status} = 'sending'`,
      );
      const still = new Set(sending.map((m) => m.id));
      claimed = entries.filter((e) => still.has(e[0]));
    }
    return { kind: "claimed", batchId, rows: claimed.map(([messageId, email, name, data]): BatchRecipient => ({ messageId, email, name, data })) };
  });
}

/** The worker is still waiting for the provider: the claim's call is in flight, not lost. */
export async function renewLease(db: Database, jobId: string, batchId: string, now: Date): Promise<void> {
  await db
    .update(mailSendJobChunks)
    .set({ leaseUntil: new Date(now.getTime() + BATCH_LEASE_MS) })
    .where(and(eq(mailSendJobChunks.sendJobId, jobId), eq(mailSendJobChunks.batchId, batchId)));
}

/**
 * Whether a turned-away claim went back: `released`, or `taken` when the claim is no longer this worker's
 * to undo (another worker claimed the row since, or recovery marked its messages lost after the lease
 * expired and reconciliation now owns them).
 */
type Release = "released" | "taken";

/**
 * The provider turned the whole call away (429, or 503 with Retry-After): nothing was handed over, so
 * the claim is undone in one transaction: its messages are `pending` again with their hand-over count
 * as before, and the row is unclaimed, for the lane's next batch after the back-off.
 * The answer may come after the claim's lease expired (a provider that held the call for minutes). The
 * claim is undone only while it is still this batch's and untouched: the row still carries this batch id
 * and every one of its messages is still `sending`. Otherwise nothing is written: a row claimed again
 * carries another batch id and its `sending` messages are that claim's; messages recovery marked
 * `unknown` are reconciled by this batch id (Postmark's search finds them missing and they go out again
 * once), so unclaiming the row under reconciliation would lose it. Locks are taken in the record's order
 * (the messages by id, then the row of addresses).
 */
export async function releaseBatch(db: Database, jobId: string, batchId: string, messageIds: readonly string[]): Promise<Release> {
  return db.transaction(async (tx) => {
    const ids = [...messageIds];
    await lockMessagesInOrder(tx, ids);
    const ofBatch = and(eq(mailSendJobChunks.sendJobId, jobId), eq(mailSendJobChunks.batchId, batchId));
    const [row] = await tx.select({ seq: mailSendJobChunks.seq }).from(mailSendJobChunks).where(ofBatch).for("update");
    if (!row) return "taken";
    if (ids.length > 0) {
      const [sending] = await tx
        .select({ n: sql<number>`count(*)::int` })
        .from(mailMessages)
        .where(and(inArray(mailMessages.id, ids), eq(mailMessages.status, "sending")));
      if ((sending?.n ?? 0) !== ids.length) return "taken";
      await tx
        .update(mailMessages)
        .set({ status: "pending", attempts: sql`greatest(${mailMessages.attempts} - 1, 0)` })
        .where(and(inArray(mailMessages.id, ids), eq(mailMessages.status, "sending")));
    }
    await tx.update(mailSendJobChunks).set({ batchId: null, claimedAt: null, leaseUntil: null, evidenceFrom: null, evidenceAfter: null }).where(ofBatch);
    return "released";
  });
}

/**
 * Takes the row locks of a batch's messages in id order. Every transaction that writes a batch's messages
 * and its job takes its locks in one order (the messages by id, then the job row, then the batch's row of
 * addresses): the record below, recovery marking a batch lost (./recovery.ts), reconciliation
 * (./reconcile.ts). In another order two of them could each hold what the other waits for (PostgreSQL then
 * aborts one: nothing is lost, but the work is done again).
 */
export async function lockMessagesInOrder(tx: Database, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.execute(sql`select 1 from ${mailMessages} where ${mailMessages.id} = any(${sql.param([...ids])}::uuid[]) order by ${mailMessages.id} for update`);
}

export type BatchResult = {
  messageId: string;
  status: "accepted" | "suppressed" | "invalid" | "failed" | "unknown";
  providerMessageId: string | null;
  error: string | null;
};

/**
 * The message keeps the job's subject as written (`{{placeholders}}` unfilled): the personalised subject
 * would keep a recipient's name or address after the job has forgotten them.
 * Writes each result with its send event, the job's counters and what is left of the batch's row of
 * addresses in one statement (data-modifying CTEs run together, atomically): the messages updated, one
 * event per message updated, the counters moved by what was updated; the row is deleted, or keeps only
 * the recipients whose outcome is `unknown` (reconciliation may have to send them again). A result is
 * written from `sending`, or from `unknown` when recovery gave the worker up for dead but its definite
 * answer came after all. Answers the job's state after the write and how many were accepted.
 */
export async function recordBatch(
  db: Database,
  job: Pick<BatchJob, "id" | "customerId">,
  batchId: string,
  recipients: readonly BatchRecipient[],
  results: readonly BatchResult[],
  now: Date,
): Promise<Pick<SendJobRow, "status" | "pending" | "run"> & { accepted: number }> {
  const m = mailMessages;
  const e = mailMessageEvents;
  const j = mailSendJobs;
  const chunks = mailSendJobChunks;
  const inDoubt = new Set(results.filter((r) => r.status === "unknown").map((r) => r.messageId));
  const ofBatch = and(eq(chunks.sendJobId, job.id), eq(chunks.batchId, batchId));
  const kept = recipients.filter((r) => inDoubt.has(r.messageId)).map((r): ChunkEntry => [r.messageId, r.email, r.name, r.data]);
  const rowStep =
    kept.length === 0
      ? sql`delete from ${chunks} where ${ofBatch}`
      : // The call is over: its messages still in doubt are so since now (./reconcile.ts waits for evidence past it).
        sql`update ${chunks} set ${col(chunks.recipients)} = ${JSON.stringify(kept)}, ${col(chunks.leaseUntil)} = ${now}::timestamptz where ${ofBatch}`;
  // `prior` locks the batch's messages (in id order, see `lockMessagesInOrder`; the job row is updated last
  // but one, the row of addresses last) and reads their state as it is once the lock is held: recovery may
  // have made them `unknown` (./recovery.ts, `markLost`) while this statement waited for its lock, and a
  // plain self-join would read `sending` from the statement's snapshot and count them out of `pending`
  // twice. The updated message is aliased `target`, so its columns are named bare after the alias.
  const [row] = await queryRows<{ status: SendJobRow["status"]; pending: number; run: number; accepted: number }>(
    db,
    sql`with v as (
          select * from unnest(${sql.param(results.map((r) => r.messageId))}::uuid[], ${sql.param(results.map((r) => r.status))}::text[],
                               ${sql.param(results.map((r) => r.providerMessageId))}::text[], ${sql.param(results.map((r) => r.error))}::text[],
                               ${sql.param(results.map(() => timeOrderedUuid()))}::uuid[])
                   as v(id, status, provider_message_id, error, event_id)
        ),
        prior as (
          select ${m.id} as id, ${m.status} as status from ${m} where ${m.id} = any(${sql.param(results.map((r) => r.messageId))}::uuid[])
          order by ${m.id} for update
        ),
        recorded as (
          update ${m} target
          set ${col(m.status)} = v.status, ${col(m.providerMessageId)} = v.provider_message_id, ${col(m.error)} = v.error,
              ${col(m.acceptedAt)} = case when v.status = 'accepted' then ${now}::timestamptz else target.${col(m.acceptedAt)} end
          from v join prior on prior.id = v.id
          where target.${col(m.id)} = v.id and (prior.status = 'sending' or (prior.status = 'unknown' and v.status <> 'unknown'))
          returning target.${col(m.id)} as id, v.status, v.error, v.event_id, prior.status as was
        ),
        events as (
          insert into ${e} (${cols(e.id, e.messageId, e.customerId, e.type, e.occurredAt, e.identity, e.details)})
          select event_id, id, ${job.customerId}, status, ${now}::timestamptz, 'send:' || status,
                 case when error is null then '{}'::jsonb else jsonb_build_object('reason', error) end
          from recorded
          on conflict do nothing
        ),
        batch_row as (${rowStep} returning 1),
        counts as (
          select count(*) filter (where status = 'accepted') as accepted, count(*) filter (where status = 'suppressed') as suppressed,
                 count(*) filter (where status = 'invalid') as invalid, count(*) filter (where status = 'failed') as failed,
                 count(*) filter (where status = 'unknown') - count(*) filter (where was = 'unknown') as unknown,
                 count(*) filter (where was = 'sending') as sent, count(*) as recorded
          from recorded
        )
        update ${j} job
        set ${col(j.accepted)} = job.${col(j.accepted)} + c.accepted, ${col(j.suppressed)} = job.${col(j.suppressed)} + c.suppressed,
            ${col(j.invalid)} = job.${col(j.invalid)} + c.invalid, ${col(j.failed)} = job.${col(j.failed)} + c.failed,
            ${col(j.unknown)} = job.${col(j.unknown)} + c.unknown, ${col(j.pending)} = job.${col(j.pending)} - c.sent,
            ${col(j.batchesCompleted)} = job.${col(j.batchesCompleted)} + least(c.recorded, 1),
            ${col(j.lastProgressAt)} = ${now}::timestamptz, ${col(j.updatedAt)} = ${now}::timestamptz
        from counts c
        where job.${col(j.id)} = ${job.id}
        returning job.${col(j.status)} as status, job.${col(j.pending)} as pending, job.${col(j.run)} as run, c.accepted::int as accepted`,
  );
  if (!row) throw new Error("send job vanished while recording a batch");
  return row;
}
