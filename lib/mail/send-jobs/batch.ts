import { channel } from "node:diagnostics_channel";
import { performance } from "node:perf_hooks";
import type { MailDeps } from "../deps";
import { POSTMARK_TEST_TOKEN, type BulkOutcome, type SendOutcome } from "../provider/postmark";
import { providerReadiness } from "../setup/provider-config";
import { lookupSuppressions } from "../suppressions/mirror";
import { reserveMonthlyRoom, settleRoom, type MonthlyRoom } from "../usage/meter";
import type { BatchRecipient } from "./batch-payload";
import { BATCH_LEASE_MS, claimBatch, readBatchJob, recordBatch, releaseBatch, renewLease, type BatchJob, type BatchResult, type Claim } from "./batch-store";
import { batchWriter } from "./batch-writers";
import { recordBulkRequest } from "./bulk-requests";
import { BATCH_SIZE } from "./model";
import { publishBatchReconcile } from "./reconcile";
import { noteAnswer } from "./provider-health";
import { BatchDescriptor, completeJob, failJob, LANES, pauseJob, publishBatch, type EngineDeps } from "./transitions";

/*
 * One batch of a send job, the unit of work of the sending engine. Start publishes batch descriptors (job, run, batch number; never HTML) to the queue:
 * QStash in production, the in-process dispatcher embedded. Up to LANES batches of a job are in flight at
 * once; each batch, when recorded, publishes the one LANES numbers further, so memory stays flat in the
 * number of recipients. A batch:
 *   1. re-checks the job (running, same run), the access switch, provider readiness and the monthly limit
 *      (any of those failing pauses the job; start resumes it): it reserves up to 500 of the month's room
 *      (../usage/meter.ts), so lanes and transactional mail in flight never take the same room twice; room
 *      all held by the customer's sends in flight makes the lane look again a second later instead;
 *   2. claims up to 500 recipients (25 while transactional mail is being sent through this process:
 *      `BATCH_SIZE_BESIDE_PRIORITY`) in one transaction: the next unclaimed row of the job's recipients gets
 *      a fresh batch id and its messages become `sending`;
 *   3. checks the newsletter-stream suppression mirror for the whole batch in one query (suppressed: no
 *      provider call), personalises and sends ONE `/email/batch` on the broadcast stream, every message
 *      tagged with the batch id in `Metadata`;
 *   4. records every result and the job counters in one statement, from `sending` only, and deletes the
 *      row of addresses, keeping only the recipients whose outcome is `unknown`.
 * Exactly once towards the provider: a message is `sending` before the call (its hand-over count raised in
 * the same update, never past two) and only a recorded answer or reconciliation moves it on. While the
 * provider call runs, the worker renews the claim's lease: a slow call is in flight, never in doubt.
 * Back-pressure slows a lane down and never fails the job: a call turned away as a whole (429, or 503 with
 * Retry-After) hands nothing over, so the claim is undone and the lane tries again after Retry-After or an
 * exponential back-off; a call without a definite answer (time-out, 5xx) leaves its messages in doubt for
 * reconciliation and the lane's next batch waits likewise. A batch delivered twice claims other recipients (or none). A message whose
 * outcome is in doubt (no answer, or the worker died: recovery marks it `unknown`) keeps its address until
 * reconciliation has asked Postmark what the batch delivered: what Postmark has is `accepted`, what it still
 * does not have after the grace period is `pending` again and sent in a later batch (./reconcile.ts). No
 * pending recipient and none in doubt left: the job completes and `job.completed` is emitted.
 */

/**
 * A batch's size while transactional mail is being sent through this process (lib/db/priority.ts,
 * `trafficFlows`; ./workers.ts then also runs one batch at a time). A full batch's claim, record and upload
 * are each one long step, and a transactional send, one round trip after another, waits behind whichever
 * it meets on a shared machine; small batches keep every step short, so the sends wait little, at the price
 * of a slower job while the transactional mail flows (docs/performance.md has the figures of bench:scale).
 * In production the batches run in the queue function's instances, which serve no transactional mail:
 * always full batches there.
 */
const BATCH_SIZE_BESIDE_PRIORITY = 25;

