import { and, eq, inArray, isNull, lte, sql } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "../../db/client";
import { mailMessageEvents, mailMessageExtraCopies, mailMessageRechecks, mailMessages, mailSendJobRechecks, mailSendJobs } from "../../db/schema";
import type { ProviderMessage } from "../provider/postmark";
import { providerReadiness } from "../setup/provider-config";
import { recordAcceptedLive } from "../usage/meter";
import { lockMessagesInOrder } from "./batch-store";
import { timeOrderedUuid } from "./ids";
import { askInterval, graceMs } from "./provider-health";
import { completeJob, type EngineDeps } from "./transitions";
import type { MailDeps } from "../deps";

type ReconcileDeps = EngineDeps & Pick<MailDeps, "postmark" | "caches">;

/*
 * Late truth: Postmark's own record wins over reconciliation's decision. A batch in doubt whose messages
 * were decided "never received" (./reconcile.ts: sent again, or failed after their second hand-over) rests
 * on an assumption about how long Postmark can hold a call (./provider-health.ts). Should Postmark take
 * the original call in later after all, its search shows the message under the original batch id, and
 * that is recorded as it is:
 *   - a message sent again and accepted: Postmark has it twice. It stays `accepted`, the second copy is
 *     recorded (`mail_message_extra_copies`: usage and billing count it, as Postmark does) and the job's
 *     `sent_twice` counts the recipient;
 *   - a message `failed` after its second hand-over, or because its job ended before the re-send:
 *     `accepted` (the job's `failed` becomes `accepted`), counted once;
 *   - a message still `pending` for its re-send: `accepted` now, and the re-send skips it.
 * A transactional mail decided "never received" (`failed`: the customer was told "outcome unknown", and
 * may have sent it again under a new key) is watched too, under its own message id: found late, it
 * becomes `accepted` with Postmark's MessageID and an `accepted` event (`late: true`), and usage counts
 * it. A mail the customer sent again is a message of its own, so both count, as Postmark counts them.
 * The original call is asked about for `SEND_RECONCILE_LIMIT_HOURS` after the decision, at growing
 * intervals (from the asking interval, doubling, at most an hour): by the queue, and by the
 * `send-jobs-sweep` for rows whose asking is due (a lost queue message, a restart).
 */

const SEND_JOB_RECHECK_TOPIC = "send-job-recheck";
const MESSAGE_RECHECK_TOPIC = "message-recheck";

const RecheckRef = z.object({ job_id: z.uuid(), customer_id: z.uuid(), batch_id: z.uuid() });
type RecheckRef = z.infer<typeof RecheckRef>;
const MessageRecheckRef = z.object({ message_id: z.uuid(), customer_id: z.uuid() });
type MessageRecheckRef = z.infer<typeof MessageRecheckRef>;

const MAX_RECHECK_INTERVAL_MS = 3_600_000;
/** Rows of due askings the sweep takes at once; the next sweep takes the rest. */
const RECHECKS_PER_SWEEP = 100;

/** The delay before asking number `checks` (0: the first). */
function recheckDelayMs(deps: Pick<ReconcileDeps, "config">, checks: number): number {
  return Math.min(MAX_RECHECK_INTERVAL_MS, askInterval(graceMs(deps)) * 2 ** Math.min(checks, 30));
}

/**
 * Written in the transaction that decides the batch's messages "never received": `ids` are watched under
 * the original batch id. The first asking is published by `publishRecheck` after the commit.
 */
export async function watchForLateTruth(tx: Database, deps: Pick<ReconcileDeps, "config">, ref: RecheckRef, ids: readonly string[], now: Date): Promise<void> {
  if (ids.length === 0) return;
  await tx
    .insert(mailSendJobRechecks)
    .values({
      sendJobId: ref.job_id,
      batchId: ref.batch_id,
      customerId: ref.customer_id,
      messageIds: JSON.stringify([...ids]),
      checkAfter: new Date(now.getTime() + recheckDelayMs(deps, 0)),
      until: new Date(now.getTime() + deps.config.SEND_RECONCILE_LIMIT_HOURS * 3_600_000),
    })
    .onConflictDoUpdate({
      target: [mailSendJobRechecks.sendJobId, mailSendJobRechecks.batchId],
      set: { messageIds: JSON.stringify([...ids]) },
    });
}

