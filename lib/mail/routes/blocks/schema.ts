import type { BlockRow } from "../../setup/blocks";

/** A usable block as the API shows it, with the path of its tile. */
export function toBlockView(row: BlockRow) {
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
