import { z } from "@hono/zod-openapi";
import type { BlockRow } from "../setup/blocks";
import { blockParamSchema } from "../../db/json-columns";
import { uuidExample } from "../fields";

/** The fields of a block parameter (`blockParamSchema`, documented); `BlockParam` here, `MailBlockParam` (with the limits the operator must keep) in the admin API. */
export const BlockParamFields = blockParamSchema.extend({
  name: blockParamSchema.shape.name.openapi({ description: "Placeholder name used in the block (`{{name}}`).", example: "title" }),
  label: blockParamSchema.shape.label.openapi({ description: "Label for the builder UI.", example: "Title" }),
  type: blockParamSchema.shape.type.openapi({
    description: "`string`, `text` (line breaks kept), `url` or `image` (absolute https URL, e.g. an asset URL).",
    example: "string",
  }),
  required: blockParamSchema.shape.required.openapi({ description: "Whether a value must be given.", example: true }),
  fallback: blockParamSchema.shape.fallback.openapi({ description: "Used when no value is given.", example: null }),
  hide_if_missing: blockParamSchema.shape.hide_if_missing.openapi({ description: "Without a value the block's element is left out.", example: false }),
  example: blockParamSchema.shape.example.openapi({ description: "Example value (used in tiles).", example: "Our spring news" }),
});

const BlockParam = BlockParamFields.openapi("BlockParam");

/** The fields of a block tag; `BlockTag` here, `MailBlockTag` in the admin API. */
export const TagFields = z.object({
  slug: z.string().openapi({ description: "Stable key; logic uses it. `header` and `footer` are built in.", example: "header" }),
  label: z.string().openapi({ description: "Display label.", example: "Header" }),
});

const Tag = TagFields.openapi("BlockTag");

/** The fields of a block; `Block` here, `MailBlock` (with its MJML and lifecycle) in the admin API. */
export const BlockFields = z.object({
  id: z.uuid().openapi({ description: "Immutable block id; stacks reference blocks by it.", example: uuidExample }),
  slug: z.string().openapi({ description: "Human-readable label; may change.", example: "heading" }),
  name: z.string().openapi({ description: "Display name.", example: "Heading" }),
  tags: z.array(Tag).openapi({ description: "Categories." }),
  series: z
    .object({
      slug: z.string().openapi({ description: "Series key.", example: "classic" }),
      label: z.string().openapi({ description: "Series label.", example: "Classic" }),
    })
    .nullable()
    .openapi({ description: "At most one series, for grouping only; a stack may mix series.", example: { slug: "classic", label: "Classic" } }),
  description: z.string().nullable().openapi({ description: "What the block is for.", example: "A large heading." }),
  version: z.number().int().openapi({ description: "Bumped on every change of the block.", example: 3 }),
  params: z.array(BlockParam).openapi({ description: "Parameter schema." }),
  tile_url: z.string().openapi({ description: "Path of the block's tile (GET, same key).", example: `/mail/v1/blocks/${uuidExample}/tile` }),
});

export const Block = BlockFields.openapi("Block");

export const Tile = z
  .object({
    block_id: z.uuid().openapi({ description: "The block.", example: uuidExample }),
    slug: z.string().openapi({ description: "The block's slug.", example: "heading" }),
    html: z.string().nullable().openapi({
      description: "Complete HTML document for an iframe `srcdoc`; null when the block cannot render with its examples.",
      example: "<!doctype html>…",
    }),
  })
  .openapi("BlockTile");

export type BlockResponse = z.infer<typeof Block>;

/** A usable block as the API shows it, with the path of its tile. */
export function toBlockView(row: BlockRow): BlockResponse {
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

/** The `ETag` header of a tile answer (200 and 304). */
export const TILE_ETAG = {
  description: "Version of the tile (block version, design rules, brand values); send it back as `If-None-Match`.",
  required: true,
  schema: { type: "string" as const, example: '"3f2a9c0d4b5e6f708192a3b4c5d6e7f8"' },
};
