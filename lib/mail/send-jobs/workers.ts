import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { mailSendJobs } from "../../db/schema";
import { runSendJobBatch, type BatchDeps } from "./batch";
import { registerReconcileWorkers } from "./reconcile";
import { registerRecheckWorker } from "./late-truth";
import { publishScheduledStart, SEND_JOB_BATCH_TOPIC, SEND_JOB_START_TOPIC, startDueJob, type EngineDeps } from "./transitions";

const StartDescriptor = z.object({ job_id: z.uuid(), customer_id: z.uuid() });

/**
 * The queue topics of the send path: batches, scheduled starts, reconciliation and its late truth. Registered once by the
 * runtime that owns the queue (`createRootApp`), not by the HTTP app, so an app built twice (tests) does not
 * register its handlers twice. Batches are background work for the database (lib/db/priority.ts): on the
 * embedded database the requests being served (a transactional send's queries) go first. They are also
 * background steps: while transactional mail is being sent through this process, one batch runs at a
 * time (of 25 recipients, ./batch.ts), so the batches leave the shared cores to the sends.
 */
export function registerSendJobWorkers(deps: BatchDeps): void {
  deps.queue.register(SEND_JOB_BATCH_TOPIC, (body) => deps.priority.asBackgroundWork(() => deps.priority.asBackgroundStep(() => runSendJobBatch(deps, body))));
  deps.queue.register(SEND_JOB_START_TOPIC, (body) => runScheduledStart(deps, body));
  registerReconcileWorkers(deps);
  registerRecheckWorker(deps);
}

/** scheduled → running once `scheduled_at` has come; a message that arrives early is re-published. */
async function runScheduledStart(deps: EngineDeps, body: unknown): Promise<void> {
  const parsed = StartDescriptor.safeParse(body);
  if (!parsed.success) {
    deps.logger.error("send-job start: malformed descriptor dropped", { error: parsed.error.message });
    return;
  }
  const { job_id: id, customer_id: customerId } = parsed.data;
  if (await startDueJob(deps, id, customerId)) return;
  const [job] = await deps.db
    .select()
    .from(mailSendJobs)
    .where(and(eq(mailSendJobs.id, id), eq(mailSendJobs.customerId, customerId), eq(mailSendJobs.status, "scheduled")));
  if (job) await publishScheduledStart(deps, job);
}
