import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "../../db/client";
import { mailMessageEvents, mailMessages, mailSendJobChunks, mailSendJobs } from "../../db/schema";
import type { MailDeps } from "../deps";
import type { ProviderMessage } from "../provider/postmark";
import { providerReadiness } from "../setup/provider-config";
import { noteAcceptedLive } from "../usage/meter";
import { timeOrderedUuid } from "./ids";
import type { ChunkEntry } from "./recipients";
import { col, cols, queryRows } from "../../db/sql";
import { CANCELLED, completeJob, resumeUnderNewRun, type EngineDeps } from "./transitions";

/*
 * Reconciliation: what happened to messages whose provider call is in doubt (`unknown`: the answer was
 * lost, Postmark answered 5xx, or the worker died with the call in flight). Every provider call carries an
 * id in `Metadata` (a send job's batch id, a transactional mail's message id), and Postmark's Messages API
 * can be searched by it. What Postmark has is `accepted`, with its MessageID and the time it received it.
 * What it does not have once the grace period since the call is over (its search index lags behind the
 * send, so an early empty answer proves nothing) was never received:
 *   - a send job's recipient is `pending` again and goes out in a later batch (its address was kept for
 *     this), unless the job was cancelled or failed meanwhile (then `failed`);
 *   - a transactional mail is `failed` (its content is not kept; the customer got "outcome unknown" and
 *     can send again).
 * When Postmark cannot be asked (no answer, no valid token), nothing changes: the messages stay `unknown`
 * and the sweep asks again later. Nothing is ever sent twice: a message is sent again only after Postmark
 * said, past the grace period, that it does not have it.
 */

export const SEND_JOB_RECONCILE_TOPIC = "send-job-reconcile";
export const MESSAGE_RECONCILE_TOPIC = "message-reconcile";

const BatchRef = z.object({ job_id: z.uuid(), customer_id: z.uuid(), batch_id: z.uuid() });
const MessageRef = z.object({ message_id: z.uuid(), customer_id: z.uuid() });
type BatchRef = z.infer<typeof BatchRef>;
type MessageRef = z.infer<typeof MessageRef>;

export type ReconcileOutcome = "settled" | "waiting" | "unavailable" | "gone";

const NEVER_RECEIVED_TRANSACTIONAL = "Postmark never received this message, so it was not sent; send it again if it is still wanted.";
const NEVER_RECEIVED_SANDBOX = "The provider's answer was lost; in sandbox mode nothing is delivered, so nothing was lost.";
const NEVER_RECEIVED_JOB_ENDED = "Postmark never received this message and the job ended before it could be sent again.";

/** What reconciliation needs: the engine's core, the Messages API and the monthly meter it keeps current. */
export type ReconcileDeps = EngineDeps & Pick<MailDeps, "postmark" | "caches">;

const graceMs = (deps: EngineDeps) => deps.config.SEND_RECONCILE_GRACE_SECONDS * 1000;

/** Asks again once the grace period after `since` is over (at least a second from now). */
async function publishLater(deps: EngineDeps, topic: string, body: BatchRef | MessageRef, key: string, since: Date): Promise<void> {
  const delaySeconds = Math.max(1, Math.ceil((since.getTime() + graceMs(deps) - deps.clock.now().getTime()) / 1000));
  await deps.queue.publish(topic, body, { delaySeconds, deduplicationId: `${topic}-${key}-${since.getTime() + graceMs(deps)}` });
}

export async function publishBatchReconcile(deps: EngineDeps, ref: BatchRef): Promise<void> {
  await publishLater(deps, SEND_JOB_RECONCILE_TOPIC, ref, ref.batch_id, deps.clock.now());
}

export async function publishMessageReconcile(deps: EngineDeps, ref: MessageRef): Promise<void> {
  await publishLater(deps, MESSAGE_RECONCILE_TOPIC, ref, ref.message_id, deps.clock.now());
}

