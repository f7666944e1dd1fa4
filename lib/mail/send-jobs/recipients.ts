import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mailMessages, mailSendJobAddressSets, mailSendJobChunks, mailSendJobs } from "../../db/schema";
import type { Principal } from "../../core/context";
import { ConflictError } from "../../core/errors";
import type { KnownAddressSet, MailCaches } from "../deps";
import { parseRecipient, recipientHash, type ParsedRecipient } from "../sending/address";
import { assertSendQuota, lockCustomerQuota } from "../usage/quota";
import {
  type AddressSet,
  addressKey,
  addressSetBytes,
  addressSetOf,
  decodeAddressSet,
  emptyAddressSet,
  encodeAddressSet,
  findAddress,
  mergeAddressSets,
} from "./address-set";
import { timeOrderedUuid } from "./ids";
import { BATCH_SIZE, counters, getSendJobRow, ownJob } from "./model";
import { cols } from "../../db/sql";
import type { z } from "@hono/zod-openapi";
import type { RecipientsAdded } from "./schema";

const INVALID_ADDRESS = "The recipient address could not be parsed.";
/**
 * Messages per insert statement. The driver turns an array parameter into one string; at 1,000 rows the
 * largest (the recipient hashes) is ~66 KB, below V8's large-object size (128 KB), so it dies young. One
 * statement of 5,000 rows makes strings of 185–335 KB per call that only a full GC frees (RSS grows).
 */
const ROWS_PER_INSERT = 1000;

export type RecipientInput = { email: string; data?: Record<string, unknown> };

/** What adding recipients needs: the database, the clock and the duplicate sets kept between calls. */
export type RecipientDeps = { db: Database; clock: { now(): Date }; caches: Pick<MailCaches, "addressSets"> };

export type AddRecipientsResult = z.infer<typeof RecipientsAdded>;

// RFC 5322 dot-atom local part and an LDH host name with a dot: what nearly every list consists of.
const SIMPLE_ADDRESS =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/**
 * `parseRecipient` for lists: a plain `local@domain.tld` that the pattern above accepts is a mailbox the
 * RFC parser also accepts, with the same address and no name, so it is taken as it is; everything else
 * (display names, quoting, comments, non-ASCII) goes through the full parser. That parser costs ~25 µs an
 * address, which alone would be seconds for a 100,000-recipient job.
 */
export function parseListAddress(input: string): ParsedRecipient | null {
  const trimmed = input.trim();
  if (trimmed.length <= 254 && SIMPLE_ADDRESS.test(trimmed)) return { address: trimmed, name: null };
  return parseRecipient(input);
}

type Entry = { hash: string; messageId: string; recipient: ParsedRecipient | null; data: Record<string, unknown>; fresh: boolean };

/** One recipient in a `mail_send_job_chunks` row: message id, address, display name, data. */
export type ChunkEntry = [messageId: string, address: string, name: string | null, data: Record<string, unknown>];

function chunksOf(entries: readonly Entry[]): string[] {
  const chunks: string[] = [];
  for (let from = 0; from < entries.length; from += BATCH_SIZE) {
    chunks.push(
      JSON.stringify(
        entries.slice(from, from + BATCH_SIZE).map((e): ChunkEntry => [e.messageId, e.recipient?.address ?? "", e.recipient?.name ?? null, e.data]),
      ),
    );
  }
  return chunks;
}

/**
 * Adds up to 5,000 recipients to a draft job in one transaction. The job row is locked first, so adds
 * and the start of one job are serialised. Addresses collapse by their hash (normalised address): a
 * repeat within the call or of an earlier call answers with the existing message id and adds nothing.
 * Unparsable addresses become `invalid` messages. Sendable recipients are stored in rows of one batch
 * (500). Quotas are checked on the result inside the same transaction, so a refused call leaves nothing.
 */
