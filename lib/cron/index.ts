import type { CoreDeps } from "../core/context";
import type { MailDeps } from "../mail";
import { pruneMessageHistory } from "../mail";
import { pruneFinishedDeliveries, republishDueDeliveries } from "../core/webhooks/engine";
import { MAIL_WEBHOOKS } from "../mail";
import type { AdsDeps } from "../ads";
import { ADS_WEBHOOKS } from "../ads";
import { pollAdStatuses } from "../ads";
import { IN_FLIGHT_LIMIT_MS, recoverSendJobs, STALL_MS } from "../mail";
import { reportDailyUsage } from "../mail";
import { cleanUpAssets } from "../mail";
import { resumeVideoRenders } from "../ads";
import { fanOutSnapshots } from "../ads";
import { sweepCompensations } from "../ads";
import { purgeExpiredAuditEntries } from "../core/audit-retention";
import { checkAllSenders } from "../mail";

/** What the jobs need: the core and each service's deps, built once by the runtime (`createRootApp`, lib/runtime.ts). */
export type CronDeps = CoreDeps & { mail: MailDeps; ads: AdsDeps };

/**
 * Periodic jobs. Production: `vercel.json` crons call `/api/cron/<name>` with `CRON_SECRET`.
 * Embedded: the scheduler in `npm start` runs them every `everyMinutes`; `npm run cron -- <name>` runs one
 * once. Every job is safe to run twice.
 */
export type CronJob = {
  name: string;
  /** Vercel cron expression (UTC). */
  schedule: string;
  everyMinutes: number;
  description: string;
  run(deps: CronDeps): Promise<Record<string, number | string>>;
};