export function registerReconcileWorkers(deps: ReconcileDeps): void {
  deps.queue.register(SEND_JOB_RECONCILE_TOPIC, async (body) => {
    const ref = BatchRef.safeParse(body);
    if (ref.success) await reconcileBatch(deps, ref.data);
    else deps.logger.error("send-job reconcile: malformed descriptor dropped", { error: ref.error.message });
  });
  deps.queue.register(MESSAGE_RECONCILE_TOPIC, async (body) => {
    const ref = MessageRef.safeParse(body);
    if (ref.success) await reconcileMessage(deps, ref.data);
    else deps.logger.error("message reconcile: malformed descriptor dropped", { error: ref.error.message });
  });
}

/** The customer's live server token, or null while its provider configuration is not ready. */
async function liveServerToken(deps: EngineDeps, customerId: string): Promise<string | null> {
  const readiness = await providerReadiness(deps.db, deps.secrets, customerId);
  return readiness.ready ? readiness.credentials.serverToken : null;
}

/** What Postmark has with `Metadata[key] = value`, by our message id; null when it cannot be asked. */
async function askProvider(deps: ReconcileDeps, customerId: string, key: string, value: string): Promise<Map<string, ProviderMessage> | null> {
  const token = await liveServerToken(deps, customerId);
  if (token === null) {
    deps.logger.warn("reconciliation: the customer's Postmark configuration is not ready; asking again later", { customer_id: customerId });
    return null;
  }
  const answer = await deps.postmark.searchByMetadata(token, key, value);
  if (answer.kind === "unavailable") {
    deps.logger.warn("reconciliation: Postmark could not be asked; asking again later", { customer_id: customerId, reason: answer.message });
    return null;
  }
  const byMessage = new Map<string, ProviderMessage>();
  for (const message of answer.messages) {
    const id = message.metadata.message_id;
    if (typeof id === "string") byMessage.set(id, message);
  }
  return byMessage;
}

/** `unknown` → `accepted` with what Postmark says of each message, and their `accepted` events. */
async function acceptFound(
  tx: Database,
  customerId: string,
  found: { id: string; message: ProviderMessage }[],
  fallbackAt: Date,
): Promise<{ id: string; acceptedAt: Date }[]> {
  if (found.length === 0) return [];
  const m = mailMessages;
  const e = mailMessageEvents;
  return queryRows<{ id: string; acceptedAt: Date }>(
    tx,
    sql`with v as (
          select * from unnest(${sql.param(found.map((f) => f.id))}::uuid[], ${sql.param(found.map((f) => f.message.providerMessageId))}::text[],
                               ${sql.param(found.map((f) => (f.message.receivedAt ?? fallbackAt).toISOString()))}::timestamptz[],
                               ${sql.param(found.map(() => timeOrderedUuid()))}::uuid[]) as v(id, provider_message_id, accepted_at, event_id)
        ),
        accepted as (
          update ${m} target
          set ${col(m.status)} = 'accepted', ${col(m.providerMessageId)} = v.provider_message_id, ${col(m.acceptedAt)} = v.accepted_at, ${col(m.error)} = null
          from v where target.${col(m.id)} = v.id and target.${col(m.status)} = 'unknown'
          returning target.${col(m.id)} as id, target.${col(m.acceptedAt)} as accepted_at, v.event_id
        ),
        events as (
          insert into ${e} (${cols(e.id, e.messageId, e.customerId, e.type, e.occurredAt, e.identity, e.details)})
          select event_id, id, ${customerId}, 'accepted', accepted_at, 'send:accepted', '{"reconciled":true}'::jsonb from accepted
          on conflict do nothing
        )
        select id, accepted_at as "acceptedAt" from accepted`,
  );
}

