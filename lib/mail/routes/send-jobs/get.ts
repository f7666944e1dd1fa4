import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { MailDeps } from "../../deps";
import { getSendJobDetail } from "../../send-jobs/service";
import { SendJobDetail, SendJobIdParam } from "../../send-jobs/schema";
import { json } from "../../../core/json";

export function registerGetSendJob(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  const route = serviceRoute(deps, "read", {
    method: "get",
    path: "/v1/send-jobs/{id}",
    operationId: "getSendJob",
    tags: ["Send jobs"],
    summary: "Get a send job with counters, stats and timeline",
    description:
      "Status, counters per result (`recipients`), batch progress, `stats` (delivered, bounces, complaints, opens, unique opens, clicks, unique clicks) and an hourly `timeline`, all computed from what is stored on every read, so opens and clicks arriving days after completion show up at once. Poll every few seconds until `completed`. Another account's job answers 404.",
    request: { params: SendJobIdParam },
    responses: {
      200: { description: "The job.", content: json(envelope(SendJobDetail)) },
      ...errorResponses("mail", [401, 404, 422, 429, 500]),
    },
  });
  router.openapi(route, async (c) => {
    const job = await getSendJobDetail(deps.db, c.get("principal").customerId, c.req.valid("param").id);
    return c.json({ data: job, request_id: c.get("requestId") }, 200);
  });
}
