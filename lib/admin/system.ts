import { and, count, eq, gte, inArray, isNotNull, isNull, min, sql, sum } from "drizzle-orm";
import type { CoreDeps } from "../core/context";
import type { ProviderCallFigures } from "../core/provider-metrics";
import { adsWebhookDeliveries, mailSendJobChunks, mailSendJobs, mailWebhookDeliveries } from "../db/schema";
import type { WebhookDeliveriesTable } from "../db/schema/webhooks";

/**
 * The operator's view of the machinery (`GET /admin/v1/system`): what waits in the queue and for how long,
 * batches in flight, provider error rate and latency, failing webhook deliveries and the reconciliation
 * backlog. Database figures are the whole deployment's, read from the tables the engines work from (chunks of
 * running send jobs, webhook deliveries): the queue itself (QStash) is not asked. Provider figures are this
 * instance's since it started (`core/provider-metrics.ts`).
 */
export type SystemFigures = {
  generatedAt: Date;
  queue: {
    kind: "local" | "qstash";
    sendJobBatches: { waiting: number; oldestWaitSeconds: number | null };
    webhookDeliveries: { due: number; oldestDueSeconds: number | null };
  };
  sendJobs: { running: number; paused: number; batchesInFlight: number };
  providers: { postmark: ProviderCallFigures; graph: ProviderCallFigures };
  webhooks: { mail: WebhookFigures; ads: WebhookFigures };
  reconcile: { batchesInDoubt: number; oldestInDoubtSeconds: number | null; unknownMessages: number };
};

type WebhookFigures = { failedLast24h: number; retrying: number };

const secondsSince = (now: Date, then: Date | string | null | undefined) =>
  then ? Math.max(0, Math.round((now.getTime() - new Date(then).getTime()) / 1000)) : null;

export async function systemFigures(deps: Pick<CoreDeps, "db" | "clock" | "queue" | "config" | "providerMetrics">): Promise<SystemFigures> {
  const { db } = deps;
  const now = deps.clock.now();
  const graceStart = sql`${new Date(now.getTime() - deps.config.SEND_RECONCILE_GRACE_SECONDS * 1000).toISOString()}::timestamptz`;
  const active = inArray(mailSendJobs.status, ["running", "paused"]);

  const [jobs] = await db
    .select({
      running: sql<number>`count(*) filter (where ${mailSendJobs.status} = 'running')`.mapWith(Number),
      paused: sql<number>`count(*) filter (where ${mailSendJobs.status} = 'paused')`.mapWith(Number),
      unknown: sum(mailSendJobs.unknown).mapWith(Number),
    })
    .from(mailSendJobs)
    .where(active);
  // A running job's unclaimed chunks are the batches waiting for a lane; the wait is counted from the job's
  // last progress (a claim or a recorded batch), the age of the oldest work nobody has picked up.
  const [waiting] = await db
    .select({ batches: count(), oldest: min(mailSendJobs.lastProgressAt) })
    .from(mailSendJobChunks)
    .innerJoin(mailSendJobs, eq(mailSendJobs.id, mailSendJobChunks.sendJobId))
    .where(and(eq(mailSendJobs.status, "running"), isNull(mailSendJobChunks.batchId)));
  // Claimed chunks: within the grace period a provider call is in flight; past it the outcome is in doubt
  // and waits for reconciliation with Postmark.
  const [claimed] = await db
    .select({
      inFlight: sql<number>`count(*) filter (where ${mailSendJobChunks.claimedAt} >= ${graceStart})`.mapWith(Number),
      inDoubt: sql<number>`count(*) filter (where ${mailSendJobChunks.claimedAt} < ${graceStart})`.mapWith(Number),
      oldestInDoubt: sql<Date | null>`min(${mailSendJobChunks.claimedAt}) filter (where ${mailSendJobChunks.claimedAt} < ${graceStart})`,
    })
    .from(mailSendJobChunks)
    .where(isNotNull(mailSendJobChunks.claimedAt));
  const mail = await webhookFigures(deps, mailWebhookDeliveries, now);
  const ads = await webhookFigures(deps, adsWebhookDeliveries, now);

  return {
    generatedAt: now,
    queue: {
      kind: deps.queue.kind,
      sendJobBatches: { waiting: waiting?.batches ?? 0, oldestWaitSeconds: (waiting?.batches ?? 0) > 0 ? secondsSince(now, waiting?.oldest) : null },
      webhookDeliveries: { due: mail.due + ads.due, oldestDueSeconds: maxOrNull(mail.oldestDueSeconds, ads.oldestDueSeconds) },
    },
    sendJobs: { running: jobs?.running ?? 0, paused: jobs?.paused ?? 0, batchesInFlight: claimed?.inFlight ?? 0 },
    providers: { postmark: deps.providerMetrics.figures("postmark"), graph: deps.providerMetrics.figures("graph") },
    webhooks: { mail: mail.figures, ads: ads.figures },
    reconcile: {
      batchesInDoubt: claimed?.inDoubt ?? 0,
      oldestInDoubtSeconds: secondsSince(now, claimed?.oldestInDoubt),
      unknownMessages: jobs?.unknown ?? 0,
    },
  };
}

async function webhookFigures(deps: Pick<CoreDeps, "db">, table: WebhookDeliveriesTable, now: Date) {
  const dayAgo = new Date(now.getTime() - 24 * 3600 * 1000);
  const nowSql = sql`${now.toISOString()}::timestamptz`;
  const [pending] = await deps.db
    .select({
      due: sql<number>`count(*) filter (where ${table.nextAttemptAt} <= ${nowSql})`.mapWith(Number),
      oldestDue: sql<Date | null>`min(${table.nextAttemptAt}) filter (where ${table.nextAttemptAt} <= ${nowSql})`,
      retrying: sql<number>`count(*) filter (where ${table.attempts} > 0)`.mapWith(Number),
    })
    .from(table)
    .where(eq(table.status, "pending"));
  const [failed] = await deps.db
    .select({ n: count() })
    .from(table)
    .where(and(eq(table.status, "failed"), gte(table.completedAt, dayAgo)));
  return {
    due: pending?.due ?? 0,
    oldestDueSeconds: secondsSince(now, pending?.oldestDue),
    figures: { failedLast24h: failed?.n ?? 0, retrying: pending?.retrying ?? 0 },
  };
}

function maxOrNull(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.max(a, b);
}