/**
 * Each batch's own step timings, published on this `node:diagnostics_channel` channel when something listens
 * (the scale bench sums them per window to say where a job's time goes); without a subscriber no clock is read.
 * Steps: `setup` (job, readiness, writer, monthly room), `claim`, `suppressions`, `provider` (the call while
 * leased), `record` (results, counters, bulk request, reconcile), `next` (completion or the lane's next batch).
 */
export const BATCH_STEPS_CHANNEL = "mail.send-job.batch-steps";
const batchSteps = channel(BATCH_STEPS_CHANNEL);
const STEPS = ["setup", "claim", "suppressions", "provider", "record", "next"] as const;
export type BatchSteps = { recipients: number } & Record<(typeof STEPS)[number], number>;

/** A batch's stopwatch: `lap(step)` adds the time since the previous lap to that step. */
function stepClock(): { steps: BatchSteps; lap(step: (typeof STEPS)[number]): void } {
  const steps: BatchSteps = { recipients: 0, setup: 0, claim: 0, suppressions: 0, provider: 0, record: 0, next: 0 };
  let last = performance.now();
  return {
    steps,
    lap(step) {
      const now = performance.now();
      steps[step] += now - last;
      last = now;
    },
  };
}
type StepClock = ReturnType<typeof stepClock> | undefined;

/** Back-off of a lane after a call turned away (429) or left without an answer: base × 2^n seconds, at most the cap, ±10 %. */
const THROTTLED_BACKOFF_BASE_SECONDS = 1;
const UNANSWERED_BACKOFF_BASE_SECONDS = 5;
const BACKOFF_CAP_SECONDS = 300;
/** A lane whose customer's monthly room is all held by sends in flight looks again after this. */
const ROOM_HELD_RETRY_SECONDS = 1;

function backoffSeconds(base: number, consecutive: number, retryAfterSeconds: number | null = null): number {
  if (retryAfterSeconds !== null) return Math.max(1, retryAfterSeconds);
  const plain = Math.min(BACKOFF_CAP_SECONDS, base * 2 ** Math.min(consecutive, 16));
  return Math.max(1, Math.round(plain * (0.9 + Math.random() * 0.2)));
}
const SUPPRESSED_ON_STREAM = "The address is suppressed on the newsletter stream.";

/** What a batch needs: the engine's core, the sending client and the caches of the send path. */
export type BatchDeps = EngineDeps & Pick<MailDeps, "postmark" | "caches" | "priority">;

/** One batch of a job (the queue worker). Safe to run twice: see the top of this file. */
export async function runSendJobBatch(deps: BatchDeps, body: unknown): Promise<void> {
  const parsed = BatchDescriptor.safeParse(body);
  if (!parsed.success) {
    deps.logger.error("send-job batch: malformed descriptor dropped", { error: parsed.error.message });
    return;
  }
  const descriptor = parsed.data;
  const clock = batchSteps.hasSubscribers ? stepClock() : undefined;
  try {
    await runBatch(deps, descriptor, clock);
  } finally {
    if (clock) batchSteps.publish(clock.steps);
  }
}

async function runBatch(deps: BatchDeps, descriptor: BatchDescriptor, clock: StepClock): Promise<void> {
  const { db } = deps;
  const found = await readBatchJob(db, descriptor.job_id, descriptor.customer_id);
  const job = found?.job;
  if (!found || !job || job.status !== "running" || job.run !== descriptor.run) return;
  const settings = found.settings;
  if (!settings || settings.sendingBlocked) return pauseJob(deps, job, "sending_blocked");
  const readiness = await providerReadiness(db, deps.secrets, job.customerId);
  if (!readiness.ready) return pauseJob(deps, job, "provider_not_ready");
  const serverToken = job.mode === "sandbox" ? POSTMARK_TEST_TOKEN : readiness.credentials.serverToken;
  const stream = readiness.credentials.broadcastStream;
  const writer = await batchWriter(deps, job, stream);
  if ("error" in writer) return failJob(deps, job, writer.error);

  let size = deps.priority.trafficFlows() ? BATCH_SIZE_BESIDE_PRIORITY : BATCH_SIZE;
  let room: MonthlyRoom | null = null;
  if (job.mode === "live") {
    room = await reserveMonthlyRoom(deps, { customerId: job.customerId, now: deps.clock.now(), limit: settings.monthlyLimit, want: size });
    if (room.granted === 0) {
      // All of it held by sends in flight, which may give some back (suppressed, failed): look again shortly.
      if (room.heldByOthers > 0) return publishBatch(deps, { ...descriptor, batch: descriptor.batch + LANES }, ROOM_HELD_RETRY_SECONDS);
      return pauseJob(deps, job, "monthly_limit");
    }
    size = room.granted;
  }
  clock?.lap("setup");
  try {
    await sendClaimed(deps, descriptor, job, { size, room, serverToken, stream, writer, bulkApiEnabled: readiness.credentials.bulkApiEnabled }, clock);
  } finally {
    room?.release(Number.POSITIVE_INFINITY);
  }
}

