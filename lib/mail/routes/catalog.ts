import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../core/context";
import { NotFoundError } from "../../core/errors";
import { envelope, errorResponses } from "../../core/openapi";
import { serviceRoute } from "../../core/route";
import { sha256Hex } from "../../core/secrets";
import type { MailDeps } from "../deps";
import { renderForCustomer, tileForCustomer } from "../rendering";
import { listUsableBlocks, type BlockRow } from "../setup/blocks";
import { getDesignRules } from "../setup/design";
import { Block, DesignTokens, IdParam, Preview, PreviewRequest, Tile } from "./schema";

const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });

function toBlock(row: BlockRow) {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    tags: row.tags,
    series: row.series ?? null,
    description: row.description ?? null,
    version: row.version,
    params: row.params,
    tile_url: `/mail/v1/blocks/${row.id}/tile`,
  };
}

/** Blocks, tiles, design rules and preview: the read side of the builder. */
const TILE_ETAG = { description: "Version of the tile (block version, design rules, brand values); send it back as `If-None-Match`.", required: true, schema: { type: "string" as const, example: '"3f2a9c0d4b5e6f708192a3b4c5d6e7f8"' } };

export function registerCatalogRoutes(app: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  app.openapi(
    serviceRoute(deps, "read", {
      method: "get",
      path: "/v1/blocks",
      operationId: "listBlocks",
      tags: ["Blocks"],
      summary: "List usable blocks",
      description: "The blocks an administrator enabled for this account and that are active, oldest first.",
      responses: { 200: { description: "The blocks.", content: json(envelope(z.array(Block))) }, ...errorResponses("mail", [401, 429, 500]) },
    }),
    async (c) => {
      const rows = await listUsableBlocks(deps.db, c.get("principal").customerId);
      return c.json({ data: rows.map(toBlock), request_id: c.get("requestId") }, 200);
    },
  );

  app.openapi(
    serviceRoute(deps, "read", {
      method: "get",
      path: "/v1/blocks/{id}/tile",
      operationId: "getBlockTile",
      tags: ["Blocks"],
      summary: "Block tile",
      description:
        "The block rendered with its parameters' example values in this account's design, as a complete HTML document for an iframe `srcdoc`. Cached server-side; the `ETag` changes with the block's version, the design rules and the brand values, and `If-None-Match` answers 304.",
      request: { params: IdParam },
      parameters: [{ name: "If-None-Match", in: "header", required: false, description: "The `ETag` of the tile you hold; while it still matches the answer is 304 without a body.", schema: { type: "string", example: '"3f2a9c0d4b5e6f708192a3b4c5d6e7f8"' } }],
      responses: {
        200: { description: "The tile.", content: json(envelope(Tile)), headers: { ETag: TILE_ETAG } },
        304: { description: "Not modified (the `ETag` still matches).", headers: { ETag: TILE_ETAG } },
        ...errorResponses("mail", [401, 404, 422, 429, 500]),
      },
    }),
    async (c) => {
      const principal = c.get("principal");
      const id = c.req.valid("param").id;
      const usable = await listUsableBlocks(deps.db, principal.customerId);
      const block = usable.find((b) => b.id === id);
      if (!block) throw new NotFoundError("Block");
      const { key, tile } = await tileForCustomer(deps.db, { id: principal.customerId, name: principal.customerName }, block);
      const etag = `"${sha256Hex(key).slice(0, 32)}"`;
      c.header("ETag", etag);
      c.header("Cache-Control", "private, no-cache");
      if (c.req.header("if-none-match") === etag) return c.body(null, 304);
      return c.json({ data: { block_id: block.id, slug: block.slug, html: tile.html }, request_id: c.get("requestId") }, 200);
    },
  );

  app.openapi(
    serviceRoute(deps, "read", {
      method: "get",
      path: "/v1/design-rules",
      operationId: "getDesignRules",
      tags: ["Design rules"],
      summary: "Design tokens",
      description: "Complete resolved tokens of this account (defaults where no own rules exist). Read-only: administrators maintain them.",
      responses: { 200: { description: "The tokens.", content: json(envelope(DesignTokens)) }, ...errorResponses("mail", [401, 429, 500]) },
    }),
    async (c) => {
      const rules = await getDesignRules(deps.db, c.get("principal").customerId);
      return c.json({ data: rules.tokens, request_id: c.get("requestId") }, 200);
    },
  );

  app.openapi(
    serviceRoute(deps, "write", {
      method: "post",
      path: "/v1/render/preview",
      operationId: "renderPreview",
      tags: ["Rendering"],
      summary: "Preview a stack",
      description:
        "Stateless: renders a builder stack as a newsletter with this account's design rules, brand values and newsletter footer, exactly as a template with this stack is rendered when sent (the same pipeline; placeholders that recipient data would fill render empty, conditional sections without a value are left out). Sends and bills nothing. 403 when a block is not enabled or not active (one `details` entry `{ path: blocks.<i>.block_id, message }` per such entry); 422 for content that cannot become a mail (e.g. a `javascript:` URL, a missing required block parameter).",
      request: { body: { required: true, content: json(PreviewRequest) } },
      responses: {
        200: { description: "MJML, compiled HTML and MJML findings.", content: json(envelope(Preview)) },
        ...errorResponses("mail", [400, 401, 403, 422, 429, 500]),
      },
    }),
    async (c) => {
      const principal = c.get("principal");
      const body = c.req.valid("json");
      const result = await renderForCustomer(deps.db, { id: principal.customerId, name: principal.customerName }, {
        kind: "newsletter",
        stack: body.blocks,
        values: body.values,
      });
      return c.json({ data: { mjml: result.mjml, html: result.html, errors: result.errors, stub: false }, request_id: c.get("requestId") }, 200);
    },
  );
}

