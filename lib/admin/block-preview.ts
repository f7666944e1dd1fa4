import type { Database } from "../db/client";
import { defaultFrame } from "../mail/blocks/library";
import { frameFor } from "../mail/rendering";
import { renderTile, type Tile } from "../mail/render/tile";
import { defaultDesignTokens } from "../mail/render/tokens";
import type { BlockParam } from "../mail/render/types";
import { getDesignRules } from "../mail/setup/design";

/**
 * An unsaved block as a tile, for the console's live preview while an operator types: the tile pipeline
 * customers get (`renderTile`), in a customer's design and brand or the defaults. Drafts change with every
 * keystroke, so nothing is cached.
 */
export async function previewDraftBlock(db: Database, customer: { id: string; name: string } | null, draft: { mjml: string; params: readonly BlockParam[] }): Promise<Tile> {
  const [tokens, frame] = customer
    ? await Promise.all([getDesignRules(db, customer.id).then((design) => design.tokens), frameFor(db, customer.id, customer.name)])
    : [defaultDesignTokens, defaultFrame];
  return renderTile({ id: "draft", slug: "draft", mjml: draft.mjml, params: draft.params, tags: [] }, tokens, frame.brand);
}
