import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, CoreDeps } from "../../core/context";
import { NotFoundError } from "../../core/errors";
import { envelope, errorResponses } from "../../core/openapi";
import type { BlockRow } from "../../mail/setup/blocks";
import { createBlock, deactivateBlock, getBlock, listAllBlocks, listEnabledBlocks, setBlockEnabled, updateBlock } from "../../mail/setup/blocks";
import { CustomerIdParam } from "./schema";
import { requireCustomer } from "./mail-customer";
import {
  BlockIdParam,
  CreateMailBlock,
  CustomerBlockParams,
  json,
  MailBlock,
  MailBlockEnablement,
  MailEnabledBlock,
  security,
  UpdateMailBlock,
} from "./mail-schema";

export type MailBlockResponse = z.infer<typeof MailBlock>;
export type MailEnabledBlockResponse = z.infer<typeof MailEnabledBlock>;

export function toMailBlock(row: BlockRow): MailBlockResponse {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    description: row.description ?? null,
    mjml: row.mjml,
    params: row.params,
    tags: row.tags,
    series: row.series ?? null,
    version: row.version,
    active: row.active,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

const tags = ["Mail blocks"];

/** The global block library and its enablement per customer. */
export function registerMailBlockRoutes(router: OpenAPIHono<AppEnv>, deps: CoreDeps): void {
  router.openapi(
    createRoute({
      method: "post",
      path: "/v1/mail/blocks",
      operationId: "createMailBlock",
      tags,
      summary: "Create a block",
      description:
        "Adds an MJML fragment to the global library (version 1, active). It is usable by no customer until enabled for it (`PUT /v1/customers/{id}/mail/blocks/{blockId}`). 422 names the field: a slug outside the pattern, empty MJML, unbalanced `{{#x}}…{{/x}}` sections, duplicate parameter names or tag slugs, a `javascript:` example of a `url` parameter, or a built-in tag (`header`, `footer`) with another label. Slugs need not be unique: stacks reference blocks by id.",
      security,
      request: { body: { required: true, content: json(CreateMailBlock) } },
      responses: { 201: { description: "The new block.", content: json(envelope(MailBlock)) }, ...errorResponses("admin", [400, 401, 422]) },
    }),
    async (c) => {
      const row = await createBlock(deps.db, c.req.valid("json"));
      return c.json({ data: toMailBlock(row), request_id: c.get("requestId") }, 201);
    },
  );

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/mail/blocks",
      operationId: "listMailBlocks",
      tags,
      summary: "List the block library",
      description: "Every block, active and inactive, oldest first. Not paginated: the library is maintained by hand and stays small.",
      security,
      responses: { 200: { description: "The blocks.", content: json(envelope(z.array(MailBlock))) }, ...errorResponses("admin", [401]) },
    }),
    async (c) => {
      const rows = await listAllBlocks(deps.db);
      return c.json({ data: rows.map(toMailBlock), request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/mail/blocks/{id}",
      operationId: "getMailBlock",
      tags,
      summary: "Get a block",
      description: "One block with its MJML, active or not.",
      security,
      request: { params: BlockIdParam },
      responses: { 200: { description: "The block.", content: json(envelope(MailBlock)) }, ...errorResponses("admin", [401, 404, 422]) },
    }),
    async (c) => {
      const row = await getBlock(deps.db, c.req.valid("param").id);
      if (!row) throw new NotFoundError("Block");
      return c.json({ data: toMailBlock(row), request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "patch",
      path: "/v1/mail/blocks/{id}",
      operationId: "updateMailBlock",
      tags,
      summary: "Change a block",
      description:
        "Partial update of any field; `params` and `tags` are replaced as a whole. Every change bumps `version`, which refreshes tiles and compiled templates. `active: false` deactivates the block for every customer (stacks that reference it then answer 403 on preview and send), `active: true` reactivates it; enablements are kept either way. Validation as on create.",
      security,
      request: { params: BlockIdParam, body: { required: true, content: json(UpdateMailBlock) } },
      responses: { 200: { description: "The changed block.", content: json(envelope(MailBlock)) }, ...errorResponses("admin", [400, 401, 404, 422]) },
    }),
    async (c) => {
      const row = await updateBlock(deps.db, c.req.valid("param").id, c.req.valid("json"), deps.clock.now());
      return c.json({ data: toMailBlock(row), request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "delete",
      path: "/v1/mail/blocks/{id}",
      operationId: "deactivateMailBlock",
      tags,
      summary: "Deactivate a block",
      description:
        "Deactivates rather than deletes: saved stacks reference blocks by id, so the row (and every enablement) stays and `PATCH` with `active: true` brings it back. Deactivating bumps `version`; deactivating an inactive block changes nothing and answers the block as it is.",
      security,
      request: { params: BlockIdParam },
      responses: { 200: { description: "The block, now inactive.", content: json(envelope(MailBlock)) }, ...errorResponses("admin", [401, 404, 422]) },
    }),
    async (c) => {
      const row = await deactivateBlock(deps.db, c.req.valid("param").id, deps.clock.now());
      if (!row) throw new NotFoundError("Block");
      return c.json({ data: toMailBlock(row), request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/customers/{id}/mail/blocks",
      operationId: "listCustomerMailBlocks",
      tags,
      summary: "List a customer's enabled blocks",
      description:
        "The blocks enabled for the customer, oldest block first, including inactive ones (`active: false`): the customer's `GET /v1/blocks` shows only the enabled blocks that are also active.",
      security,
      request: { params: CustomerIdParam },
      responses: { 200: { description: "The enabled blocks.", content: json(envelope(z.array(MailEnabledBlock))) }, ...errorResponses("admin", [401, 404, 422]) },
    }),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      const rows = await listEnabledBlocks(deps.db, customer.id);
      const data: MailEnabledBlockResponse[] = rows.map((row) => ({ ...toMailBlock(row), enabled_at: row.enabledAt.toISOString() }));
      return c.json({ data, request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "put",
      path: "/v1/customers/{id}/mail/blocks/{blockId}",
      operationId: "enableCustomerMailBlock",
      tags,
      summary: "Enable a block for a customer",
      description:
        "Idempotent: enabling an enabled block changes nothing. An inactive block may be enabled; the customer can use it once it is active again. No body.",
      security,
      request: { params: CustomerBlockParams },
      responses: { 200: { description: "The enablement.", content: json(envelope(MailBlockEnablement)) }, ...errorResponses("admin", [401, 404, 422]) },
    }),
    async (c) => {
      const { id, blockId } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      await setBlockEnabled(deps.db, id, blockId, true);
      return c.json({ data: { customer_id: id, block_id: blockId, enabled: true }, request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "delete",
      path: "/v1/customers/{id}/mail/blocks/{blockId}",
      operationId: "disableCustomerMailBlock",
      tags,
      summary: "Disable a block for a customer",
      description:
        "Idempotent: disabling a block that is not enabled changes nothing. The customer's saved templates keep their stacks, but previews and sends of stacks with the block answer 403 until it is enabled again.",
      security,
      request: { params: CustomerBlockParams },
      responses: { 200: { description: "The enablement, now off.", content: json(envelope(MailBlockEnablement)) }, ...errorResponses("admin", [401, 404, 422]) },
    }),
    async (c) => {
      const { id, blockId } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      await setBlockEnabled(deps.db, id, blockId, false);
      return c.json({ data: { customer_id: id, block_id: blockId, enabled: false }, request_id: c.get("requestId") }, 200);
    },
  );
}
