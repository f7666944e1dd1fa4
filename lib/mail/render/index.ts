/*
 * The mail rendering engine. Phase 1 (`compileStack`, once per template and values) resolves blocks,
 * values, tokens, brand and frame and compiles MJML; phase 2 (`personalise`, per recipient) fills what
 * recipient data decides. See scan.ts for how placeholders survive MJML, resolve.ts for name resolution.
 */
export { contentHash } from "./cache";
export { assertContract, assertNewsletterFooter, compileStack, createMjmlCache } from "./compile";
export type { CompiledMjml, CompileResult, RenderOptions } from "./compile";
export { createPersonaliser, createStreamingPersonaliser, personalise, refusedUrl } from "./compiled";
export type { CompiledTemplate, Condition, OutputNode, Personaliser, PersonaliserSink, RecipientData, StreamingPersonaliser } from "./compiled";
export { escapeUrl, urlProblem } from "./escape";
export type { EscapeMode, UrlKind } from "./escape";
export { RenderValidationError } from "./errors";
export { compileSubject, personaliseSubject } from "./subject";
export { placeholderName } from "./syntax";
export { renderTile, tileCacheKey } from "./tile";
export type { Tile } from "./tile";
export { defaultDesignTokens, designTokenOverridesSchema, designTokensSchema, resolveDesignTokens } from "./tokens";
export type { DesignTokenName, DesignTokenOverrides, DesignTokens } from "./tokens";
export type {
  BlockDefinition,
  BlockParam,
  BlockParamType,
  Brand,
  CompileStackInput,
  Frame,
  RenderIssue,
  StackEntry,
  TemplateKind,
  TemplateParam,
} from "./types";
