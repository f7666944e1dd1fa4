import { Hono } from "hono";
import { safeEqual } from "../core/secrets";
import { findCronJob, type CronDeps } from "./index";

/**
 * `/api/cron/<name>`: Vercel Cron sends `Authorization: Bearer <CRON_SECRET>`. Without a configured
 * secret the endpoint refuses everything (embedded mode runs crons in-process instead).
 */
export function createCronRoutes(deps: CronDeps): Hono {
  const app = new Hono();
  app.get("/:name", async (c) => {
    const secret = deps.config.CRON_SECRET;
    const presented = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
    if (!secret || !presented || !safeEqual(presented, secret)) {
      return c.json({ error: { code: "unauthorized", message: "Cron secret missing or wrong.", details: [] } }, 401);
    }
    const job = findCronJob(c.req.param("name"));
    if (!job) return c.json({ error: { code: "not_found", message: "No such cron job.", details: [] } }, 404);
    return c.json({ data: { job: job.name, result: await job.run(deps) } }, 200);
  });
  return app;
}
