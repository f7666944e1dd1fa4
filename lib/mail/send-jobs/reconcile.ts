import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "../../db/client";
import { mailMessageEvents, mailMessages, mailSendJobChunks, mailSendJobs } from "../../db/schema";
import type { MailDeps } from "../deps";
import type { ProviderMessage } from "../provider/postmark";
import { providerReadiness } from "../setup/provider-config";
import { formatMailbox } from "../sending/address";
import type { SenderRecord } from "../../db/schema/mail";
import { publishMessageRecheck, publishRecheck, watchForLateTruth, watchMessageForLateTruth } from "./late-truth";
import { askInterval, evidenceFor, graceMs, type CallInDoubt, type Deadline } from "./provider-health";
import { recordAcceptedLive } from "../usage/meter";
import { lockMessagesInOrder, MAX_HANDOVERS } from "./batch-store";
import { timeOrderedUuid } from "./ids";
import type { ChunkEntry } from "./recipients";
import { col, cols, queryRows } from "../../db/sql";
import { CANCELLED, completeJob, resumeUnderNewRun, type EngineDeps } from "./transitions";

/*
 * Reconciliation: what happened to messages whose provider call is in doubt (`unknown`: the answer was
 * lost, Postmark answered 5xx, or the worker died with the call in flight, i.e. its lease expired: a slow
 * call whose worker still renews its lease is in flight, never in doubt). Every provider call carries an id
 * in `Metadata` (a send job's batch id, a transactional mail's message id), and Postmark's Messages API can
 * be searched by it. What Postmark has is `accepted`, with its MessageID and the time it received it.
 *
 * "Absent from the search" is not proof: the search is an index that lags behind the send, by minutes in an
 * incident, and a stalled Postmark may still take in a call whose connection closed long ago. A message is
 * taken as never received only on EVIDENCE that nothing of the call can still arrive (./provider-health.ts;
 * the design: docs/adr/0061-exactly-once-when-the-provider-stalls.md): Postmark has answered the customer's
 * calls promptly for longer than the call can have been held (at least the grace period,
 * `SEND_RECONCILE_GRACE_SECONDS`) and its search shows a message received after that (the server's own
 * traffic, or on a quiet server the service's probes). The evidence is asked for first and the call searched
 * for second, so the search that finds nothing covers everything received until then. What the search shows
 * is accepted at once, evidence or not.
 * Never received, then:
 *   - a send job's recipient is `pending` again and goes out in a later batch (its address was kept for
 *     this), unless it was handed over twice already or the job ended meanwhile (then `failed`);
 *   - a transactional mail is `failed` (the customer got "outcome unknown" and can send again); it is
 *     asked about again for a while, and becomes `accepted` should Postmark show it late (./late-truth.ts).
 * Without evidence nothing changes and the message is asked about again later (a queued message, and the
 * `send-jobs-sweep` cron every minute); it is never re-sent on a timer. Evidence after the second
 * hand-over makes a missing message `failed` (never a third hand-over); a message that stays in doubt past
 * `SEND_RECONCILE_LIMIT_HOURS` ends `unknown` for good (its job counts it in `unknown` and may complete; a
 * provider event still settles it). When Postmark cannot be
 * asked (no answer, no valid token), nothing changes.
 */

export const SEND_JOB_RECONCILE_TOPIC = "send-job-reconcile";
const MESSAGE_RECONCILE_TOPIC = "message-reconcile";

const BatchRef = z.object({ job_id: z.uuid(), customer_id: z.uuid(), batch_id: z.uuid() });
const MessageRef = z.object({ message_id: z.uuid(), customer_id: z.uuid() });
type BatchRef = z.infer<typeof BatchRef>;
type MessageRef = z.infer<typeof MessageRef>;

export type ReconcileOutcome = "settled" | "waiting" | "unavailable" | "gone";

/** The error of a message whose outcome stays unknown for good; reconciliation asks about it no more. */
export const UNKNOWN_FOR_GOOD =
  "Postmark could neither confirm nor deny receiving this message within the reconciliation limits; it is not sent again. A provider event may still settle it.";
/** A transactional call is over this long after it started (the client's time-out). */
const TRANSACTIONAL_CALL_MS = 20_000;

