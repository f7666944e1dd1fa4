import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { MailDeps } from "../../deps";
import { lookupSuppressions } from "../../suppressions/mirror";
import { LookupRequest, LookupResult } from "../../suppressions/schema";

export function registerLookupSuppressions(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  router.openapi(
    serviceRoute(deps, "read", {
      method: "post",
      path: "/v1/suppressions/lookup",
      operationId: "lookupSuppressions",
      tags: ["Suppressions"],
      summary: "Look addresses up in the suppression mirror",
      description:
        "Answers from the mirror (not live from Postmark), one result per address in the order given. Unsuppressed addresses carry only `email` and `suppressed: false`. Addresses are matched case-insensitively. POST keeps addresses out of URLs; it changes nothing, so the reporting scope suffices. More than 500 addresses answer 422.",
      request: { body: { required: true, content: json(LookupRequest) } },
      responses: {
        200: { description: "One result per address.", content: json(envelope(z.array(LookupResult))) },
        ...errorResponses("mail", [400, 401, 409, 422, 429, 500]),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const results = await lookupSuppressions(deps.db, c.get("principal").customerId, body.stream, body.emails);
      return c.json({ data: results, request_id: c.get("requestId") }, 200);
    },
  );
}
