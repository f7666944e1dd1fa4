import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { MailDeps } from "../../deps";
import { startSendJob } from "../../send-jobs/service";
import { SendJob, SendJobIdParam } from "../../send-jobs/schema";
import { json } from "../../../core/json";

export function registerStartSendJob(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  const route = serviceRoute(deps, "send", {
    method: "post",
    path: "/v1/send-jobs/{id}/start",
    operationId: "startSendJob",
    tags: ["Send jobs"],
    summary: "Start (or resume) a send job",
    description:
      "No body. A draft job is rendered once (the result is kept with the job; batches only personalise it) and becomes `running`, or `scheduled` when `scheduled_at` is in the future (it then starts at that time with what was rendered now). A `paused` job resumes. Refusals change nothing: blocked sending 403, provider setup incomplete 403 with `details.missing`, a template that is no longer sendable or cannot render 422, quotas 429 `quota_exceeded` (`max_per_job`; for live jobs this month's accepted mail plus all open jobs' pending recipients against the monthly limit). 409 for a job without recipients and for every other state (already running or scheduled, completed, cancelled, failed), with the cause in the `details` entry whose `path` is `reason`. Answers the job.",
    request: { params: SendJobIdParam },
    responses: {
      200: { description: "The job, now running or scheduled.", content: json(envelope(SendJob)) },
      ...errorResponses("mail", [401, 403, 404, 409, 422, 429, 500]),
    },
  });
  router.openapi(route, async (c) => {
    const job = await startSendJob(deps, c.get("principal"), c.req.valid("param").id);
    return c.json({ data: job, request_id: c.get("requestId") }, 200);
  });
}
