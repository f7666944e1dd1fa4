import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { MailDeps } from "../../deps";
import { addRecipients } from "../../send-jobs/recipients";
import { AddRecipients, MAX_RECIPIENTS_PER_CALL, RecipientsAdded, SendJobIdParam } from "../../send-jobs/schema";
import { json } from "../../../core/json";

export function registerAddSendJobRecipients(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "post",
    path: "/v1/send-jobs/{id}/recipients",
    operationId: "addSendJobRecipients",
    tags: ["Send jobs"],
    summary: "Add recipients to a draft job",
    description: `Adds 1–${MAX_RECIPIENTS_PER_CALL} recipients (more → 422). Each address is parsed (RFC 5322); an unparsable one becomes an \`invalid\` message. Duplicates within the job (by the lower-cased address, across calls too) collapse to one message and answer with its id. \`data\` fills \`{{placeholders}}\` and wins over the job's \`params\`. Addresses and data are kept only while the job can send and are deleted when it ends; the message keeps the SHA-256 of the address. Only draft jobs take recipients (409 otherwise). Quotas (429 \`quota_exceeded\`, nothing added): the job's sendable recipients may not pass \`max_per_job\`, and for live jobs this month's accepted mail plus the pending recipients of all open jobs may not pass the monthly limit. Send \`Idempotency-Key\` (e.g. job id + chunk offset): a retried chunk never adds twice.`,
    request: { params: SendJobIdParam, body: { required: true, content: json(AddRecipients) } },
    responses: {
      200: {
        description: "The message id of every recipient, this call's counts and the job's counters.",
        content: json(envelope(RecipientsAdded)),
      },
      ...errorResponses("mail", [400, 401, 403, 404, 409, 422, 429, 500]),
    },
  });
  router.openapi(route, async (c) => {
    const result = await addRecipients(deps, { principal: c.get("principal"), jobId: c.req.valid("param").id, recipients: c.req.valid("json").recipients });
    return c.json({ data: result, request_id: c.get("requestId") }, 200);
  });
}