type Claimed = {
  size: number;
  room: MonthlyRoom | null;
  serverToken: string;
  stream: string;
  writer: Exclude<Awaited<ReturnType<typeof batchWriter>>, { error: string }>;
  bulkApiEnabled: boolean;
};

/**
 * Steps 2 to 4 with the month's room reserved (live jobs): what the claim did not need is given back at
 * once, the rest as soon as the results are recorded (before the lane's next batch is published).
 */
async function sendClaimed(deps: BatchDeps, descriptor: BatchDescriptor, job: BatchJob, claimed: Claimed, clock: StepClock): Promise<void> {
  const { db } = deps;
  const { size, room, serverToken, stream, writer } = claimed;
  let claim: Claim = { kind: "claimed", batchId: "", rows: [] };
  // A claimed row can hold nothing sendable any more (a cancel raced it); take the next one then.
  while (claim.kind === "claimed" && claim.rows.length === 0) claim = await claimBatch(db, job.id, descriptor.run, size, deps.clock.now());
  clock?.lap("claim");
  if (claim.kind === "stale") return;
  if (claim.kind === "exhausted") return completeJob(deps, job.id);
  const { rows: recipients, batchId } = claim;
  room?.release(size - recipients.length);
  if (clock) clock.steps.recipients = recipients.length;

  const mirror = await lookupSuppressions(
    db,
    job.customerId,
    "newsletter",
    recipients.map((r) => r.email),
  );
  clock?.lap("suppressions");
  const results: BatchResult[] = [];
  const toSend: BatchRecipient[] = [];
  recipients.forEach((recipient, i) => {
    if (mirror[i]?.suppressed) {
      results.push({
        messageId: recipient.messageId,
        status: "suppressed",
        providerMessageId: null,
        error: SUPPRESSED_ON_STREAM,
      });
    } else toSend.push(recipient);
  });
  let outcomes: SendOutcome[] = [];
  let bulk: Extract<BulkOutcome, { kind: "accepted" }> | null = null;
  if (toSend.length > 0) {
    // When the request went to Postmark: the wait for priority requests and the body's assembly before it
    // are ours, and must not read as Postmark holding the call (./provider-health.ts).
    let callStarted = deps.clock.now();
    const sent = await whileLeased(deps, job.id, batchId, async () => {
      await deps.priority.yieldToPriorityRequests();
      if (claimed.bulkApiEnabled) {
        const bulkWriter = await batchWriter(deps, job, stream, "bulk");
        if (!("error" in bulkWriter)) {
          const body = bulkWriter.write(toSend, batchId).body;
          callStarted = deps.clock.now();
          const answer = await deps.postmark.sendBulkJson(serverToken, body);
          if (answer.kind !== "failed") return answer;
          // Refused as a whole (e.g. the Bulk API is not enabled on the account): nothing was handed over,
          // so the same claim goes to /email/batch, the fallback path.
          deps.logger.warn("send job: the Bulk API refused the batch; sent with /email/batch instead", {
            send_job_id: job.id,
            reason: `Postmark error ${answer.code}: ${answer.message}`,
          });
        }
      }
      const body = writer.write(toSend, batchId).body;
      callStarted = deps.clock.now();
      return deps.postmark.sendBatchJson(serverToken, body, toSend.length);
    });
    clock?.lap("provider");
    if (Array.isArray(sent)) outcomes = sent;
    else if (sent.kind === "accepted") bulk = sent;
    else outcomes = toSend.map(() => sent);
    // How Postmark answered: the evidence reconciliation reads (./provider-health.ts); sandbox calls never reach the customer's server.
    if (job.mode === "live") {
      const answered = bulk !== null || outcomes.every((o) => o.kind !== "unknown");
      await noteAnswer(deps, job.customerId, callStarted, deps.clock.now(), answered);
    }
    const [first] = outcomes;
    if (first?.kind === "throttled") {
      const released = await releaseBatch(
        db,
        job.id,
        batchId,
        recipients.map((r) => r.messageId),
      );
      if (released === "taken") {
        deps.logger.warn(
          "send job: the provider turned the batch away after its lease had expired; the claim is no longer this worker's and is left as it is",
          {
            send_job_id: job.id,
            batch_id: batchId,
          },
        );
      }
      const consecutive = (descriptor.backoff ?? 0) + 1;
      const delay = backoffSeconds(THROTTLED_BACKOFF_BASE_SECONDS, consecutive - 1, first.retryAfterSeconds);
      deps.logger.warn("send job: the provider turned the batch away; the lane backs off", {
        send_job_id: job.id,
        delay_seconds: delay,
        reason: first.message,
      });
      return publishBatch(deps, { ...descriptor, batch: descriptor.batch + LANES, backoff: consecutive }, delay);
    }
    // Bulk: Postmark took the whole request; its per-message ids arrive with the webhooks (matched by our
    // message id in Metadata), so the messages are accepted without a provider id.
    if (bulk) for (const recipient of toSend) results.push({ messageId: recipient.messageId, status: "accepted", providerMessageId: null, error: null });
    else for (const [i, recipient] of toSend.entries()) results.push(resultOf(recipient.messageId, outcomes[i]));
  }

  const now = deps.clock.now();
  const recorded = await settleRoom(
    room,
    recipients.map((r) => r.messageId),
    () => recordBatch(db, job, batchId, recipients, results, now),
    (recorded) => recorded.accepted,
  );
  if (bulk) await recordBulkRequest(db, { jobId: job.id, batchId, outcome: bulk, total: toSend.length, now });
  if (results.some((r) => r.status === "unknown")) await publishBatchReconcile(deps, { job_id: job.id, customer_id: job.customerId, batch_id: batchId });
  clock?.lap("record");
  const refused = outcomes.length > 0 && outcomes.every((o) => o.kind === "failed");
  if (refused) {
    // Every message refused for a reason that is not the recipient's (token, sender, stream): the job as a whole.
    const first = outcomes[0];
    return failJob(
      deps,
      job,
      `The provider refused the job: ${first?.kind === "failed" ? `Postmark error ${first.code}: ${first.message}` : "unknown reason"}`,
    );
  }
  if (recorded.pending === 0) await completeJob(deps, job.id);
  else if (recorded.status === "running" && recorded.run === descriptor.run) {
    const providerDown = outcomes.length > 0 && outcomes.every((o) => o.kind === "unknown");
    const next = { ...descriptor, batch: descriptor.batch + LANES, backoff: providerDown ? (descriptor.backoff ?? 0) + 1 : 0 };
    await publishBatch(deps, next, providerDown ? backoffSeconds(UNANSWERED_BACKOFF_BASE_SECONDS, next.backoff - 1) : 0);
  }
  clock?.lap("next");
}

