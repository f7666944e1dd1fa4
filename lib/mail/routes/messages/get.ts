import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { MailDeps } from "../../deps";
import { getMessage } from "../../messages/service";
import { IdParam } from "../../fields";
import { Message } from "../../messages/schema";

export function registerGetMessage(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  router.openapi(
    serviceRoute(deps, "read", {
      method: "get",
      path: "/v1/messages/{id}",
      operationId: "getMessage",
      tags: ["Messages"],
      summary: "Get a message",
      description:
        "State and history of one of this account's messages (another account's id answers 404). The recipient address never appears. History is kept 90 days, state permanently; opens and clicks exist only for newsletters.",
      request: { params: IdParam },
      responses: { 200: { description: "The message.", content: json(envelope(Message)) }, ...errorResponses("mail", [401, 404, 422, 429, 500]) },
    }),
    async (c) => {
      const message = await getMessage(deps.db, c.get("principal").customerId, c.req.valid("param").id, deps.clock.now());
      return c.json({ data: message, request_id: c.get("requestId") }, 200);
    },
  );
}