/** `unknown` → `status` (`pending` again, or `failed` with `error`), with an event for a final state. */
async function settleMissing(tx: Database, customerId: string, ids: string[], status: "pending" | "failed", error: string | null, at: Date): Promise<number> {
  if (ids.length === 0) return 0;
  const changed = await tx
    .update(mailMessages)
    .set({ status, error })
    .where(and(inArray(mailMessages.id, ids), eq(mailMessages.status, "unknown")))
    .returning({ id: mailMessages.id });
  if (status === "failed" && changed.length > 0) {
    await tx
      .insert(mailMessageEvents)
      .values(
        changed.map((m) => ({
          id: timeOrderedUuid(),
          messageId: m.id,
          customerId,
          type: "failed",
          occurredAt: at,
          identity: "send:failed",
          details: { reason: error, reconciled: true },
        })),
      )
      .onConflictDoNothing();
  }
  return changed.length;
}

/**
 * Settles one send-job batch in doubt (see the top of this file). The batch's row of addresses holds the
 * recipients still in doubt; it is deleted once none is, or handed back to the job as an unclaimed row
 * when its recipients are `pending` again.
 */
export async function reconcileBatch(deps: ReconcileDeps, ref: BatchRef): Promise<ReconcileOutcome> {
  const { db } = deps;
  const ofBatch = and(eq(mailSendJobChunks.sendJobId, ref.job_id), eq(mailSendJobChunks.batchId, ref.batch_id));
  const [row] = await db
    .select({ recipients: mailSendJobChunks.recipients, claimedAt: mailSendJobChunks.claimedAt, mode: mailSendJobs.mode })
    .from(mailSendJobChunks)
    .innerJoin(mailSendJobs, eq(mailSendJobs.id, mailSendJobChunks.sendJobId))
    .where(and(ofBatch, eq(mailSendJobs.customerId, ref.customer_id)));
  if (!row) return "gone";
  const entries = JSON.parse(row.recipients) as ChunkEntry[];
  const states = await db
    .select({ id: mailMessages.id, status: mailMessages.status })
    .from(mailMessages)
    .where(
      and(
        inArray(
          mailMessages.id,
          entries.map((e) => e[0]),
        ),
        inArray(mailMessages.status, ["sending", "unknown"]),
      ),
    );
  // A message still `sending` has a worker that may yet record its answer (recovery marks lost ones unknown).
  if (states.some((s) => s.status === "sending")) return "waiting";
  const inDoubt = new Set(states.map((s) => s.id));
  if (inDoubt.size === 0) {
    // Settled meanwhile (a provider event told us Postmark had them): the addresses go, the job may end.
    await db.delete(mailSendJobChunks).where(ofBatch);
    await completeJob(deps, ref.job_id);
    return "settled";
  }

  const claimedAt = row.claimedAt ?? deps.clock.now();
  // Sandbox batches went out with Postmark's test token, which keeps and delivers nothing: sending one
  // again is harmless, and there is nothing to ask.
  const onProvider = row.mode === "sandbox" ? new Map<string, ProviderMessage>() : await askProvider(deps, ref.customer_id, "batch_id", ref.batch_id);
  if (onProvider === null) return "unavailable";
  const now = deps.clock.now();
  const pastGrace = row.mode === "sandbox" || now.getTime() - claimedAt.getTime() >= graceMs(deps);
  const found = [...inDoubt].flatMap((id) => {
    const message = onProvider.get(id);
    return message ? [{ id, message }] : [];
  });
  const missing = [...inDoubt].filter((id) => !onProvider.has(id));

  const settled = await db.transaction(async (tx) => {
    const [job] = await tx.select({ status: mailSendJobs.status }).from(mailSendJobs).where(eq(mailSendJobs.id, ref.job_id)).for("update");
    if (!job) return null;
    const accepted = await acceptFound(tx, ref.customer_id, found, claimedAt);
    const canResend = job.status === "running" || job.status === "paused";
    const error = job.status === "cancelled" ? CANCELLED : NEVER_RECEIVED_JOB_ENDED;
    const settledMissing = pastGrace ? await settleMissing(tx, ref.customer_id, missing, canResend ? "pending" : "failed", canResend ? null : error, now) : 0;
    const resent = canResend ? settledMissing : 0;
    const failed = canResend ? 0 : settledMissing;
    await tx
      .update(mailSendJobs)
      .set({
        accepted: sql`${mailSendJobs.accepted} + ${accepted.length}`,
        unknown: sql`${mailSendJobs.unknown} - ${accepted.length + settledMissing}`,
        pending: sql`${mailSendJobs.pending} + ${resent}`,
        failed: sql`${mailSendJobs.failed} + ${failed}`,
        updatedAt: now,
      })
      .where(eq(mailSendJobs.id, ref.job_id));
    const stillInDoubt = pastGrace ? [] : missing;
    if (resent > 0) {
      // The recipients Postmark never got go back to the job as an unclaimed row: a later batch sends them.
      const again = new Set(missing);
      await tx
        .update(mailSendJobChunks)
        .set({ recipients: JSON.stringify(entries.filter((e) => again.has(e[0]))), batchId: null, claimedAt: null })
        .where(ofBatch);
    } else if (stillInDoubt.length > 0) {
      const waiting = new Set(stillInDoubt);
      await tx
        .update(mailSendJobChunks)
        .set({ recipients: JSON.stringify(entries.filter((e) => waiting.has(e[0]))) })
        .where(ofBatch);
    } else {
      await tx.delete(mailSendJobChunks).where(ofBatch);
    }
    return { accepted: accepted.length, resent, failed, waiting: stillInDoubt.length, status: job.status };
  });
  if (!settled) return "gone";
  if (row.mode === "live" && settled.accepted > 0) noteAcceptedLive(deps, ref.customer_id, now, settled.accepted);
  deps.logger.info("send-job batch reconciled with the provider", { send_job_id: ref.job_id, batch_id: ref.batch_id, ...settled });
  if (settled.resent > 0 && settled.status === "running") await resumeUnderNewRun(deps, ref.job_id);
  else await completeJob(deps, ref.job_id);
  if (settled.waiting > 0) {
    await publishLater(deps, SEND_JOB_RECONCILE_TOPIC, ref, ref.batch_id, claimedAt);
    return "waiting";
  }
  return "settled";
}