export async function addRecipients(
  deps: RecipientDeps,
  input: { principal: Principal; jobId: string; recipients: readonly RecipientInput[] },
): Promise<AddRecipientsResult> {
  const { db, caches } = deps;
  const { principal, jobId, recipients } = input;
  const now = deps.clock.now();
  const customerId = principal.customerId;
  const byHash = new Map<string, Entry>();
  const hashes = recipients.map((item) => {
    const recipient = parseListAddress(item.email);
    const hash = recipientHash(recipient?.address ?? item.email);
    if (!byHash.has(hash)) byHash.set(hash, { hash, messageId: timeOrderedUuid(), recipient, data: item.data ?? {}, fresh: true });
    return hash;
  });
  const entries = [...byHash.values()];

  let added = null as { known: KnownAddressSet; segment: AddressSet } | null;
  const result = await db.transaction(async (tx) => {
    const [job] = await tx
      .update(mailSendJobs)
      .set({ updatedAt: now })
      .where(and(ownJob(customerId, jobId), eq(mailSendJobs.status, "draft")))
      .returning();
    if (!job) {
      const current = await getSendJobRow(tx, customerId, jobId);
      throw new ConflictError(`Recipients can only be added to a draft job; this one is ${current.status}.`, {
        reason: "job_not_draft",
        status: current.status,
      });
    }

    const known = await readAddressSet(tx, caches, jobId);
    // One key buffer for all lookups: a fresh one each was 5,000 small buffers per call for the collector.
    const lookup = Buffer.allocUnsafe(16);
    for (const entry of entries) {
      const existing = findAddress(known.set, addressKey(entry.hash, lookup));
      if (existing !== null) Object.assign(entry, { messageId: existing, fresh: false });
    }
    const fresh = entries.filter((e) => e.fresh);
    const sendable = fresh.filter((e) => e.recipient !== null);
    const invalid = fresh.length - sendable.length;
    if (fresh.length > 0) {
      const m = mailMessages;
      for (let from = 0; from < fresh.length; from += ROWS_PER_INSERT) {
        const rows = fresh.slice(from, from + ROWS_PER_INSERT);
        await tx.execute(sql`insert into ${mailMessages} (${cols(m.id, m.customerId, m.kind, m.mode, m.status, m.templateId, m.sendJobId, m.recipientHash, m.error, m.createdAt)})
            select unnest(${sql.param(rows.map((e) => e.messageId))}::uuid[]), ${customerId}, 'newsletter', ${job.mode},
                   unnest(${sql.param(rows.map((e) => (e.recipient ? "pending" : "invalid")))}::text[]), ${job.templateId}, ${jobId},
                   decode(unnest(${sql.param(rows.map((e) => e.hash))}::text[]), 'hex'), unnest(${sql.param(rows.map((e) => (e.recipient ? null : INVALID_ADDRESS)))}::text[]), ${now}`);
      }
      // One parameter per row of 500 (~55 KB each), in order: as one text[] parameter the driver would
      // escape all of them into a single string of the whole call.
      if (sendable.length > 0) await tx.insert(mailSendJobChunks).values(chunksOf(sendable).map((recipients) => ({ sendJobId: jobId, recipients })));
      const segment = addressSetOf(fresh.map((e) => ({ key: addressKey(e.hash), messageId: e.messageId })));
      await tx.insert(mailSendJobAddressSets).values({ sendJobId: jobId, seq: known.segments, entries: encodeAddressSet(segment), count: segment.count });
      added = { known, segment };
    }

    const [updated] = await tx
      .update(mailSendJobs)
      .set({
        total: sql`${mailSendJobs.total} + ${fresh.length}`,
        pending: sql`${mailSendJobs.pending} + ${sendable.length}`,
        invalid: sql`${mailSendJobs.invalid} + ${invalid}`,
      })
      .where(eq(mailSendJobs.id, jobId))
      .returning();
    if (!updated) throw new Error("send job vanished inside its own transaction");
    const limits = { monthlyLimit: principal.mail?.monthlyLimit ?? 0, maxPerJob: principal.mail?.maxPerJob ?? 0 };
    // Adds to two jobs of one customer at once: each would see the other's recipients only once committed,
    // so both could fit the month alone and pass it together. The customer's checks run one at a time.
    await lockCustomerQuota(tx, customerId);
    await assertSendQuota(tx, { customerId, mode: updated.mode, jobPending: updated.pending, limits, now });

    return {
      recipients: recipients.map((item, i) => ({ email: item.email, message_id: byHash.get(hashes[i] ?? "")?.messageId ?? "" })),
      counts: { received: recipients.length, added: fresh.length, duplicates: recipients.length - fresh.length, invalid },
      job: counters(updated),
    };
  });
  // Only what was committed: a call refused by its quota check rolled its segment back.
  if (added) keepAddressSet(caches, jobId, added.known, added.segment);
  return result;
}

/**
 * 48 MB: a set of a million and a half recipients; larger ones are read each time rather than held. A
 * bound below a job's set makes every add call read and merge all segments again, which makes a
 * 1M-recipient ingest several times slower.
 */
const KEPT_SET_BYTES = 48 * 1024 * 1024;

/**
 * Duplicate sets of the jobs this process added to last (`caches.addressSets`). Segments are only ever
 * added, one call at a time under the job's row lock, so their number identifies the set: when the stored
 * number equals the kept one, the kept set is the stored set and nothing is read or merged again. Another
 * instance's add changes the number and the segments are read.
 */
function keepAddressSet(caches: Pick<MailCaches, "addressSets">, jobId: string, known: KnownAddressSet, segment: AddressSet): void {
  if (addressSetBytes(known.set) + addressSetBytes(segment) > KEPT_SET_BYTES) caches.addressSets.delete(jobId);
  // In place: the set read for this call is no one else's (the job's adds are serialised by its row lock,
  // and a later add finds the stored segments ahead of a set not yet merged, and reads them).
  else caches.addressSets.set(jobId, { set: mergeAddressSets(known.set, segment), segments: known.segments + 1 });
}

/** A started job takes no more recipients: its duplicate set is not needed again in this process. */
export function forgetAddressSet(caches: Pick<MailCaches, "addressSets">, jobId: string): void {
  caches.addressSets.delete(jobId);
}

async function readAddressSet(tx: Database, caches: Pick<MailCaches, "addressSets">, jobId: string): Promise<KnownAddressSet> {
  const [stored] = await tx
    .select({ segments: sql<number>`count(*)::int`, entries: sql<number>`coalesce(sum(${mailSendJobAddressSets.count}), 0)::int` })
    .from(mailSendJobAddressSets)
    .where(eq(mailSendJobAddressSets.sendJobId, jobId));
  const kept = caches.addressSets.get(jobId);
  if (kept && kept.segments === stored?.segments && kept.set.count === stored.entries) return kept;
  const rows = await tx.select().from(mailSendJobAddressSets).where(eq(mailSendJobAddressSets.sendJobId, jobId)).orderBy(mailSendJobAddressSets.seq);
  // Merged in place into one buffer of the stored size: no copy per segment.
  const set = rows.reduce((merged, row) => mergeAddressSets(merged, decodeAddressSet(row.entries, row.count)), emptyAddressSet(stored?.entries ?? 0));
  return { set, segments: rows.length };
}
