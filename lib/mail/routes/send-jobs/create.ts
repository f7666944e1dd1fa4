import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { MailDeps } from "../../deps";
import { createSendJob } from "../../send-jobs/service";
import { CreateSendJob, SendJob } from "../../send-jobs/schema";
import { json } from "../../../core/json";

export function registerCreateSendJob(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "post",
    path: "/v1/send-jobs",
    operationId: "createSendJob",
    tags: ["Send jobs"],
    summary: "Create a send job (draft)",
    description:
      "Creates a draft newsletter job with all counters at 0. The template must be this account's, `active` and a newsletter (422 otherwise; another account's or a deleted template answers 404). `params` may only name the template's known parameters (contract entries and the placeholders its content and subject leave open; 422 naming each unknown one) and must give every required contract parameter; their values are checked by rendering once. `from.email` may differ from the account's sender only before the `@`: its domain must be a verified domain of the account (or the address a verified sender), else 422. `scheduled_at` in the past (or empty) means at once when started. Send `Idempotency-Key` to create at most once.",
    request: { body: { required: true, content: json(CreateSendJob) } },
    responses: {
      201: { description: "The draft job.", content: json(envelope(SendJob)) },
      ...errorResponses("mail", [400, 401, 403, 404, 409, 422, 429, 500]),
    },
  });
  router.openapi(route, async (c) => {
    const job = await createSendJob(deps, c.get("principal"), c.req.valid("json"));
    return c.json({ data: job, request_id: c.get("requestId") }, 201);
  });
}
