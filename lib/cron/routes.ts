import { Hono } from "hono";
import { handleError } from "../core/app";
import type { AppEnv } from "../core/context";
import { ApiError } from "../core/errors";
import { safeEqual } from "../core/secrets";
import { findCronJob, type CronDeps } from "./index";

/**
 * `/api/cron/<name>`: Vercel Cron sends `Authorization: Bearer <CRON_SECRET>`. Without a configured
 * secret the endpoint refuses everything (embedded mode runs crons in-process instead).
 */
export function createCronRoutes(deps: CronDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/:name", async (c) => {
    const secret = deps.config.CRON_SECRET;
    const presented = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
    if (!secret || !presented || !safeEqual(presented, secret)) {
      throw new ApiError("unauthorized", "Cron secret missing or wrong.");
    }
    const job = findCronJob(c.req.param("name"));
    if (!job) throw new ApiError("not_found", "No such cron job.");
    return c.json({ data: { job: job.name, result: await job.run(deps) } }, 200);
  });
  app.onError(handleError(deps.logger));
  return app;
}