export async function publishRecheck(deps: Pick<ReconcileDeps, "queue" | "clock" | "config">, ref: RecheckRef, checks: number): Promise<void> {
  const delay = recheckDelayMs(deps, checks);
  await deps.queue.publish(SEND_JOB_RECHECK_TOPIC, ref, {
    delaySeconds: Math.max(1, Math.ceil(delay / 1000)),
    deduplicationId: `${SEND_JOB_RECHECK_TOPIC}-${ref.batch_id}-${checks}`,
  });
}

export function registerRecheckWorker(deps: ReconcileDeps): void {
  deps.queue.register(SEND_JOB_RECHECK_TOPIC, async (body) => {
    const ref = RecheckRef.safeParse(body);
    if (ref.success) await recheckBatch(deps, ref.data);
    else deps.logger.error("send-job recheck: malformed descriptor dropped", { error: ref.error.message });
  });
  deps.queue.register(MESSAGE_RECHECK_TOPIC, async (body) => {
    const ref = MessageRecheckRef.safeParse(body);
    if (ref.success) await recheckMessage(deps, ref.data);
    else deps.logger.error("message recheck: malformed descriptor dropped", { error: ref.error.message });
  });
}

/**
 * Written in the transaction that decides a transactional mail "never received"; the first asking is
 * published by `publishMessageRecheck` after the commit.
 */
export async function watchMessageForLateTruth(tx: Database, deps: Pick<ReconcileDeps, "config">, ref: MessageRecheckRef, now: Date): Promise<void> {
  await tx
    .insert(mailMessageRechecks)
    .values({
      messageId: ref.message_id,
      customerId: ref.customer_id,
      checkAfter: new Date(now.getTime() + recheckDelayMs(deps, 0)),
      until: new Date(now.getTime() + deps.config.SEND_RECONCILE_LIMIT_HOURS * 3_600_000),
    })
    .onConflictDoNothing();
}

export async function publishMessageRecheck(deps: Pick<ReconcileDeps, "queue" | "clock" | "config">, ref: MessageRecheckRef, checks: number): Promise<void> {
  const delay = recheckDelayMs(deps, checks);
  await deps.queue.publish(MESSAGE_RECHECK_TOPIC, ref, {
    delaySeconds: Math.max(1, Math.ceil(delay / 1000)),
    deduplicationId: `${MESSAGE_RECHECK_TOPIC}-${ref.message_id}-${checks}`,
  });
}

/**
 * The `accepted` event of a message Postmark shows received after it was decided never received: at the time
 * Postmark received it, marked late. Its identity is the acceptance's own, so a message gets one.
 */
async function recordLateAcceptance(tx: Database, messageId: string, customerId: string, receivedAt: Date): Promise<void> {
  await tx
    .insert(mailMessageEvents)
    .values({
      id: timeOrderedUuid(),
      messageId,
      customerId,
      type: "accepted",
      occurredAt: receivedAt,
      identity: "send:accepted",
      details: { reconciled: true, late: true },
    })
    .onConflictDoNothing();
}

/**
 * Asks Postmark's search about a transactional mail decided "never received" (see the top of this file).
 * Answers whether it was found now, or null when it is not watched (any more).
 */
