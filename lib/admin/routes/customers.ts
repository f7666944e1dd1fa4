import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, CoreDeps } from "../../core/context";
import { NotFoundError } from "../../core/errors";
import { envelope, errorResponses, pagedEnvelope } from "../../core/openapi";
import { cursorQuery, decodeCursor, limitQuery } from "../../core/pagination";
import { createCustomer, getCustomer, listCustomers, updateCustomer } from "../customers";
import { CreateCustomer, Customer, CustomerIdParam, UpdateCustomer } from "./schema";

const security = [{ adminToken: [] }];
const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });

export function registerCustomerRoutes(router: OpenAPIHono<AppEnv>, deps: CoreDeps): void {
  router.openapi(
    createRoute({
      method: "post",
      path: "/v1/customers",
      operationId: "createCustomer",
      tags: ["Customers"],
      summary: "Create a customer",
      description: "Creates a customer with mail and ads settings (defaults where not given).",
      security,
      request: { body: { required: true, content: json(CreateCustomer) } },
      responses: { 201: { description: "Created.", content: json(envelope(Customer)) }, ...errorResponses("admin", [400, 401, 422]) },
    }),
    async (c) => {
      const customer = await createCustomer(deps.db, c.req.valid("json"));
      return c.json({ data: customer, request_id: c.get("requestId") }, 201);
    },
  );

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/customers",
      operationId: "listCustomers",
      tags: ["Customers"],
      summary: "List customers",
      description: "Chronological, cursor-paginated.",
      security,
      request: { query: z.object({ limit: limitQuery(100, 25), ...cursorQuery }) },
      responses: { 200: { description: "A page of customers.", content: json(pagedEnvelope(Customer)) }, ...errorResponses("admin", [400, 401]) },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = await listCustomers(deps.db, { limit: query.limit, after: decodeCursor(query.after) });
      return c.json({ data: page.items, paging: page.paging, request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/customers/{id}",
      operationId: "getCustomer",
      tags: ["Customers"],
      summary: "Get a customer",
      security,
      request: { params: CustomerIdParam },
      responses: { 200: { description: "The customer.", content: json(envelope(Customer)) }, ...errorResponses("admin", [401, 404, 422]) },
    }),
    async (c) => {
      const customer = await getCustomer(deps.db, c.req.valid("param").id);
      if (!customer) throw new NotFoundError("Customer");
      return c.json({ data: customer, request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "patch",
      path: "/v1/customers/{id}",
      operationId: "updateCustomer",
      tags: ["Customers"],
      summary: "Change a customer's name or settings",
      description: "Partial update. Mail: `sending_blocked`, `mode`, `monthly_limit`, `max_per_job`. Ads: `account_state`, `stage`, `enterprise_included_ads`. Takes effect on the next request.",
      security,
      request: { params: CustomerIdParam, body: { required: true, content: json(UpdateCustomer) } },
      responses: { 200: { description: "The updated customer.", content: json(envelope(Customer)) }, ...errorResponses("admin", [400, 401, 404, 422]) },
    }),
    async (c) => {
      const customer = await updateCustomer(deps.db, c.req.valid("param").id, c.req.valid("json"), deps.clock.now());
      if (!customer) throw new NotFoundError("Customer");
      deps.principals.invalidateCustomer(customer.id);
      return c.json({ data: customer, request_id: c.get("requestId") }, 200);
    },
  );
}