/** Settles one transactional mail in doubt (see the top of this file). */
export async function reconcileMessage(deps: ReconcileDeps, ref: MessageRef): Promise<ReconcileOutcome> {
  const { db } = deps;
  const ofMessage = and(eq(mailMessages.id, ref.message_id), eq(mailMessages.customerId, ref.customer_id), isNull(mailMessages.sendJobId));
  const [message] = await db
    .select({ status: mailMessages.status, mode: mailMessages.mode, createdAt: mailMessages.createdAt })
    .from(mailMessages)
    .where(ofMessage);
  if (!message) return "gone";
  if (message.status === "sending") return "waiting";
  if (message.status !== "unknown") return "settled";
  const now = deps.clock.now();
  if (message.mode === "sandbox") {
    await db.transaction((tx) => settleMissing(tx, ref.customer_id, [ref.message_id], "failed", NEVER_RECEIVED_SANDBOX, now));
    return "settled";
  }
  const onProvider = await askProvider(deps, ref.customer_id, "message_id", ref.message_id);
  if (onProvider === null) return "unavailable";
  const found = onProvider.get(ref.message_id);
  if (found) {
    const accepted = await db.transaction((tx) => acceptFound(tx, ref.customer_id, [{ id: ref.message_id, message: found }], message.createdAt));
    if (accepted.length > 0) noteAcceptedLive(deps, ref.customer_id, now, 1);
    return "settled";
  }
  if (now.getTime() - message.createdAt.getTime() >= graceMs(deps)) {
    await db.transaction((tx) => settleMissing(tx, ref.customer_id, [ref.message_id], "failed", NEVER_RECEIVED_TRANSACTIONAL, now));
    return "settled";
  }
  await publishLater(deps, MESSAGE_RECONCILE_TOPIC, ref, ref.message_id, message.createdAt);
  return "waiting";
}
