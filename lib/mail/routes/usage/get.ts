import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { MailDeps } from "../../deps";
import { getUsage } from "../../usage/service";
import { Usage } from "../../usage/schema";

export function registerGetUsage(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  const route = serviceRoute(deps, "read", {
    method: "get",
    path: "/v1/usage",
    operationId: "getUsage",
    tags: ["Usage"],
    summary: "Sent quantities and the monthly limit",
    description:
      "Accepted live e-mails of the current UTC month, the projection for the month, the previous 12 months, the monthly limit, the per-job maximum and what remains. A message counts in the month it was accepted by the provider. The daily counts are reported to the billing system separately; there are no amounts here.",
    responses: {
      200: { description: "Usage.", content: json(envelope(Usage)) },
      ...errorResponses("mail", [401, 429, 500]),
    },
  });
  router.openapi(route, async (c) => {
    const principal = c.get("principal");
    const limits = { monthlyLimit: principal.mail?.monthlyLimit ?? 0, maxPerJob: principal.mail?.maxPerJob ?? 0 };
    const usage = await getUsage(deps.db, principal.customerId, limits, deps.clock.now());
    return c.json({ data: usage, request_id: c.get("requestId") }, 200);
  });
}
