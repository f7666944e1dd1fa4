import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { MailDeps } from "../../deps";
import { getSendJobRow } from "../../send-jobs/model";
import { jobLinks } from "../../send-jobs/statistics";
import { LinkStat, SendJobIdParam } from "../../send-jobs/schema";
import { json } from "../../../core/json";

export function registerListSendJobLinks(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  const route = serviceRoute(deps, "read", {
    method: "get",
    path: "/v1/send-jobs/{id}/links",
    operationId: "listSendJobLinks",
    tags: ["Send jobs"],
    summary: "Click statistics per link",
    description:
      "One entry per clicked URL with its click events and the number of messages with a click on it, most clicked first; computed from the stored click events on every read (they keep arriving after completion). Links never clicked do not appear.",
    request: { params: SendJobIdParam },
    responses: {
      200: { description: "The link statistics.", content: json(envelope(z.array(LinkStat))) },
      ...errorResponses("mail", [401, 404, 422, 429, 500]),
    },
  });
  router.openapi(route, async (c) => {
    const customerId = c.get("principal").customerId;
    const job = await getSendJobRow(deps.db, customerId, c.req.valid("param").id);
    return c.json({ data: await jobLinks(deps.db, customerId, job.id), request_id: c.get("requestId") }, 200);
  });
}
