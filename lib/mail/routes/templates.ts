import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../core/context";
import { envelope, errorResponses, pagedEnvelope } from "../../core/openapi";
import { cursorQuery, decodeCursor, limitQuery } from "../../core/pagination";
import { serviceRoute } from "../../core/route";
import type { MailDeps } from "../deps";
import { getMessage } from "../messages/service";
import { templateInUse } from "../send-jobs/service";
import { sendTransactional } from "../sending/transactional";
import { createTemplate, deleteTemplate, getTemplateRow, listTemplates, toTemplate, updateTemplate } from "../templates/service";
import { CreateTemplate, IdParam, Message, SendRequest, SendResult, Template, UpdateTemplate } from "./schema";

const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });

export function registerTemplateRoutes(app: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  app.openapi(
    serviceRoute(deps, "read", {
      method: "get",
      path: "/v1/templates",
      operationId: "listTemplates",
      tags: ["Templates"],
      summary: "List templates",
      description: "This account's templates with their parameter contracts, newest first, cursor-paginated.",
      request: { query: z.object({ limit: limitQuery(100, 25), ...cursorQuery }) },
      responses: { 200: { description: "A page of templates.", content: json(pagedEnvelope(Template)) }, ...errorResponses("mail", [400, 401, 422, 429, 500]) },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = await listTemplates(deps.db, c.get("principal").customerId, { limit: query.limit, after: decodeCursor(query.after) });
      return c.json({ data: page.items, paging: page.paging, request_id: c.get("requestId") }, 200);
    },
  );

  app.openapi(
    serviceRoute(deps, "write", {
      method: "post",
      path: "/v1/templates",
      operationId: "createTemplate",
      tags: ["Templates"],
      summary: "Save a builder stack as a template",
      description:
        "Creates a customer-origin newsletter template with fixed values (`{{placeholder}}` left in values are filled per recipient). The stack must not contain footer blocks (422): the footer comes from the account's frame. Blocks that are not enabled or not active answer 403. Send `Idempotency-Key` to create at most once.",
      request: { body: { required: true, content: json(CreateTemplate) } },
      responses: { 201: { description: "The template.", content: json(envelope(Template)) }, ...errorResponses("mail", [400, 401, 403, 409, 422, 429, 500]) },
    }),
    async (c) => {
      const template = await createTemplate(deps.db, c.get("principal").customerId, "customer", c.req.valid("json"));
      return c.json({ data: template, request_id: c.get("requestId") }, 201);
    },
  );

  app.openapi(
    serviceRoute(deps, "read", {
      method: "get",
      path: "/v1/templates/{id}",
      operationId: "getTemplate",
      tags: ["Templates"],
      summary: "Get a template with its stack",
      request: { params: IdParam },
      responses: { 200: { description: "The template.", content: json(envelope(Template)) }, ...errorResponses("mail", [401, 404, 422, 429, 500]) },
    }),
    async (c) => {
      const row = await getTemplateRow(deps.db, c.get("principal").customerId, c.req.valid("param").id);
      return c.json({ data: toTemplate(row), request_id: c.get("requestId") }, 200);
    },
  );

  app.openapi(
    serviceRoute(deps, "write", {
      method: "put",
      path: "/v1/templates/{id}",
      operationId: "updateTemplate",
      tags: ["Templates"],
      summary: "Change a customer-origin template",
      description: "Partial: only the given fields change; `version` is bumped. Admin-origin templates answer 403.",
      request: { params: IdParam, body: { required: true, content: json(UpdateTemplate) } },
      responses: { 200: { description: "The template.", content: json(envelope(Template)) }, ...errorResponses("mail", [400, 401, 403, 404, 409, 422, 429, 500]) },
    }),
    async (c) => {
      const template = await updateTemplate(deps.db, c.get("principal").customerId, c.req.valid("param").id, c.req.valid("json"), deps.clock.now());
      return c.json({ data: template, request_id: c.get("requestId") }, 200);
    },
  );

  app.openapi(
    serviceRoute(deps, "write", {
      method: "delete",
      path: "/v1/templates/{id}",
      operationId: "deleteTemplate",
      tags: ["Templates"],
      summary: "Delete a customer-origin template",
      description: "The template stops answering (404); messages sent from it keep their `template_id`. Admin-origin templates answer 403; a template used by a scheduled, running or paused send job answers 409 (`details.reason = template_in_use`).",
      request: { params: IdParam },
      responses: {
        200: { description: "Deleted.", content: json(envelope(z.object({ id: z.uuid().openapi({ description: "The deleted template.", example: "7b1c9a4e-2f0d-4e8b-9c3a-5d6e7f8a9b0c" }), deleted: z.boolean().openapi({ description: "Always true.", example: true }) }).openapi("TemplateDeleted"))) },
        ...errorResponses("mail", [401, 403, 404, 409, 422, 429, 500]),
      },
    }),
    async (c) => {
      const id = c.req.valid("param").id;
      const customerId = c.get("principal").customerId;
      await deleteTemplate(deps.db, customerId, id, deps.clock.now(), (templateId) => templateInUse(deps.db, customerId, templateId));
      return c.json({ data: { id, deleted: true }, request_id: c.get("requestId") }, 200);
    },
  );

  app.openapi(
    serviceRoute(deps, "send", {
      method: "post",
      path: "/v1/templates/{id}/send",
      operationId: "sendTemplate",
      tags: ["Templates"],
      summary: "Send a transactional mail",
      description:
        "Renders the template with `params` and sends it synchronously on the transactional stream. `to` is parsed as an RFC 5322 mailbox; an unparsable address yields `invalid` and an address suppressed on the transactional stream yields `suppressed`, both without a provider call. Unknown or missing required parameters answer 422. Sandbox accounts send through Postmark's test path: accepted, never delivered, never counted. Blocked sending answers 403, an account whose provider setup is incomplete 403 with `details.missing`, the monthly limit 429 `quota_exceeded`. If Postmark does not answer, the response is 500 with `error.message_id`; the message is `unknown`, never sent again, and a retry with the same `Idempotency-Key` returns the same answer. Send `Idempotency-Key` against double sends.",
      request: { params: IdParam, body: { required: true, content: json(SendRequest) } },
      responses: {
        200: { description: "The message id and its status.", content: json(envelope(SendResult)) },
        ...errorResponses("mail", [400, 401, 403, 404, 409, 422, 429, 500]),
      },
    }),
    async (c) => {
      const result = await sendTransactional(deps, c.get("principal"), { templateId: c.req.valid("param").id, ...c.req.valid("json") });
      return c.json({ data: result, request_id: c.get("requestId") }, 200);
    },
  );

  app.openapi(
    serviceRoute(deps, "read", {
      method: "get",
      path: "/v1/messages/{id}",
      operationId: "getMessage",
      tags: ["Messages"],
      summary: "Get a message",
      description: "State and history of one of this account's messages (another account's id answers 404). The recipient address never appears. History is kept 90 days, state permanently; opens and clicks exist only for newsletters.",
      request: { params: IdParam },
      responses: { 200: { description: "The message.", content: json(envelope(Message)) }, ...errorResponses("mail", [401, 404, 422, 429, 500]) },
    }),
    async (c) => {
      const message = await getMessage(deps.db, c.get("principal").customerId, c.req.valid("param").id, deps.clock.now());
      return c.json({ data: message, request_id: c.get("requestId") }, 200);
    },
  );
}
