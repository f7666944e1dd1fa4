/*
 * The mail rendering engine. Phase 1 (`compileStack`, once per template and values) resolves blocks,
 * values, tokens, brand and frame and compiles MJML; phase 2 (`personalise`, per recipient) fills what
 * recipient data decides. See scan.ts for how placeholders survive MJML, resolve.ts for name resolution.
 */
export { contentHash } from "./cache";
export { assertContract, assertNewsletterFooter, compileStack, createMjmlCache, leanSkeleton } from "./compile";
export { createFragmentCache } from "./fragments";
export type { CompileResult } from "./compile";
export { createPersonaliser, createStreamingPersonaliser, personalise, refusedUrl } from "./compiled";
export type { CompiledTemplate, OutputNode, PersonaliserSink, RecipientData } from "./compiled";
export { escapeUrl, urlProblem } from "./escape";
export { RenderValidationError } from "./errors";
export { compileSubject, personaliseSubject } from "./subject";
export { renderTile, tileCacheKey } from "./tile";
export { defaultDesignTokens, designTokensSchema, resolveDesignTokens } from "./tokens";
export type { DesignTokens } from "./tokens";
export type { BlockDefinition, BlockParam, CompileStackInput, Frame } from "./types";
export { mustachioHtml, mustachioSubject } from "./mustachio";
export { textPartOf } from "./text-part";
