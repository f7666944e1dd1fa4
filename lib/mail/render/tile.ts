import { contentHash } from "./cache";
import { compileBlock } from "./compile";
import type { RenderOptions } from "./compile";
import { RenderValidationError } from "./errors";
import type { DesignTokens } from "./tokens";
import type { BlockDefinition, Brand, RenderIssue } from "./types";

/**
 * Cache key of a block tile: block id and version plus a hash of the customer's design (tokens and
 * brand, since header and footer tiles show the logo and imprint). Any change to either is a new key,
 * so stale tiles are never served and nothing needs invalidating.
 */
export function tileCacheKey(block: { id: string; version: number }, tokens: DesignTokens, brand: Brand): string {
  return `tile:${block.id}:v${block.version}:${contentHash({ tokens, brand }).slice(0, 32)}`;
}

export interface RenderedTile {
  /** A complete HTML document for an iframe `srcdoc`; null when the block cannot render with its examples. */
  html: string | null;
  errors: RenderIssue[];
}

/** One block with its parameters' example values, in the customer's design, without frame or footer. */
export async function renderTile(block: BlockDefinition, tokens: DesignTokens, brand: Brand, options: RenderOptions = {}): Promise<RenderedTile> {
  try {
    const result = await compileBlock(block, tokens, brand, options);
    return { html: result.html, errors: result.errors };
  } catch (error) {
    if (!(error instanceof RenderValidationError)) throw error;
    return { html: null, errors: error.problems.map((problem) => ({ line: null, message: `${problem.path}: ${problem.message}`, tagName: null })) };
  }
}