const NEVER_RECEIVED_TRANSACTIONAL = "Postmark never received this message, so it was not sent; send it again if it is still wanted.";
const NEVER_RECEIVED_SANDBOX = "The provider's answer was lost; in sandbox mode nothing is delivered, so nothing was lost.";
const NEVER_RECEIVED_JOB_ENDED = "Postmark never received this message and the job ended before it could be sent again.";
const NEVER_RECEIVED_TWICE = "Postmark never received this message, handed over twice; it is not sent a third time.";

/** What reconciliation needs: the engine's core, the Messages API and the monthly meter it keeps current. */
export type ReconcileDeps = EngineDeps & Pick<MailDeps, "postmark" | "caches" | "priority">;

const limitMs = (deps: Pick<EngineDeps, "config">) => deps.config.SEND_RECONCILE_LIMIT_HOURS * 3_600_000;

/**
 * Asks again every quarter of the grace (1 s – 5 min): the evidence (./provider-health.ts) decides, so a
 * quiet server's probes start within an interval of the doubt. The deduplication id names the moment
 * rounded to that interval, so the queue, the sweep and start-up asking about the same call merge into one
 * chain of messages.
 */
async function publishLater(deps: EngineDeps, topic: string, body: BatchRef | MessageRef, key: string): Promise<void> {
  const every = askInterval(graceMs(deps));
  const due = Math.ceil((deps.clock.now().getTime() + every) / every) * every;
  await deps.queue.publish(topic, body, { delaySeconds: Math.max(1, Math.ceil(every / 1000)), deduplicationId: `${topic}-${key}-${due}` });
}

export async function publishBatchReconcile(deps: EngineDeps, ref: BatchRef): Promise<void> {
  await publishLater(deps, SEND_JOB_RECONCILE_TOPIC, ref, ref.batch_id);
}

export async function publishMessageReconcile(deps: EngineDeps, ref: MessageRef): Promise<void> {
  await publishLater(deps, MESSAGE_RECONCILE_TOPIC, ref, ref.message_id);
}

export function registerReconcileWorkers(deps: ReconcileDeps): void {
  deps.queue.register(SEND_JOB_RECONCILE_TOPIC, async (body) => {
    const ref = BatchRef.safeParse(body);
    if (ref.success) await deps.priority.asBackgroundWork(() => reconcileBatch(deps, ref.data));
    else deps.logger.error("send-job reconcile: malformed descriptor dropped", { error: ref.error.message });
  });
  deps.queue.register(MESSAGE_RECONCILE_TOPIC, async (body) => {
    const ref = MessageRef.safeParse(body);
    if (ref.success) await reconcileMessage(deps, ref.data);
    else deps.logger.error("message reconcile: malformed descriptor dropped", { error: ref.error.message });
  });
}

/**
 * What Postmark has with `Metadata[key] = value`, by our message id, and whether its search is shown
 * current past everything the call in doubt can still become (./provider-health.ts: the evidence, asked
 * first, so the search that finds nothing covers it); null when it cannot be asked. `from` and `stream`
 * route the probes a server without other traffic needs: the call's sender (null: the customer's default)
 * and stream.
 */
