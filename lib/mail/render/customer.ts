import type { Database } from "../../db/client";
import { LruCache } from "../../core/lru-cache";
import { defaultFrame } from "../blocks/library";
import { unusableBlocksError, usableBlocksById, type BlockRow } from "../setup/blocks";
import { getDesignRules } from "../setup/design";
import { getFrame } from "../setup/frame";
import { compileStack, createMjmlCache, type CompileResult } from "./compile";
import { createFragmentCache } from "./fragments";
import { renderTile, tileCacheKey, type RenderedTile } from "./tile";
import type { BlockDefinition, Frame, TemplateKind, TemplateParam } from "./types";

/**
 * The rendering engine applied to a customer: its usable blocks, design rules and frame read from the
 * database. Preview, templates and sends all come through here, so a preview is byte-for-byte what a
 * send of the same stack produces. The caches are content-addressed (MJML documents by their hash, body
 * fragments by their MJML and the design's head, tiles by block version, tokens and brand), so they are
 * shared by every customer of the process and never go stale.
 */
const mjmlCache = createMjmlCache(512);
const fragmentCache = createFragmentCache();
const tileCache = new LruCache<RenderedTile>(2048);

function toBlockDefinition(row: BlockRow): BlockDefinition {
  return { id: row.id, slug: row.slug, mjml: row.mjml, params: row.params, tags: row.tags.map((t) => t.slug) };
}

/** The customer's frame, or the default frame with the customer's name until an admin sets one. */
export async function frameFor(db: Database, customerId: string, customerName: string): Promise<Frame> {
  const frame = await getFrame(db, customerId);
  if (frame) return frame;
  return { ...defaultFrame, brand: { ...defaultFrame.brand, company_name: customerName } };
}

export type StackRenderInput = {
  kind: TemplateKind;
  stack: { block_id: string; values: Record<string, string> }[];
  values?: Record<string, string>;
  params?: Record<string, string>;
  contract?: TemplateParam[];
};

/** Phase 1 for a customer: only enabled, active blocks (403 otherwise), their design rules and frame. */
export async function renderForCustomer(db: Database, customer: { id: string; name: string }, input: StackRenderInput): Promise<CompileResult> {
  const ids = [...new Set(input.stack.map((entry) => entry.block_id))];
  // Three reads at once, one round trip's wait (a transactional send's latency).
  const [usable, design, frame] = await Promise.all([
    usableBlocksById(db, customer.id, ids),
    getDesignRules(db, customer.id),
    frameFor(db, customer.id, customer.name),
  ]);
  const unusable = unusableBlocksError(input.stack, usable);
  if (unusable) throw unusable;
  return compileStack(
    {
      kind: input.kind,
      stack: input.stack,
      blocks: [...usable.values()].map(toBlockDefinition),
      values: input.values,
      params: input.params,
      contract: input.contract,
      tokens: design.tokens,
      frame,
    },
    { cache: mjmlCache, fragments: fragmentCache },
  );
}

/** A block with its example values in the customer's design; cached by block version + design hash. */
export async function tileForCustomer(db: Database, customer: { id: string; name: string }, block: BlockRow): Promise<{ key: string; tile: RenderedTile }> {
  const [design, frame] = await Promise.all([getDesignRules(db, customer.id), frameFor(db, customer.id, customer.name)]);
  const key = tileCacheKey(block, design.tokens, frame.brand);
  let tile = tileCache.get(key);
  if (!tile) {
    tile = await renderTile(toBlockDefinition(block), design.tokens, frame.brand, { cache: mjmlCache, fragments: fragmentCache });
    tileCache.set(key, tile);
  }
  return { key, tile };
}
