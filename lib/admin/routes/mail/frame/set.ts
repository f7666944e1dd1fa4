import { adminRoute } from "../../../access";
import type { CoreDeps } from "../../../../core/context";
import { json } from "../../../../core/json";
import { envelope, errorResponses } from "../../../../core/openapi";
import { setFrame } from "../../../../mail";
import { requireCustomer } from "../../../customers";
import { CustomerIdParam } from "../../../customers/schema";
import type { AdminRouter } from "../../shared";
import { MailFrame, PutMailFrame, tags } from "../../../mail/frame/schema";

export function registerSetCustomerFrame(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "admin",
      {
        method: "put",
        path: "/v1/customers/{id}/mail/frame",
        operationId: "setCustomerFrame",
        tags,
        summary: "Set a customer's frame",
        description:
          "Replaces the whole frame. The newsletter footer must contain a link with `href=\"{{{ pm:unsubscribe }}}\"` (422 on `newsletter_footer_mjml` otherwise): Postmark fills in each recipient's unsubscribe URL on the broadcast stream, and newsletters carry no other unsubscribe link. Fragments are body-level MJML and may use `{{brand.<key>}}` and `{{token.<key>}}`; unbalanced `{{#x}}…{{/x}}` sections answer 422 naming the fragment. Brand URLs are absolute http(s) URLs. Bumps `version`; brand changes refresh the customer's tiles.",
        request: { params: CustomerIdParam, body: { required: true, content: json(PutMailFrame) } },
        responses: { 200: { description: "The frame.", content: json(envelope(MailFrame)) }, ...errorResponses("admin", [400, 401, 404, 422]) },
      },
      { target: ["customer"] },
    ),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      const frame = await setFrame(deps.db, customer.id, c.req.valid("json"), deps.clock.now());
      return c.json({ data: { ...frame, header_mjml: frame.header_mjml ?? null }, request_id: c.get("requestId") }, 200);
    },
  );
}
