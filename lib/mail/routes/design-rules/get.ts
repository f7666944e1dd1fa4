import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { MailDeps } from "../../deps";
import { getDesignRules } from "../../setup/design";
import { DesignTokens } from "../../design-rules/schema";

export function registerGetDesignRules(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  router.openapi(
    serviceRoute(deps, "read", {
      method: "get",
      path: "/v1/design-rules",
      operationId: "getDesignRules",
      tags: ["Design rules"],
      summary: "Design tokens",
      description: "Complete resolved tokens of this account (defaults where no own rules exist). Read-only: administrators maintain them.",
      responses: { 200: { description: "The tokens.", content: json(envelope(DesignTokens)) }, ...errorResponses("mail", [401, 429, 500]) },
    }),
    async (c) => {
      const rules = await getDesignRules(deps.db, c.get("principal").customerId);
      return c.json({ data: rules.tokens, request_id: c.get("requestId") }, 200);
    },
  );
}