async function recheckMessage(deps: ReconcileDeps, ref: MessageRecheckRef): Promise<{ accepted: boolean; watching: boolean } | null> {
  const { db } = deps;
  const ofRow = and(eq(mailMessageRechecks.messageId, ref.message_id), eq(mailMessageRechecks.customerId, ref.customer_id));
  const [row] = await db.select().from(mailMessageRechecks).where(ofRow);
  if (!row) return null;
  const [message] = await db
    .select({ status: mailMessages.status, mode: mailMessages.mode })
    .from(mailMessages)
    .where(and(eq(mailMessages.id, ref.message_id), eq(mailMessages.customerId, ref.customer_id), isNull(mailMessages.sendJobId)));
  const now = deps.clock.now();
  const watched = message?.status === "failed";
  const readiness = watched ? await providerReadiness(db, deps.secrets, ref.customer_id) : null;
  const answer = readiness?.ready ? await deps.postmark.searchByMetadata(readiness.credentials.serverToken, "message_id", ref.message_id) : null;
  const found = answer?.kind === "answered" ? answer.messages.find((m) => m.metadata.message_id === ref.message_id) : undefined;
  const last = !watched || now.getTime() >= row.until.getTime();
  const settle = () =>
    db.transaction(async (tx) => {
      let accepted = false;
      if (found) {
        const receivedAt = found.receivedAt ?? now;
        // Only from `failed`: the conditional update is the lock, so a second asking never counts it twice.
        const changed = await tx
          .update(mailMessages)
          .set({ status: "accepted", providerMessageId: found.providerMessageId, acceptedAt: receivedAt, error: null })
          .where(and(eq(mailMessages.id, ref.message_id), eq(mailMessages.status, "failed")))
          .returning({ id: mailMessages.id });
        if (changed.length > 0) {
          accepted = true;
          await recordLateAcceptance(tx, ref.message_id, ref.customer_id, receivedAt);
        }
      }
      const watching = !accepted && !last;
      if (watching) {
        await tx
          .update(mailMessageRechecks)
          .set({ checks: row.checks + 1, checkAfter: new Date(now.getTime() + recheckDelayMs(deps, row.checks + 1)) })
          .where(ofRow);
      } else await tx.delete(mailMessageRechecks).where(ofRow);
      return { accepted, watching };
    });
  // Billing follows Postmark: a mail found after it was given up counts.
  const outcome = await recordAcceptedLive(deps, ref.customer_id, now, settle, (o) => (o.accepted && message?.mode === "live" ? 1 : 0));
  if (outcome.accepted) {
    deps.logger.warn("transactional mail: Postmark's search showed late that it received a mail decided as never received; now accepted", {
      message_id: ref.message_id,
      customer_id: ref.customer_id,
      provider_message_id: found?.providerMessageId ?? null,
    });
  }
  if (outcome.watching) await publishMessageRecheck(deps, ref, row.checks + 1);
  return outcome;
}

/** What one asking recorded. */
type LateTruth = { twice: number; accepted: number; fromFailed: number; fromPending: number; watched: number };