export const cronJobs: CronJob[] = [
  {
    name: "idempotency-cleanup",
    schedule: "17 * * * *",
    everyMinutes: 60,
    description: "Deletes idempotency records older than 24 hours (the Postgres store; Upstash expires keys itself).",
    async run(deps) {
      return { deleted: await deps.idempotency.deleteExpired(deps.clock.now()) };
    },
  },
  {
    name: "mail-history-prune",
    schedule: "41 3 * * *",
    everyMinutes: 24 * 60,
    description:
      "Deletes mail message history (events) older than 90 days, keeping message state, and finished webhook deliveries (mail and ads) older than 30 days.",
    run: async (deps) => ({ ...(await pruneMessageHistory(deps)), ads_deliveries: await pruneFinishedDeliveries(ADS_WEBHOOKS, deps) }),
  },
  {
    name: "mail-webhook-retries",
    schedule: "*/10 * * * *",
    everyMinutes: 10,
    description: "Re-publishes due outgoing webhook deliveries whose queue message was lost (restart, crash mid-attempt); retries normally run from the queue.",
    async run(deps) {
      return { republished: await republishDueDeliveries(MAIL_WEBHOOKS, deps) };
    },
  },
  {
    name: "ads-webhook-retries",
    schedule: "*/10 * * * *",
    everyMinutes: 10,
    description:
      "Re-publishes due ad.status_changed deliveries whose queue message was lost (restart, crash mid-attempt); retries normally run from the queue.",
    async run(deps) {
      return { republished: await republishDueDeliveries(ADS_WEBHOOKS, deps) };
    },
  },
  {
    name: "ads-status-poll",
    schedule: "* * * * *",
    everyMinutes: 1,
    description:
      "Reads the effective status of ads under review, in post-processing or with issues, and of ads that changed in the last 24 hours, in batched platform reads (50 ids a call, at most 4 calls per ad account and run, accounts in turns); a change updates the cached status and emits one ad.status_changed.",
    run: async (deps) => ({ ...(await pollAdStatuses(deps.ads)) }),
  },
  {
    name: "send-jobs-sweep",
    schedule: "* * * * *",
    everyMinutes: 1,
    description:
      "Starts scheduled send jobs whose time has come (when their delayed queue message is missing); marks messages whose provider call lost its worker (in flight for over 2 minutes) unknown; reconciles every message in doubt with Postmark's Messages API (found: accepted; still missing after the grace period: sent again, or failed for a transactional mail); gives running jobs without progress for 5 minutes new batches. A customer whose work fails (its sealed credentials no longer open, say) is logged and counted in `skipped`; the others' work goes on.",
    run: async (deps) => ({ ...(await recoverSendJobs(deps.mail, { stalledForMs: STALL_MS, inFlightForMs: IN_FLIGHT_LIMIT_MS })) }),
  },
  {
    name: "billing-report",
    schedule: "15 0 * * *",
    everyMinutes: 60,
    description:
      "Posts each customer's accepted live e-mails of the previous UTC day to BILLING_URL, signed with BILLING_SECRET; the same day is posted once, a failed post is retried with the same body and Idempotency-Key.",
    async run(deps) {
      const { skipped, ...result } = await reportDailyUsage(deps);
      return skipped ? { ...result, skipped } : result;
    },
  },
  {
    name: "mail-assets-cleanup",
    schedule: "23 * * * *",
    everyMinutes: 60,
    description:
      "Deletes image assets still pending 24 hours after they were announced, and every raw upload that is not the upload of a pending asset (left by completed, failed, deleted or abandoned assets, or put back by a second PUT to a Vercel Blob upload URL).",
    run: async (deps) => ({ ...(await cleanUpAssets(deps.mail)) }),
  },
  {
    name: "ads-video-renders",
    schedule: "*/5 * * * *",
    everyMinutes: 5,
    description:
      "Re-publishes video template renders whose queue message was lost (never taken by a job for 2 minutes, or held by a job that died past its 20-minute lease).",
    run: async (deps) => ({ republished: await resumeVideoRenders(deps.ads) }),
  },
  {
    name: "ads-insights-snapshot",
    schedule: "30 2 * * *",
    everyMinutes: 24 * 60,
    description:
      "Publishes one queue message per onboarded ad account (2 s apart); each pulls daily ad insights of the last 7 days (conversions are revised there), any later-missing days and, for a new account, 90 days, with every breakdown, and upserts them. A rate-limited account is put back on the queue for later; a failed one is logged and pulled again by the next run.",
    run: (deps) => fanOutSnapshots(deps),
  },
  {
    name: "ads-compensations",
    schedule: "*/5 * * * *",
    everyMinutes: 5,
    description:
      "Deletes upstream the platform objects (ad sets, creatives, ads, audiences, videos) whose create succeeded but whose local record was never written (the write failed, the process died), when the request could not do it itself; retried with backoff until the platform confirms, each settled row kept as the record.",
    run: async (deps) => ({ ...(await sweepCompensations(deps.ads)) }),
  },
  {
    name: "audit-log-retention",
    schedule: "53 4 * * *",
    everyMinutes: 24 * 60,
    description: "Deletes audit log entries older than 400 days (the only delete the audit log's database trigger lets through).",
    run: async (deps) => ({ deleted: await purgeExpiredAuditEntries(deps.db, deps.clock.now()) }),
  },
  {
    name: "mail-sender-checks",
    schedule: "7 * * * *",
    everyMinutes: 60,
    description:
      "Reads, for every customer with a Postmark account token, its sender signatures and domains from Postmark's Account API, so readiness follows what Postmark confirms (a signature confirmed at Postmark, a DNS record published).",
    run: async (deps) => ({ ...(await checkAllSenders({ ...deps, postmarkAccount: deps.mail.postmarkAccount })) }),
  },
];

export function findCronJob(name: string): CronJob | undefined {
  return cronJobs.find((job) => job.name === name);
}

/** Embedded scheduler: runs each job on its interval, never two runs of one job at once. */
export function startScheduler(deps: CronDeps): () => void {
  const timers = cronJobs.map((job) => {
    let running = false;
    return setInterval(() => {
      if (running) return;
      running = true;
      job
        .run(deps)
        .then((result) => deps.logger.info("cron ran", { job: job.name, ...result }))
        .catch((error: unknown) => deps.logger.error("cron failed", { job: job.name, error: String(error) }))
        .finally(() => (running = false));
    }, job.everyMinutes * 60_000);
  });
  return () => timers.forEach(clearInterval);
}