async function askProvider(
  deps: ReconcileDeps,
  customerId: string,
  lookup: { key: string; value: string; stream: "broadcast" | "transactional"; from: SenderRecord | null },
  call: CallInDoubt,
): Promise<{ found: Map<string, ProviderMessage>; current: boolean; reason: string; deadline: Deadline | null } | null> {
  const readiness = await providerReadiness(deps.db, deps.secrets, customerId);
  if (!readiness.ready) {
    deps.logger.warn("reconciliation: the customer's Postmark configuration is not ready; asking again later", { customer_id: customerId });
    return null;
  }
  const { credentials } = readiness;
  const token = credentials.serverToken;
  const sender = lookup.from ?? credentials.defaultTransactionalFrom ?? credentials.defaultNewsletterFrom;
  const route = sender
    ? {
        from: formatMailbox(sender.email, sender.name),
        stream: lookup.stream === "broadcast" ? credentials.broadcastStream : credentials.transactionalStream,
      }
    : null;
  const evidence = await evidenceFor(deps, customerId, token, route, call);
  if (evidence.kind === "unavailable") {
    deps.logger.warn("reconciliation: Postmark could not be asked; asking again later", { customer_id: customerId, reason: evidence.reason });
    return null;
  }
  const answer = await deps.postmark.searchByMetadata(token, lookup.key, lookup.value);
  if (answer.kind === "unavailable") {
    deps.logger.warn("reconciliation: Postmark could not be asked; asking again later", { customer_id: customerId, reason: answer.message });
    return null;
  }
  const byMessage = new Map<string, ProviderMessage>();
  for (const message of answer.messages) {
    const id = message.metadata.message_id;
    if (typeof id === "string") byMessage.set(id, message);
  }
  const reason = evidence.kind === "waiting" ? evidence.reason : "the search is current";
  return {
    found: byMessage,
    current: evidence.kind === "current",
    reason: route ? reason : `${reason} (no sender to probe with)`,
    deadline: evidence.deadline,
  };
}

/** A call in doubt for longer than this is logged as a warning at every asking, with its id. */
const LONG_IN_DOUBT_MS = 60_000;

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

