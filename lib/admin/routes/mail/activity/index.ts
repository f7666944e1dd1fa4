import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, CoreDeps } from "../../../../core/context";
import { envelope, errorResponses, pagedEnvelope } from "../../../../core/openapi";
import { decodeCursor } from "../../../../core/pagination";
import { RenderError } from "../../../../mail/routes/preview/schema";
import { ListQuery, SendJob, SendJobDetail } from "../../../../mail/routes/send-jobs/schema";
import { LookupRequest, LookupResult } from "../../../../mail/routes/suppressions/schema";
import { Usage } from "../../../../mail/routes/usage/schema";
import { getSendJobDetail, listSendJobs } from "../../../../mail/send-jobs/service";
import { lookupSuppressions } from "../../../../mail/suppressions/mirror";
import { getUsage } from "../../../../mail/usage/service";
import { previewStoredTemplate } from "../../../previews";
import { requireCustomer } from "../../../customers";
import { json } from "../../../../core/json";
import { security } from "../../shared";
import { CustomerIdParam } from "../../customers/schema";

const tags = ["Mail activity"];

const TemplateParams = CustomerIdParam.extend({
  templateId: z.uuid().openapi({ param: { name: "templateId", in: "path" }, description: "Template id.", example: "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f" }),
});

export const TemplatePreview = z
  .object({
    subject: z.string().openapi({ description: "The subject with the example values.", example: "Your order A-10023" }),
    html: z.string().openapi({ description: "The compiled HTML document, for an iframe `srcdoc`.", example: "<!doctype html><html>…</html>" }),
    errors: z.array(RenderError).openapi({ description: "MJML findings; empty when clean." }),
  })
  .openapi("AdminMailTemplatePreview");

const JobParams = CustomerIdParam.extend({
  jobId: z.uuid().openapi({ param: { name: "jobId", in: "path" }, description: "Send job id.", example: "8d7c6b5a-4f3e-4d2c-9b1a-0f9e8d7c6b5a" }),
});

/**
 * What a customer sees of its own mail, read by the operator: send jobs with progress, usage of the month
 * and the suppression mirror. The same services and schemas as the mail service's routes, so both views agree.
 */
export function registerMailActivityRoutes(router: OpenAPIHono<AppEnv>, deps: CoreDeps): void {
  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/customers/{id}/mail/send-jobs",
      operationId: "listCustomerSendJobs",
      tags,
      summary: "List a customer's send jobs",
      description: "As `GET /mail/v1/send-jobs` for that customer: newest first, cursor-paginated, `status` filters; items carry the counters.",
      security,
      request: { params: CustomerIdParam, query: ListQuery },
      responses: { 200: { description: "A page of jobs.", content: json(pagedEnvelope(SendJob)) }, ...errorResponses("admin", [400, 401, 404, 422]) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const query = c.req.valid("query");
      await requireCustomer(deps.db, id);
      const page = await listSendJobs(deps.db, id, { status: query.status, limit: query.limit, after: decodeCursor(query.after) });
      return c.json({ data: page.items, paging: page.paging, request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/customers/{id}/mail/send-jobs/{jobId}",
      operationId: "getCustomerSendJob",
      tags,
      summary: "Get a customer's send job with stats and timeline",
      description:
        "As `GET /mail/v1/send-jobs/{id}` for that customer: status, counters, batch progress, stats and the hourly timeline. A job of another customer answers 404.",
      security,
      request: { params: JobParams },
      responses: { 200: { description: "The job.", content: json(envelope(SendJobDetail)) }, ...errorResponses("admin", [401, 404, 422]) },
    }),
    async (c) => {
      const { id, jobId } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      return c.json({ data: await getSendJobDetail(deps.db, id, jobId), request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/customers/{id}/mail/usage",
      operationId: "getCustomerMailUsage",
      tags,
      summary: "A customer's mail usage of the month",
      description:
        "As `GET /mail/v1/usage` for that customer: accepted live e-mails this UTC month, projection, the 12 months before, the limits and what remains.",
      security,
      request: { params: CustomerIdParam },
      responses: { 200: { description: "Usage.", content: json(envelope(Usage)) }, ...errorResponses("admin", [401, 404, 422]) },
    }),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      const limits = { monthlyLimit: customer.mail.monthly_limit, maxPerJob: customer.mail.max_per_job };
      return c.json({ data: await getUsage(deps.db, customer.id, limits, deps.clock.now()), request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "post",
      path: "/v1/customers/{id}/mail/suppressions/lookup",
      operationId: "lookupCustomerSuppressions",
      tags,
      summary: "Look addresses up in a customer's suppression mirror",
      description:
        "As `POST /mail/v1/suppressions/lookup` for that customer: one result per address, from the mirror; changes nothing. More than 500 addresses answer 422.",
      security,
      request: { params: CustomerIdParam, body: { required: true, content: json(LookupRequest) } },
      responses: {
        200: { description: "One result per address.", content: json(envelope(z.array(LookupResult))) },
        ...errorResponses("admin", [400, 401, 404, 422]),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const body = c.req.valid("json");
      await requireCustomer(deps.db, id);
      return c.json({ data: await lookupSuppressions(deps.db, id, body.stream, body.emails), request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "post",
      path: "/v1/customers/{id}/mail/templates/{templateId}/preview",
      operationId: "previewCustomerMailTemplate",
      tags,
      summary: "Preview a customer's template",
      description:
        "Renders a stored template of the customer (admin or builder origin) through the send pipeline: its stack with the customer's design rules, frame and footer for its kind, the contract's example values as parameters, recipient placeholders empty. Sends and bills nothing. A block no longer enabled or active answers 403 naming it in `details`; content that cannot become a mail 422.",
      security,
      request: { params: TemplateParams },
      responses: { 200: { description: "Subject and HTML.", content: json(envelope(TemplatePreview)) }, ...errorResponses("admin", [401, 403, 404, 422]) },
    }),
    async (c) => {
      const { id, templateId } = c.req.valid("param");
      const customer = await requireCustomer(deps.db, id);
      return c.json({ data: await previewStoredTemplate(deps.db, customer, templateId), request_id: c.get("requestId") }, 200);
    },
  );
}
