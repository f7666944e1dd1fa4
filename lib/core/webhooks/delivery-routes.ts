import type { OpenAPIHono, RouteConfig, RouteHandler } from "@hono/zod-openapi";
import type { AppEnv, CoreDeps } from "../context";
import type { ServiceName } from "../errors";
import { json } from "../json";
import { envelope, errorResponses, pagedEnvelope, type ErrorStatus, type idPathParam } from "../openapi";
import { serviceRoute } from "../route";
import { deliveryListInput, listWebhookDeliveries, redeliverWebhookDelivery, sendTestWebhookEvent } from "./deliveries";
import type { WebhookStore } from "./engine";
import { DELIVERY_LOG_RULES, DeliveryParams, REDELIVER_RULES, TEST_EVENT_RULES, type deliveryListQuery, type webhookDeliveryFields } from "./schema";

/** Either service's event names: the routes only pass them through, so they are typed as names. */
type Events = readonly [string, ...string[]];

/**
 * What one service's delivery routes name differently; the routes themselves (scope, parameters, the log's
 * and the redelivery's rules, the handlers) are the same in mail and ads.
 */
type DeliveryRoutesKind = {
  service: Exclude<ServiceName, "admin">;
  store: WebhookStore;
  operationIds: { list: string; redeliver: string; test: string };
  /** What the service calls a webhook: "endpoint" (mail) or "registration" (ads). */
  noun: string;
  listSummary: string;
  /** A sentence appended to the log's description. */
  listNote?: string;
  params: ReturnType<typeof idPathParam>;
  query: ReturnType<typeof deliveryListQuery<Events>>;
  delivery: ReturnType<typeof webhookDeliveryFields<Events>>;
  /** The redelivery's statuses serve the test event too (the same refusals: scope, 404, inactive 409, rate limit). */
  errors: { list: ErrorStatus[]; redeliver: ErrorStatus[] };
  /** How the service registers a route (ads also serves it under `/v1/platform/…`). */
  register?: <R extends RouteConfig>(router: OpenAPIHono<AppEnv>, route: R, handler: RouteHandler<R, AppEnv>) => void;
};

/**
 * `GET /v1/webhooks/{id}/deliveries`, `POST /v1/webhooks/{id}/deliveries/{delivery_id}/redeliver` and
 * `POST /v1/webhooks/{id}/test` of one service.
 */
export function registerWebhookDeliveryRoutes(router: OpenAPIHono<AppEnv>, deps: CoreDeps, kind: DeliveryRoutesKind): void {
  const register = kind.register ?? ((on, route, handler) => on.openapi(route, handler));
  const list = serviceRoute(deps, "read", {
    method: "get",
    path: "/v1/webhooks/{id}/deliveries",
    operationId: kind.operationIds.list,
    tags: ["Webhooks"],
    summary: kind.listSummary,
    description: `The delivery log of one of this account's ${kind.noun}s (another account's id answers 404). ${DELIVERY_LOG_RULES}${kind.listNote ? ` ${kind.listNote}` : ""}`,
    request: { params: kind.params, query: kind.query },
    responses: {
      200: { description: "A page of deliveries.", content: json(pagedEnvelope(kind.delivery)) },
      ...errorResponses(kind.service, kind.errors.list),
    },
  });
  register(router, list, async (c) => {
    const query = c.req.valid("query");
    const page = await listWebhookDeliveries(kind.store, deps.db, c.get("principal").customerId, c.req.valid("param").id, deliveryListInput(query));
    return c.json({ data: page.items, paging: page.paging, request_id: c.get("requestId") }, 200);
  });
  const redeliver = serviceRoute(deps, "write", {
    method: "post",
    path: "/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver",
    operationId: kind.operationIds.redeliver,
    tags: ["Webhooks"],
    summary: "Redeliver a delivery",
    description: `${REDELIVER_RULES} Another account's ${kind.noun} or delivery answers 404.`,
    request: { params: DeliveryParams },
    responses: {
      202: { description: "Queued; the delivery as it stands.", content: json(envelope(kind.delivery)) },
      ...errorResponses(kind.service, kind.errors.redeliver),
    },
  });
  register(router, redeliver, async (c) => {
    const { id, delivery_id } = c.req.valid("param");
    const delivery = await redeliverWebhookDelivery(kind.store, deps, c.get("principal").customerId, id, delivery_id);
    return c.json({ data: delivery, request_id: c.get("requestId") }, 202);
  });
  const test = serviceRoute(deps, "write", {
    method: "post",
    path: "/v1/webhooks/{id}/test",
    operationId: kind.operationIds.test,
    tags: ["Webhooks"],
    summary: "Send a test event",
    description: `${TEST_EVENT_RULES} Another account's ${kind.noun} answers 404.`,
    request: { params: kind.params },
    responses: {
      202: { description: "Queued; the test delivery as it stands.", content: json(envelope(kind.delivery)) },
      ...errorResponses(kind.service, kind.errors.redeliver),
    },
  });
  register(router, test, async (c) => {
    const delivery = await sendTestWebhookEvent(kind.store, kind.service, deps, c.get("principal").customerId, c.req.valid("param").id);
    return c.json({ data: delivery, request_id: c.get("requestId") }, 202);
  });
}