/** `unknown` for good: reconciliation asks about these no more (see `UNKNOWN_FOR_GOOD`). */
async function giveUp(tx: Database, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const changed = await tx
    .update(mailMessages)
    .set({ error: UNKNOWN_FOR_GOOD })
    .where(and(inArray(mailMessages.id, ids), eq(mailMessages.status, "unknown")))
    .returning({ id: mailMessages.id });
  return changed.length;
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
    .select({
      recipients: mailSendJobChunks.recipients,
      claimedAt: mailSendJobChunks.claimedAt,
      leaseUntil: mailSendJobChunks.leaseUntil,
      evidenceFrom: mailSendJobChunks.evidenceFrom,
      evidenceAfter: mailSendJobChunks.evidenceAfter,
      mode: mailSendJobs.mode,
      from: mailSendJobs.from,
    })
    .from(mailSendJobChunks)
    .innerJoin(mailSendJobs, eq(mailSendJobs.id, mailSendJobChunks.sendJobId))
    .where(and(ofBatch, eq(mailSendJobs.customerId, ref.customer_id)));
  if (!row) return "gone";
  const entries = JSON.parse(row.recipients) as ChunkEntry[];
  const states = await db
    .select({ id: mailMessages.id, status: mailMessages.status, attempts: mailMessages.attempts })
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
  // A message still `sending` has a worker that may yet record its answer (recovery marks it unknown once
  // the claim's lease has expired).
  if (states.some((s) => s.status === "sending")) return "waiting";
  const inDoubt = new Map(states.map((s) => [s.id, s.attempts]));
  if (inDoubt.size === 0) {
    // Settled meanwhile (a provider event told us Postmark had them): the addresses go, the job may end.
    await db.delete(mailSendJobChunks).where(ofBatch);
    await completeJob(deps, ref.job_id);
    return "settled";
  }

  const now = deps.clock.now();
  const doubtSince = row.leaseUntil ?? row.claimedAt ?? now;
  // Sandbox batches went out with Postmark's test token, which keeps and delivers nothing: sending one
  // again is harmless, and there is nothing to ask.
  const asked =
    row.mode === "sandbox"
      ? { found: new Map<string, ProviderMessage>(), current: true, reason: "sandbox", deadline: null }
      : await askProvider(
          deps,
          ref.customer_id,
          { key: "batch_id", value: ref.batch_id, stream: "broadcast", from: row.from },
          {
            startedAt: row.claimedAt ?? doubtSince,
            doubtSince,
            deadline: row.evidenceFrom && row.evidenceAfter ? { from: row.evidenceFrom, after: row.evidenceAfter } : null,
          },
        );
  if (asked === null) return "unavailable";
  // The call's deadline, stored once computed (a later asking, in this process or after a restart, starts from it).
  if (asked.deadline && (asked.deadline.from.getTime() !== row.evidenceFrom?.getTime() || asked.deadline.after.getTime() !== row.evidenceAfter?.getTime())) {
    await db.update(mailSendJobChunks).set({ evidenceFrom: asked.deadline.from, evidenceAfter: asked.deadline.after }).where(ofBatch);
  }
  const found = [...inDoubt.keys()].flatMap((id) => {
    const message = asked.found.get(id);
    return message ? [{ id, message }] : [];
  });
  const missing = [...inDoubt.keys()].filter((id) => !asked.found.has(id));
  const neverReceived = asked.current ? missing : [];
  // Without evidence: asked again later (also after the second hand-over, which can never be followed by
  // a third), until the limit has passed.
  const pastLimit = now.getTime() - doubtSince.getTime() >= limitMs(deps);
  const undecided = asked.current ? [] : missing;
  const givenUp = pastLimit ? undecided : [];
  const stillInDoubt = pastLimit ? [] : undecided;

  const settle = () =>
    db.transaction(async (tx) => {
      // The messages, the job, then the row of addresses: the order of the batch's record (`lockMessagesInOrder`).
      await lockMessagesInOrder(tx, [...inDoubt.keys()]);
      const [job] = await tx.select({ status: mailSendJobs.status }).from(mailSendJobs).where(eq(mailSendJobs.id, ref.job_id)).for("update");
      if (!job) return null;
      const accepted = await acceptFound(tx, ref.customer_id, found, row.claimedAt ?? now);
      const canResend = job.status === "running" || job.status === "paused";
      const again = neverReceived.filter((id) => canResend && (inDoubt.get(id) ?? 0) < MAX_HANDOVERS);
      const ended = neverReceived.filter((id) => !again.includes(id));
      const resent = await settleMissing(tx, ref.customer_id, again, "pending", null, now);
      // Not received and not sent again: the job ended meanwhile, or the message was handed over twice already.
      const endedError = canResend ? NEVER_RECEIVED_TWICE : job.status === "cancelled" ? CANCELLED : NEVER_RECEIVED_JOB_ENDED;
      const failed = await settleMissing(tx, ref.customer_id, ended, "failed", endedError, now);
      // Decided on an assumption about how long Postmark holds a call: the original call is asked about
      // again for a while, and what Postmark shows late is recorded (./late-truth.ts).
      const watched = row.mode === "live" ? [...again, ...ended] : [];
      await watchForLateTruth(tx, deps, ref, watched, now);
      const unknownForGood = await giveUp(tx, givenUp);
      await tx
        .update(mailSendJobs)
        .set({
          accepted: sql`${mailSendJobs.accepted} + ${accepted.length}`,
          unknown: sql`${mailSendJobs.unknown} - ${accepted.length + resent + failed}`,
          pending: sql`${mailSendJobs.pending} + ${resent}`,
          failed: sql`${mailSendJobs.failed} + ${failed}`,
          updatedAt: now,
        })
        .where(eq(mailSendJobs.id, ref.job_id));
      if (resent > 0) {
        // The recipients Postmark never got go back to the job as an unclaimed row: a later batch sends them.
        const back = new Set(again);
        await tx
          .update(mailSendJobChunks)
          .set({
            recipients: JSON.stringify(entries.filter((e) => back.has(e[0]))),
            batchId: null,
            claimedAt: null,
            leaseUntil: null,
            evidenceFrom: null,
            evidenceAfter: null,
          })
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
      return {
        accepted: accepted.length,
        resent,
        failed,
        unknown_for_good: unknownForGood,
        waiting: stillInDoubt.length,
        watched: watched.length,
        status: job.status,
      };
    });
  const settled = await recordAcceptedLive(deps, ref.customer_id, now, settle, (s) => (row.mode === "live" ? (s?.accepted ?? 0) : 0));
  if (!settled) return "gone";
  deps.logger.info("send-job batch reconciled with the provider", { send_job_id: ref.job_id, batch_id: ref.batch_id, ...settled });
  if (settled.watched > 0) await publishRecheck(deps, ref, 0);
  if (settled.unknown_for_good > 0) {
    deps.logger.warn("send job: messages end `unknown` for good (Postmark's search never showed whether it has them)", {
      send_job_id: ref.job_id,
      batch_id: ref.batch_id,
      unknown: settled.unknown_for_good,
    });
  }
  if (settled.resent > 0 && settled.status === "running") await resumeUnderNewRun(deps, ref.job_id);
  else await completeJob(deps, ref.job_id);
  if (settled.waiting > 0) {
    if (now.getTime() - doubtSince.getTime() >= LONG_IN_DOUBT_MS) {
      deps.logger.warn("send job: a batch has been in doubt for over a minute", {
        send_job_id: ref.job_id,
        batch_id: ref.batch_id,
        in_doubt: settled.waiting,
        in_doubt_seconds: Math.round((now.getTime() - doubtSince.getTime()) / 1000),
        waiting_for: asked.reason,
      });
    }
    await publishLater(deps, SEND_JOB_RECONCILE_TOPIC, ref, ref.batch_id);
    return "waiting";
  }
  return "settled";
}

/** Settles one transactional mail in doubt (see the top of this file). */
export async function reconcileMessage(deps: ReconcileDeps, ref: MessageRef): Promise<ReconcileOutcome> {
  const { db } = deps;
  const ofMessage = and(eq(mailMessages.id, ref.message_id), eq(mailMessages.customerId, ref.customer_id), isNull(mailMessages.sendJobId));
  const [message] = await db
    .select({ status: mailMessages.status, mode: mailMessages.mode, createdAt: mailMessages.createdAt, error: mailMessages.error })
    .from(mailMessages)
    .where(ofMessage);
  if (!message) return "gone";
  if (message.status === "sending") return "waiting";
  if (message.status !== "unknown" || message.error === UNKNOWN_FOR_GOOD) return "settled";
  const now = deps.clock.now();
  if (message.mode === "sandbox") {
    await db.transaction((tx) => settleMissing(tx, ref.customer_id, [ref.message_id], "failed", NEVER_RECEIVED_SANDBOX, now));
    return "settled";
  }
  const doubtSince = new Date(message.createdAt.getTime() + TRANSACTIONAL_CALL_MS);
  const asked = await askProvider(
    deps,
    ref.customer_id,
    { key: "message_id", value: ref.message_id, stream: "transactional", from: null },
    // A transactional call's end is fixed by its time-out, and restarts record nothing: its deadline comes
    // out the same at every asking until Postmark stalls again, so it is not stored.
    { startedAt: message.createdAt, doubtSince, deadline: null },
  );
  if (asked === null) return "unavailable";
  const found = asked.found.get(ref.message_id);
  if (found) {
    await recordAcceptedLive(
      deps,
      ref.customer_id,
      now,
      () => db.transaction((tx) => acceptFound(tx, ref.customer_id, [{ id: ref.message_id, message: found }], message.createdAt)),
      (accepted) => accepted.length,
    );
    return "settled";
  }
  if (asked.current) {
    // Decided on an assumption about how long Postmark holds a call: asked about again for a while, and
    // what Postmark shows late is recorded (./late-truth.ts).
    const failed = await db.transaction(async (tx) => {
      const changed = await settleMissing(tx, ref.customer_id, [ref.message_id], "failed", NEVER_RECEIVED_TRANSACTIONAL, now);
      if (changed > 0) await watchMessageForLateTruth(tx, deps, ref, now);
      return changed;
    });
    if (failed > 0) await publishMessageRecheck(deps, ref, 0);
    return "settled";
  }
  if (now.getTime() - doubtSince.getTime() >= limitMs(deps)) {
    await db.transaction((tx) => giveUp(tx, [ref.message_id]));
    deps.logger.warn("transactional mail ends `unknown` for good (Postmark's search never showed whether it has it)", { message_id: ref.message_id });
    return "settled";
  }
  if (now.getTime() - doubtSince.getTime() >= LONG_IN_DOUBT_MS) {
    deps.logger.warn("transactional mail: in doubt for over a minute", {
      message_id: ref.message_id,
      in_doubt_seconds: Math.round((now.getTime() - doubtSince.getTime()) / 1000),
      waiting_for: asked.reason,
    });
  }
  await publishLater(deps, MESSAGE_RECONCILE_TOPIC, ref, ref.message_id);
  return "waiting";
}
