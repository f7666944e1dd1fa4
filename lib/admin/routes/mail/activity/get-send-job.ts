import { adminRoute } from "../../../access";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../../core/context";
import { envelope, errorResponses } from "../../../../core/openapi";
import { SendJobDetail } from "../../../../mail";
import { getSendJobDetail } from "../../../../mail";
import { requireCustomer } from "../../../customers";
import { json } from "../../../../core/json";
import type { CoreDeps } from "../../../../core/context";
import { tags, JobParams } from "../../../mail/activity/schema";

export function registerGetCustomerSendJob(router: OpenAPIHono<AppEnv>, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/mail/send-jobs/{jobId}",
        operationId: "getCustomerSendJob",
        tags,
        summary: "Get a customer's send job with stats and timeline",
        description:
          "As `GET /mail/v1/send-jobs/{id}` for that customer: status, counters, batch progress, stats and the hourly timeline. A job of another customer answers 404.",
        request: { params: JobParams },
        responses: { 200: { description: "The job.", content: json(envelope(SendJobDetail)) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["customer", "send_job"] },
    ),
    async (c) => {
      const { id, jobId } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      return c.json({ data: await getSendJobDetail(deps.db, id, jobId), request_id: c.get("requestId") }, 200);
    },
  );
}
