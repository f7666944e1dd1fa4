import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, CoreDeps } from "../../core/context";
import { envelope, errorResponses } from "../../core/openapi";
import { frameFor } from "../../mail/render/customer";
import { getFrame, setFrame, type FrameRecord } from "../../mail/setup/frame";
import { CustomerIdParam } from "./schema";
import { requireCustomer } from "./mail-customer";
import { json, MailFrame, PutMailFrame, security } from "./mail-schema";

const tags = ["Mail frame"];

export function registerMailFrameRoutes(router: OpenAPIHono<AppEnv>, deps: CoreDeps): void {
  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/customers/{id}/mail/frame",
      operationId: "getCustomerFrame",
      tags,
      summary: "Get a customer's frame",
      description:
        "Header, footers and brand values wrapped around every mail of the customer. While none is set the answer is the default frame with the customer's name as `company_name`, marked by `version` 0 and `updated_at` null: that is what renders, but the readiness items `newsletter_footer` and `transactional_footer` stay red until a frame is set.",
      security,
      request: { params: CustomerIdParam },
      responses: { 200: { description: "The frame.", content: json(envelope(MailFrame)) }, ...errorResponses("admin", [401, 404, 422]) },
    }),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      const frame: FrameRecord = (await getFrame(deps.db, customer.id)) ?? { ...(await frameFor(deps.db, customer.id, customer.name)), version: 0, updated_at: null };
      return c.json({ data: { ...frame, header_mjml: frame.header_mjml ?? null }, request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "put",
      path: "/v1/customers/{id}/mail/frame",
      operationId: "setCustomerFrame",
      tags,
      summary: "Set a customer's frame",
      description:
        'Replaces the whole frame. The newsletter footer must contain a link with `href="{{{ pm:unsubscribe }}}"` (422 on `newsletter_footer_mjml` otherwise): Postmark fills in each recipient\'s unsubscribe URL on the broadcast stream, and newsletters carry no other unsubscribe link. Fragments are body-level MJML and may use `{{brand.<key>}}` and `{{token.<key>}}`; unbalanced `{{#x}}…{{/x}}` sections answer 422 naming the fragment. Brand URLs are absolute http(s) URLs. Bumps `version`; brand changes refresh the customer\'s tiles.',
      security,
      request: { params: CustomerIdParam, body: { required: true, content: json(PutMailFrame) } },
      responses: { 200: { description: "The frame.", content: json(envelope(MailFrame)) }, ...errorResponses("admin", [400, 401, 404, 422]) },
    }),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      const frame = await setFrame(deps.db, customer.id, c.req.valid("json"), deps.clock.now());
      return c.json({ data: { ...frame, header_mjml: frame.header_mjml ?? null }, request_id: c.get("requestId") }, 200);
    },
  );
}