/** Runs the provider call while renewing the claim's lease, so recovery never takes a slow call for a lost one. */
async function whileLeased<T>(deps: BatchDeps, jobId: string, batchId: string, call: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => {
    renewLease(deps.db, jobId, batchId, deps.clock.now()).catch((error: unknown) =>
      deps.logger.error("send job: the batch lease could not be renewed", { send_job_id: jobId, error: String(error) }),
    );
  }, BATCH_LEASE_MS / 3);
  try {
    return await call();
  } finally {
    clearInterval(timer);
  }
}

function resultOf(messageId: string, outcome: SendOutcome | undefined): BatchResult {
  switch (outcome?.kind) {
    case "accepted":
      return { messageId, status: "accepted", providerMessageId: outcome.providerMessageId, error: null };
    case "suppressed":
    case "invalid":
      return { messageId, status: outcome.kind, providerMessageId: null, error: outcome.message };
    case "failed":
      return { messageId, status: "failed", providerMessageId: null, error: `Postmark error ${outcome.code}: ${outcome.message}` };
    case "unknown":
    case "throttled":
      return { messageId, status: "unknown", providerMessageId: null, error: outcome.message };
    case undefined:
      return { messageId, status: "unknown", providerMessageId: null, error: "No result for this message in the batch answer." };
  }
}