/** Asks Postmark's search about the original call of a batch decided "never received" (see the top of this file). */
async function recheckBatch(deps: ReconcileDeps, ref: RecheckRef): Promise<LateTruth | null> {
  const { db } = deps;
  const ofRow = and(
    eq(mailSendJobRechecks.sendJobId, ref.job_id),
    eq(mailSendJobRechecks.batchId, ref.batch_id),
    eq(mailSendJobRechecks.customerId, ref.customer_id),
  );
  const [row] = await db.select().from(mailSendJobRechecks).where(ofRow);
  if (!row) return null;
  const [job] = await db.select({ mode: mailSendJobs.mode }).from(mailSendJobs).where(eq(mailSendJobs.id, ref.job_id));
  const now = deps.clock.now();
  const readiness = job ? await providerReadiness(db, deps.secrets, ref.customer_id) : null;
  const answer = readiness?.ready ? await deps.postmark.searchByMetadata(readiness.credentials.serverToken, "batch_id", ref.batch_id) : null;
  const ids = JSON.parse(row.messageIds) as string[];
  const found = new Map<string, ProviderMessage>();
  if (answer?.kind === "answered") {
    for (const message of answer.messages) {
      const id = message.metadata.message_id;
      if (typeof id === "string" && ids.includes(id)) found.set(id, message);
    }
  }
  const last = !job || now.getTime() >= row.until.getTime();
  const settle = () =>
    db.transaction(async (tx) => {
      const truth: LateTruth = { twice: 0, accepted: 0, fromFailed: 0, fromPending: 0, watched: 0 };
      const resolved = new Set<string>();
      if (found.size > 0 && job) {
        await lockMessagesInOrder(tx, [...found.keys()]);
        const states = await tx
          .select({ id: mailMessages.id, status: mailMessages.status, providerMessageId: mailMessages.providerMessageId })
          .from(mailMessages)
          .where(inArray(mailMessages.id, [...found.keys()]));
        for (const state of states) {
          const message = found.get(state.id);
          if (!message) continue;
          const receivedAt = message.receivedAt ?? now;
          if (state.status === "accepted") {
            resolved.add(state.id);
            if (state.providerMessageId === message.providerMessageId) continue;
            const copy = await tx
              .insert(mailMessageExtraCopies)
              .values({
                providerMessageId: message.providerMessageId,
                messageId: state.id,
                customerId: ref.customer_id,
                sendJobId: ref.job_id,
                mode: job.mode,
                acceptedAt: receivedAt,
              })
              .onConflictDoNothing()
              .returning({ id: mailMessageExtraCopies.providerMessageId });
            truth.twice += copy.length;
          } else if (state.status === "failed" || state.status === "pending") {
            resolved.add(state.id);
            await tx
              .update(mailMessages)
              .set({ status: "accepted", providerMessageId: message.providerMessageId, acceptedAt: receivedAt, error: null })
              .where(eq(mailMessages.id, state.id));
            await recordLateAcceptance(tx, state.id, ref.customer_id, receivedAt);
            if (state.status === "failed") truth.fromFailed++;
            else truth.fromPending++;
          }
          // `sending` or `unknown`: the re-send is in flight or in doubt itself; asked again.
        }
        truth.accepted = truth.fromFailed + truth.fromPending;
        if (truth.twice + truth.accepted > 0) {
          await tx
            .update(mailSendJobs)
            .set({
              accepted: sql`${mailSendJobs.accepted} + ${truth.accepted}`,
              failed: sql`${mailSendJobs.failed} - ${truth.fromFailed}`,
              pending: sql`${mailSendJobs.pending} - ${truth.fromPending}`,
              sentTwice: sql`${mailSendJobs.sentTwice} + ${truth.twice}`,
              updatedAt: now,
            })
            .where(eq(mailSendJobs.id, ref.job_id));
        }
      }
      const still = ids.filter((id) => !resolved.has(id));
      truth.watched = last ? 0 : still.length;
      if (truth.watched === 0) await tx.delete(mailSendJobRechecks).where(ofRow);
      else {
        await tx
          .update(mailSendJobRechecks)
          .set({ messageIds: JSON.stringify(still), checks: row.checks + 1, checkAfter: new Date(now.getTime() + recheckDelayMs(deps, row.checks + 1)) })
          .where(ofRow);
      }
      return truth;
    });
  // Billing follows Postmark: a second copy counts, and so does a message found after it was given up.
  const truth = await recordAcceptedLive(deps, ref.customer_id, now, settle, (t) => (job?.mode === "live" ? t.twice + t.accepted : 0));
  if (truth.twice + truth.accepted > 0) {
    deps.logger.warn("send job: Postmark's search showed late that it received messages decided as never received; recorded as Postmark has them", {
      send_job_id: ref.job_id,
      batch_id: ref.batch_id,
      sent_twice: truth.twice,
      accepted_late: truth.accepted,
    });
  }
  if (truth.fromPending > 0) await completeJob(deps, ref.job_id);
  if (truth.watched > 0) await publishRecheck(deps, ref, row.checks + 1);
  return truth;
}

/** The sweep's share: batches and transactional mails whose asking is due (their queue message lost, or the process restarted). */
export async function recheckDue(deps: ReconcileDeps, now: Date, customerId?: string): Promise<number> {
  const due = await deps.db
    .select({ job_id: mailSendJobRechecks.sendJobId, customer_id: mailSendJobRechecks.customerId, batch_id: mailSendJobRechecks.batchId })
    .from(mailSendJobRechecks)
    .where(and(lte(mailSendJobRechecks.checkAfter, now), customerId ? eq(mailSendJobRechecks.customerId, customerId) : undefined))
    .orderBy(mailSendJobRechecks.checkAfter)
    .limit(RECHECKS_PER_SWEEP);
  for (const ref of due) await recheckBatch(deps, ref);
  const dueMessages = await deps.db
    .select({ message_id: mailMessageRechecks.messageId, customer_id: mailMessageRechecks.customerId })
    .from(mailMessageRechecks)
    .where(and(lte(mailMessageRechecks.checkAfter, now), customerId ? eq(mailMessageRechecks.customerId, customerId) : undefined))
    .orderBy(mailMessageRechecks.checkAfter)
    .limit(RECHECKS_PER_SWEEP);
  for (const ref of dueMessages) await recheckMessage(deps, ref);
  return due.length + dueMessages.length;
}
