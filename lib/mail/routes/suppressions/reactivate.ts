import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { MailDeps } from "../../deps";
import { reactivateSuppression } from "../../suppressions/reactivate";
import { ReactivateRequest, ReactivateResult } from "../../suppressions/schema";

export function registerReactivateSuppression(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  router.openapi(
    serviceRoute(deps, "write", {
      method: "post",
      path: "/v1/suppressions/reactivate",
      operationId: "reactivateSuppression",
      tags: ["Suppressions"],
      summary: "Lift a suppression after a new opt-in",
      description:
        "Call only after a new confirmed double opt-in. Deletes the address from Postmark's suppression list of the stream (the broadcast stream for `newsletter`); once Postmark confirms, the mirror lifts it and an entry with `active=false` appears in the feed (and `suppression.changed` is sent). Postmark is asked even when the mirror shows nothing, because the mirror may lag by one webhook. Idempotent: an address that is not suppressed answers `reactivated: true` with no effect. A spam complaint cannot be lifted: 409 `conflict` with `details.reason = spam_complaint`. If Postmark cannot be reached the answer is 500 and nothing changed.",
      request: { body: { required: true, content: json(ReactivateRequest) } },
      responses: {
        200: { description: "Lifted (or not suppressed).", content: json(envelope(ReactivateResult)) },
        ...errorResponses("mail", [400, 401, 403, 409, 422, 429, 500]),
      },
    }),
    async (c) => {
      const result = await reactivateSuppression(deps, c.get("principal").customerId, c.req.valid("json"));
      return c.json({ data: result, request_id: c.get("requestId") }, 200);
    },
  );
}
