import { lte } from "drizzle-orm";
import type { CoreDeps } from "../core/context";
import { idempotencyRecords } from "../db/schema";

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
  run(deps: CoreDeps): Promise<Record<string, number | string>>;
};

export const cronJobs: CronJob[] = [
  {
    name: "idempotency-cleanup",
    schedule: "17 * * * *",
    everyMinutes: 60,
    description: "Deletes idempotency records older than 24 hours (the Postgres store; Upstash expires keys itself).",
    async run(deps) {
      const deleted = await deps.db
        .delete(idempotencyRecords)
        .where(lte(idempotencyRecords.expiresAt, deps.clock.now()))
        .returning({ key: idempotencyRecords.key });
      return { deleted: deleted.length };
    },
  },
];

export function findCronJob(name: string): CronJob | undefined {
  return cronJobs.find((job) => job.name === name);
}

/** Embedded scheduler: runs each job on its interval, never two runs of one job at once. */
export function startScheduler(deps: CoreDeps): () => void {
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
