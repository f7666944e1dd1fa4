import type { MailDeps } from "../deps";
import { POSTMARK_TEST_TOKEN, type SendOutcome } from "../provider/postmark";
import { providerReadiness } from "../setup/provider-config";
import { lookupSuppressions } from "../suppressions/mirror";
import { monthlyAcceptedLive, noteAcceptedLive } from "../usage/meter";
import type { BatchRecipient } from "./batch-payload";
import { claimBatch, readBatchJob, recordBatch, type BatchResult, type Claim } from "./batch-store";
import { batchWriter } from "./batch-writers";
import { BATCH_SIZE } from "./model";
import { publishBatchReconcile } from "./reconcile";
import { BatchDescriptor, completeJob, failJob, LANES, pauseJob, publishBatch, type EngineDeps } from "./transitions";

/*
 * One batch of a send job, the unit of work of the sending engine. Start publishes batch descriptors (job, run, batch number; never HTML) to the queue:
 * QStash in production, the in-process dispatcher embedded. Up to LANES batches of a job are in flight at
 * once; each batch, when recorded, publishes the one LANES numbers further, so memory stays flat in the
 * number of recipients. A batch:
 *   1. re-checks the job (running, same run), the access switch, provider readiness and the monthly limit
 *      (any of those failing pauses the job; start resumes it);
 *   2. claims up to 500 recipients in one transaction: the next unclaimed row of the job's recipients gets
 *      a fresh batch id and its messages become `sending`;
 *   3. checks the newsletter-stream suppression mirror for the whole batch in one query (suppressed: no
 *      provider call), personalises and sends ONE `/email/batch` on the broadcast stream, every message
 *      tagged with the batch id in `Metadata`;
 *   4. records every result and the job counters in one statement, from `sending` only, and deletes the
 *      row of addresses, keeping only the recipients whose outcome is `unknown`.
 * Exactly once towards the provider: a message is `sending` before the call and only a recorded answer or
 * reconciliation moves it on. A batch delivered twice claims other recipients (or none). A message whose
 * outcome is in doubt (no answer, or the worker died: recovery marks it `unknown`) keeps its address until
 * reconciliation has asked Postmark what the batch delivered: what Postmark has is `accepted`, what it still
 * does not have after the grace period is `pending` again and sent in a later batch (./reconcile.ts). No
 * pending recipient and none in doubt left: the job completes and `job.completed` is emitted.
 */

/** After a batch whose outcome was unknown throughout (provider down), the next one waits this long. */
const UNKNOWN_BACKOFF_SECONDS = 30;
const SUPPRESSED_ON_STREAM = "The address is suppressed on the newsletter stream.";

/** What a batch needs: the engine's core, the sending client and the caches of the send path. */
export type BatchDeps = EngineDeps & Pick<MailDeps, "postmark" | "caches">;

/** One batch of a job (the queue worker). Safe to run twice: see the top of this file. */
export async function runSendJobBatch(deps: BatchDeps, body: unknown): Promise<void> {
  const parsed = BatchDescriptor.safeParse(body);
  if (!parsed.success) {
    deps.logger.error("send-job batch: malformed descriptor dropped", { error: parsed.error.message });
    return;
  }
  const descriptor = parsed.data;
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

  let size = BATCH_SIZE;
  if (job.mode === "live") {
    const room = settings.monthlyLimit - (await monthlyAcceptedLive(deps, job.customerId, deps.clock.now()));
    if (room <= 0) return pauseJob(deps, job, "monthly_limit");
    size = Math.min(size, room);
  }

  let claim: Claim = { kind: "claimed", batchId: "", rows: [] };
  // A claimed row can hold nothing sendable any more (a cancel raced it); take the next one then.
  while (claim.kind === "claimed" && claim.rows.length === 0) claim = await claimBatch(db, job.id, descriptor.run, size, deps.clock.now());
  if (claim.kind === "stale") return;
  if (claim.kind === "exhausted") return completeJob(deps, job.id);
  const { rows: recipients, batchId } = claim;

  const mirror = await lookupSuppressions(
    db,
    job.customerId,
    "newsletter",
    recipients.map((r) => r.email),
  );
  const results: BatchResult[] = [];
  const toSend: BatchRecipient[] = [];
  recipients.forEach((recipient, i) => {
    if (mirror[i]?.suppressed) {
      results.push({
        messageId: recipient.messageId,
        status: "suppressed",
        providerMessageId: null,
        error: SUPPRESSED_ON_STREAM,
        subject: writer.subject(recipient),
      });
    } else toSend.push(recipient);
  });
  let outcomes: SendOutcome[] = [];
  if (toSend.length > 0) {
    const { body, subjects } = writer.write(toSend, batchId);
    outcomes = await deps.postmark.sendBatchJson(serverToken, body, toSend.length);
    for (const [i, recipient] of toSend.entries()) results.push(resultOf(recipient.messageId, subjects[i] ?? "", outcomes[i]));
  }

  const now = deps.clock.now();
  const recorded = await recordBatch(db, job, batchId, recipients, results, now);
  if (job.mode === "live") noteAcceptedLive(deps, job.customerId, now, recorded.accepted);
  if (results.some((r) => r.status === "unknown")) await publishBatchReconcile(deps, { job_id: job.id, customer_id: job.customerId, batch_id: batchId });
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
  if (recorded.pending === 0) return completeJob(deps, job.id);
  if (recorded.status === "running" && recorded.run === descriptor.run) {
    const providerDown = outcomes.length > 0 && outcomes.every((o) => o.kind === "unknown");
    await publishBatch(deps, { ...descriptor, batch: descriptor.batch + LANES }, providerDown ? UNKNOWN_BACKOFF_SECONDS : 0);
  }
}

function resultOf(messageId: string, subject: string, outcome: SendOutcome | undefined): BatchResult {
  switch (outcome?.kind) {
    case "accepted":
      return { messageId, subject, status: "accepted", providerMessageId: outcome.providerMessageId, error: null };
    case "suppressed":
    case "invalid":
      return { messageId, subject, status: outcome.kind, providerMessageId: null, error: outcome.message };
    case "failed":
      return { messageId, subject, status: "failed", providerMessageId: null, error: `Postmark error ${outcome.code}: ${outcome.message}` };
    case "unknown":
      return { messageId, subject, status: "unknown", providerMessageId: null, error: outcome.message };
    case undefined:
      return { messageId, subject, status: "unknown", providerMessageId: null, error: "No result for this message in the batch answer." };
  }
}
