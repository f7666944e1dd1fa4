import { adminRoute } from "../../../access";
import type { AdminDeps } from "../../../deps";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { SendJob } from "../../../../mail";
import { reputationFigures, resumeGuardedJob, setGuardThresholds } from "../../../../mail";
import { requireCustomer } from "../../../customers";
import { CustomerIdParam } from "../../../customers/schema";
import { JobParams } from "../../../mail/activity/schema";
import type { AdminRouter } from "../../shared";
import { Reputation, tags, UpdateReputationGuard } from "../../../mail/deliverability/schema";

export function registerReputationRoutes(router: AdminRouter, deps: AdminDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "get",
        path: "/v1/customers/{id}/mail/reputation",
        operationId: "getCustomerMailReputation",
        tags,
        summary: "Get a customer's 30-day reputation figures and guard thresholds",
        description:
          "Delivered, hard-bounce rate, complaint rate and unsubscribes over the last 30 days of live mail, newsletters and transactional mail apart, with the reputation guard's thresholds for this customer and the defaults. A newsletter complaint rate above the threshold also shows as the `complaint_rate` warning in readiness.",
        request: { params: CustomerIdParam },
        responses: { 200: { description: "The figures.", content: json(envelope(Reputation)) }, ...errorResponses("admin", [401, 404, 422]) },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      return c.json({ data: await reputationFigures(deps.db, customer.id, deps.clock.now()), request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    adminRoute(
      deps,
      "admin",
      {
        method: "patch",
        path: "/v1/customers/{id}/mail/reputation",
        operationId: "updateCustomerMailReputationGuard",
        tags,
        summary: "Change a customer's reputation-guard thresholds",
        description:
          "Sets any of `bounce_rate`, `complaint_rate` and `min_sample` within their bounds (422 outside them), or `reset: true` for the defaults. Applies to the next event of every running job of the customer. Audited.",
        request: { params: CustomerIdParam, body: { required: true, content: json(UpdateReputationGuard) } },
        responses: {
          200: { description: "The figures with the new thresholds.", content: json(envelope(Reputation)) },
          ...errorResponses("admin", [400, 401, 404, 422]),
        },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      const { reset, ...thresholds } = c.req.valid("json");
      await setGuardThresholds(deps.db, customer.id, reset ? null : thresholds, deps.clock.now());
      return c.json({ data: await reputationFigures(deps.db, customer.id, deps.clock.now()), request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    adminRoute(
      deps,
      "admin",
      {
        method: "post",
        path: "/v1/customers/{id}/mail/send-jobs/{jobId}/resume",
        operationId: "resumeCustomerSendJob",
        tags,
        summary: "Resume a send job the reputation guard paused",
        description:
          "For a job in `paused` with `pause_reason` `bounce_rate` or `complaint_rate` only: it runs again under a new run and its guard sample starts from zero (the guard judges the rest of the send afresh once the minimum sample is reached again). Any other job answers 409 `not_paused_by_guard` (the customer's own start resumes the other pauses). Audited, like every operator write.",
        request: { params: JobParams },
        responses: { 200: { description: "The job, running.", content: json(envelope(SendJob)) }, ...errorResponses("admin", [401, 404, 409, 422]) },
      },
      { target: ["customer", "send_job"] },
    ),
    async (c) => {
      const { id, jobId } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      return c.json({ data: await resumeGuardedJob(deps, id, jobId), request_id: c.get("requestId") }, 200);
    },
  );
}
