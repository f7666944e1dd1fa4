import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, CoreDeps } from "../../core/context";
import { envelope, errorResponses } from "../../core/openapi";
import { registerSimulatorServers } from "../../mail/seed";
import type { Providers } from "../../providers";
import { getProviderConfig, readiness, setProviderConfig } from "../../mail/setup/provider-config";
import { CustomerIdParam } from "./schema";
import { requireCustomer } from "./mail-customer";
import { json, MailProviderConfig, MailReadiness, security, UpdateMailProviderConfig } from "./mail-schema";

const tags = ["Mail provider"];

export function registerMailProviderRoutes(router: OpenAPIHono<AppEnv>, deps: CoreDeps & { providers: Pick<Providers, "postmarkSimulator"> }): void {
  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/customers/{id}/mail/provider",
      operationId: "getCustomerMailProvider",
      tags,
      summary: "Get a customer's Postmark configuration",
      description: "The customer's Postmark server and senders. The server token is never returned, only `server_token_set`. Before anything is set every field is empty.",
      security,
      request: { params: CustomerIdParam },
      responses: { 200: { description: "The configuration.", content: json(envelope(MailProviderConfig)) }, ...errorResponses("admin", [401, 404, 422]) },
    }),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      return c.json({ data: await getProviderConfig(deps.db, customer.id), request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "patch",
      path: "/v1/customers/{id}/mail/provider",
      operationId: "updateCustomerMailProvider",
      tags,
      summary: "Change a customer's Postmark configuration",
      description:
        "Partial update; lists are replaced as a whole, addresses and domains are stored lower-case. `server_token` is write-only: it is encrypted at rest (AES-256-GCM) and never returned or logged. The token is not tried against Postmark here, and a default sender outside the verified senders and domains is accepted: `GET /v1/customers/{id}/mail/readiness` reports such gaps, and sends answer 403 until every item is green.",
      security,
      request: { params: CustomerIdParam, body: { required: true, content: json(UpdateMailProviderConfig) } },
      responses: { 200: { description: "The configuration.", content: json(envelope(MailProviderConfig)) }, ...errorResponses("admin", [400, 401, 404, 422]) },
    }),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      const config = await setProviderConfig(deps.db, deps.secrets, customer.id, c.req.valid("json"), deps.clock.now());
      // Embedded mode: the in-memory Postmark simulator learns the server at once.
      await registerSimulatorServers(deps, customer.id);
      return c.json({ data: config, request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/customers/{id}/mail/readiness",
      operationId: "getCustomerMailReadiness",
      tags,
      summary: "Check whether a customer can send",
      description:
        "The spec's precondition for sending, item by item: `server_token`, `transactional_stream`, `broadcast_stream`, `verified_senders` (at least one address or domain), `default_newsletter_from` (set and verified), `newsletter_footer` and `transactional_footer` (a frame is set). Each is `green` or `red` with what to do. While any item is red, the customer's sends answer 403 `forbidden` with `details.missing` naming the red items.",
      security,
      request: { params: CustomerIdParam },
      responses: { 200: { description: "The readiness items.", content: json(envelope(MailReadiness)) }, ...errorResponses("admin", [401, 404, 422]) },
    }),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      const items = await readiness(deps.db, customer.id);
      return c.json({ data: { ready: items.every((i) => i.status === "green"), items }, request_id: c.get("requestId") }, 200);
    },
  );
}
