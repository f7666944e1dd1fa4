import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, CoreDeps } from "../../core/context";
import { envelope, errorResponses, pagedEnvelope } from "../../core/openapi";
import { cursorQuery, decodeCursor, limitQuery } from "../../core/pagination";
import { createTemplate, getTemplateRow, listTemplates, toTemplate, updateTemplate } from "../../mail/templates/service";
import { CustomerIdParam } from "./schema";
import { requireCustomer } from "./mail-customer";
import { CreateMailTemplate, CustomerTemplateParams, json, MailTemplate, security, UpdateMailTemplate } from "./mail-schema";

export type MailTemplateResponse = z.infer<typeof MailTemplate>;

const tags = ["Mail templates"];

const stackRule =
  "The stack may reference only blocks enabled and active for the customer (403 `forbidden` with `details.block_ids` otherwise, the same answer the customer API gives) and no block tagged `footer` (422: the footer comes from the frame).";

export function registerMailTemplateRoutes(router: OpenAPIHono<AppEnv>, deps: CoreDeps): void {
  router.openapi(
    createRoute({
      method: "post",
      path: "/v1/customers/{id}/mail/templates",
      operationId: "createCustomerMailTemplate",
      tags,
      summary: "Create an admin template",
      description: `Creates a template of origin \`admin\` with a parameter contract: every send must give each \`required\` parameter a non-empty value and no unknown ones. The customer sees it in \`GET /v1/templates\` but cannot change or delete it (403). ${stackRule} \`kind\` cannot change later; \`from\` defaults to the customer's default sender for the kind.`,
      security,
      request: { params: CustomerIdParam, body: { required: true, content: json(CreateMailTemplate) } },
      responses: { 201: { description: "The new template.", content: json(envelope(MailTemplate)) }, ...errorResponses("admin", [400, 401, 403, 404, 422]) },
    }),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      const template = await createTemplate(deps.db, customer.id, "admin", c.req.valid("json"));
      return c.json({ data: template, request_id: c.get("requestId") }, 201);
    },
  );

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/customers/{id}/mail/templates",
      operationId: "listCustomerMailTemplates",
      tags,
      summary: "List a customer's templates",
      description: "Templates of both origins, newest first, cursor-paginated; deleted builder templates are left out.",
      security,
      request: { params: CustomerIdParam, query: z.object({ limit: limitQuery(100, 25), ...cursorQuery }) },
      responses: { 200: { description: "A page of templates.", content: json(pagedEnvelope(MailTemplate)) }, ...errorResponses("admin", [400, 401, 404, 422]) },
    }),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      const query = c.req.valid("query");
      const page = await listTemplates(deps.db, customer.id, { limit: query.limit, after: decodeCursor(query.after) });
      return c.json({ data: page.items, paging: page.paging, request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/customers/{id}/mail/templates/{templateId}",
      operationId: "getCustomerMailTemplate",
      tags,
      summary: "Get a template",
      description: "One template of the customer with its stack and contract.",
      security,
      request: { params: CustomerTemplateParams },
      responses: { 200: { description: "The template.", content: json(envelope(MailTemplate)) }, ...errorResponses("admin", [401, 404, 422]) },
    }),
    async (c) => {
      const { id, templateId } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      return c.json({ data: toTemplate(await getTemplateRow(deps.db, id, templateId)), request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "patch",
      path: "/v1/customers/{id}/mail/templates/{templateId}",
      operationId: "updateCustomerMailTemplate",
      tags,
      summary: "Change a template",
      description: `Partial update; \`params\` and \`blocks\` are replaced as a whole; bumps \`version\`. Works on templates of both origins (an operator may, for example, archive a builder template), but only admin-origin templates carry a contract: \`params\` on a builder template answers 422. \`kind\` cannot change: create a new template instead. ${stackRule}`,
      security,
      request: { params: CustomerTemplateParams, body: { required: true, content: json(UpdateMailTemplate) } },
      responses: { 200: { description: "The changed template.", content: json(envelope(MailTemplate)) }, ...errorResponses("admin", [400, 401, 403, 404, 422]) },
    }),
    async (c) => {
      const { id, templateId } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      const template = await updateTemplate(deps.db, id, templateId, c.req.valid("json"), deps.clock.now(), "admin");
      return c.json({ data: template, request_id: c.get("requestId") }, 200);
    },
  );
}
