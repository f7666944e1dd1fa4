import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { MailDeps } from "../../deps";
import { sendTransactional } from "../../sending/transactional";
import { IdParam } from "../../fields";
import { SendRequest, SendResult } from "../../templates/schema";

const errors = errorResponses("mail", [400, 401, 403, 404, 409, 422, 429, 500, 503]);

export function registerSendTemplate(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  router.openapi(
    // A priority request: transactional sends never wait behind a send job's batches (they pause the batches' statements).
    serviceRoute(
      deps,
      "send",
      {
        method: "post",
        path: "/v1/templates/{id}/send",
        operationId: "sendTemplate",
        tags: ["Templates"],
        summary: "Send a transactional mail",
        description:
          "Renders the template with `params` and sends it synchronously on the transactional stream. `to` is parsed as an RFC 5322 mailbox; an unparsable address yields `invalid` and an address suppressed on the transactional stream yields `suppressed`, both without a provider call. Unknown or missing required parameters answer 422. Sandbox accounts send through Postmark's test path: accepted, never delivered, never counted. Blocked sending answers 403, an account whose provider setup is incomplete 403 with `details.missing`, the monthly limit 429 `quota_exceeded`. If Postmark does not answer (no answer, a time-out, a 5xx without `Retry-After`), the response is 500 with `error.message_id`; the message is `unknown`, never sent again, and a retry with the same `Idempotency-Key` returns the same answer. Reconciliation then asks Postmark: the message becomes `accepted` if Postmark has it, or `failed` once Postmark is shown never to have received it (send it again then, under a new `Idempotency-Key`). A `failed` one is still asked about for a day: if Postmark takes the call in late after all, it becomes `accepted` (event `accepted` with `details.late: true`) and counts in usage and billing, beside a copy sent again meanwhile, as Postmark received both. If Postmark turns the send away (its rate limit, 429, or a 503 with `Retry-After` in maintenance: nothing was taken in), the response is 503 `service_unavailable` with Postmark's `Retry-After` (5 s when it gave none) and no message id: the mail was not sent and nothing is kept, and a retry after that delay (with the same `Idempotency-Key` too) sends it once. The send is synchronous: nothing is queued for later. Send `Idempotency-Key` against double sends.",
        request: { params: IdParam, body: { required: true, content: json(SendRequest) } },
        responses: {
          200: { description: "The message id and its status.", content: json(envelope(SendResult)) },
          ...errors,
          503: {
            ...errors[503],
            description:
              "Postmark turned the send away (its rate limit, or maintenance): the mail was not sent and nothing was kept; send it again after `Retry-After` seconds. Also while the database is unreachable (`service_unavailable`) or older than the code (`schema_behind`).",
          },
        },
      },
      { priority: true },
    ),
    async (c) => {
      const result = await sendTransactional(deps, c.get("principal"), { templateId: c.req.valid("param").id, ...c.req.valid("json") });
      return c.json({ data: result, request_id: c.get("requestId") }, 200);
    },
  );
}
