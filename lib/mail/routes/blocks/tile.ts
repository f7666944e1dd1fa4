import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { NotFoundError } from "../../../core/errors";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { sha256Hex } from "../../../core/secrets";
import type { MailDeps } from "../../deps";
import { tileForCustomer } from "../../render/customer";
import { listUsableBlocks } from "../../setup/blocks";
import { IdParam } from "../../fields";
import { TILE_ETAG, Tile } from "../../blocks/schema";

export function registerGetBlockTile(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  router.openapi(
    serviceRoute(deps, "read", {
      method: "get",
      path: "/v1/blocks/{id}/tile",
      operationId: "getBlockTile",
      tags: ["Blocks"],
      summary: "Block tile",
      description:
        "The block rendered with its parameters' example values in this account's design, as a complete HTML document for an iframe `srcdoc`. Cached server-side; the `ETag` changes with the block's version, the design rules and the brand values, and `If-None-Match` answers 304.",
      request: { params: IdParam },
      parameters: [
        {
          name: "If-None-Match",
          in: "header",
          required: false,
          description: "The `ETag` of the tile you hold; while it still matches the answer is 304 without a body.",
          schema: { type: "string", example: '"3f2a9c0d4b5e6f708192a3b4c5d6e7f8"' },
        },
      ],
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
}
