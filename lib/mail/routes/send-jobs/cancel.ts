import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { MailDeps } from "../../deps";
import { cancelSendJob } from "../../send-jobs/service";
import { SendJob, SendJobIdParam } from "../../send-jobs/schema";
import { json } from "../../../core/json";

export function registerCancelSendJob(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "post",
    path: "/v1/send-jobs/{id}/cancel",
    operationId: "cancelSendJob",
    tags: ["Send jobs"],
    summary: "Cancel a send job",
    description:
      "No body. A draft, scheduled, running or paused job becomes `cancelled`: recipients not yet handed to the provider end `failed` with error `cancelled`, a batch already in flight is recorded as it returns, and the addresses are deleted. A completed, cancelled or failed job answers 409. Answers the job. Cancelling is allowed while sending is blocked (it only stops sending).",
    request: { params: SendJobIdParam },
    responses: {
      200: { description: "The cancelled job.", content: json(envelope(SendJob)) },
      ...errorResponses("mail", [401, 403, 404, 409, 422, 429, 500]),
    },
  });
  router.openapi(route, async (c) => {
    const job = await cancelSendJob(deps, c.get("principal").customerId, c.req.valid("param").id);
    return c.json({ data: job, request_id: c.get("requestId") }, 200);
  });
}
