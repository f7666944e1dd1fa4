import type mjml2html from "mjml";
import { LruCache } from "../../core/lru-cache";
import { contentHash } from "./cache";
import { personalise, placeholderNames } from "./compiled";
import type { CompiledTemplate, OutputNode } from "./compiled";
import { urlProblem, urlSchemeIsFixed } from "./escape";
import { RenderValidationError } from "./errors";
import { fragmentBody } from "./fragments";
import type { BodyClass, FragmentCache, InitComponent } from "./fragments";
import { appendNode, Phase1 } from "./resolve";
import type { Scope } from "./resolve";
import { scanFragment } from "./scan";
import type { Marker } from "./scan";
import { designBodyAttributes, designHead } from "./tokens";
import type { DesignTokens } from "./tokens";
import type { PathDetail } from "../../core/errors";
import type { BlockDefinition, Brand, CompileStackInput, RenderIssue, TemplateParam } from "./types";

/** MJML's output for one marker document: HTML split at the markers (numbers index the marker table). */
export interface CompiledMjml {
  parts: readonly (string | number)[];
  /** MJML validation findings; lines refer to the document. */
  issues: readonly RenderIssue[];
}

/**
 * Cache of MJML compilations keyed by the marker document's hash. Values never reach that document
 * (see scan.ts), so editing texts in the builder keeps hitting the cache; tokens, blocks and the frame
 * are part of the key.
 */
export function createMjmlCache(maxEntries = 256): LruCache<CompiledMjml> {
  return new LruCache<CompiledMjml>(maxEntries);
}

export interface RenderOptions {
  /** Whole documents: a document compiled before is not compiled again. */
  cache?: LruCache<CompiledMjml>;
  /** Body fragments (fragments.ts): a document not compiled before renders only its new body children. */
  fragments?: FragmentCache;
}

export interface CompileResult {
  /** The compiled MJML document; placeholders as written, tokens substituted. `errors[].line` refers to it. */
  mjml: string;
  /** The HTML with every value of phase 1 and nothing of phase 2 (as for a recipient without data). */
  html: string;
  errors: RenderIssue[];
  /** Input of phase 2 (`personalise`). */
  compiled: CompiledTemplate;
}

const unsubscribePlaceholder = /\{\{\{\s*pm:unsubscribe\s*\}\}\}/i;
const unsubscribeLink = /href\s*=\s*(["'])\s*\{\{\{\s*pm:unsubscribe\s*\}\}\}\s*\1/i;

/**
 * A newsletter footer must link Postmark's `{{{ pm:unsubscribe }}}`: the provider inserts the
 * recipient's unsubscribe URL there, and a broadcast without it must not go out.
 */
export function assertNewsletterFooter(mjml: string, path = "frame.newsletter_footer_mjml"): void {
  if (!unsubscribeLink.test(mjml)) {
    throw new RenderValidationError([{ path, message: 'The newsletter footer must contain a link with href="{{{ pm:unsubscribe }}}".' }]);
  }
}

function contractProblems(contract: readonly TemplateParam[], params: Readonly<Record<string, string>>): PathDetail[] {
  return contract
    .filter((entry) => entry.required && !(Object.hasOwn(params, entry.name) && params[entry.name] !== ""))
    .map((entry) => ({ path: `params.${entry.name}`, message: `"${entry.label}" is required.` }));
}

/**
 * Every required parameter of a template's contract has a non-empty value. `compileStack` checks this
 * for its `params`; a send job checks its params here and passes them to `personalise` as defaults
 * instead, because recipient data wins over job params.
 */
export function assertContract(contract: readonly TemplateParam[], params: Readonly<Record<string, string>>): void {
  const problems = contractProblems(contract, params);
  if (problems.length > 0) throw new RenderValidationError(problems);
}

interface Fragment {
  source: string;
  scope: Scope;
  label: string;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&");
}

/**
 * `hide_if_missing`: a block that has no `{{#param}}` section of its own is wrapped whole in one, so the
 * block's outer sections drop when the value is missing (or, if recipient data may still fill it, per
 * recipient in phase 2). Prepending on the first line keeps MJML line numbers unchanged.
 */
function withHiddenParams(block: BlockDefinition): string {
  let mjml = block.mjml;
  for (const param of block.params) {
    if (!param.hide_if_missing) continue;
    const ownSection = new RegExp(`\\{\\{[ \\t]*[#^][ \\t]*${escapeRegExp(param.name)}[ \\t]*\\}\\}`);
    if (!ownSection.test(block.mjml)) mjml = `{{#${param.name}}}${mjml}{{/${param.name}}}`;
  }
  return mjml;
}

function blockIndex(blocks: CompileStackInput["blocks"]): ReadonlyMap<string, BlockDefinition> {
  if ("get" in blocks) return blocks;
  return new Map(blocks.map((block) => [block.id, block]));
}

/**
 * Phase 1: a stack (plus frame, tokens, brand, values) to HTML. Throws `RenderValidationError` (422) for
 * content that cannot become a mail; MJML validation findings come back in `errors`.
 */
export async function compileStack(input: CompileStackInput, options: RenderOptions = {}): Promise<CompileResult> {
  const { frame, kind } = input;
  const phase = new Phase1({ tokens: input.tokens, brand: frame.brand, values: input.values ?? {}, params: input.params ?? {} });
  if (input.stack.length === 0) phase.problem("blocks", "At least one block is required.");
  for (const problem of contractProblems(input.contract ?? [], phase.sources.params)) phase.problem(problem.path, problem.message);
  if (kind === "newsletter" && !unsubscribeLink.test(frame.newsletter_footer_mjml)) {
    phase.problem("frame.newsletter_footer_mjml", 'The newsletter footer must contain a link with href="{{{ pm:unsubscribe }}}".');
  }
  const fragments: Fragment[] = [];
  if (frame.header_mjml) {
    fragments.push({ source: frame.header_mjml, scope: phase.scope("frame.header_mjml", null, {}), label: "frame header" });
  }
  const blocks = blockIndex(input.blocks);
  input.stack.forEach((entry, index) => {
    const block = blocks.get(entry.block_id);
    if (block === undefined) {
      phase.problem(`blocks.${index}.block_id`, "Unknown block.");
    } else if (block.tags.includes("footer")) {
      phase.problem(`blocks.${index}.block_id`, `Block "${block.slug}" is a footer; the footer comes from the customer's frame.`);
    } else {
      const scope = phase.scope(`blocks.${index}`, block, entry.values);
      fragments.push({ source: withHiddenParams(block), scope, label: `block "${block.slug}"` });
    }
  });
  const footerPath = kind === "newsletter" ? "frame.newsletter_footer_mjml" : "frame.transactional_footer_mjml";
  const footer = kind === "newsletter" ? frame.newsletter_footer_mjml : frame.transactional_footer_mjml;
  fragments.push({ source: footer, scope: phase.scope(footerPath, null, {}), label: `${kind} footer` });

  const result = await renderFragments(phase, fragments, input.tokens, options);
  // The link must reach every recipient: not inside a section that recipient data could drop.
  if (kind === "newsletter" && !result.compiled.nodes.some((node) => typeof node === "string" && unsubscribePlaceholder.test(node))) {
    throw new RenderValidationError([{ path: footerPath, message: "The unsubscribe link must not be inside a conditional section." }]);
  }
  return result;
}

/** Renders one block alone with its params' examples (tiles). */
export async function compileBlock(block: BlockDefinition, tokens: DesignTokens, brand: Brand, options: RenderOptions = {}): Promise<CompileResult> {
  const examples = Object.fromEntries(block.params.map((param) => [param.name, param.example]));
  const phase = new Phase1({ tokens, brand, values: {}, params: {} });
  const scope = phase.scope("block", block, examples);
  return renderFragments(phase, [{ source: withHiddenParams(block), scope, label: `block "${block.slug}"` }], tokens, options);
}

/** A marker prefix that occurs in none of the inputs, so every match in MJML's output is ours. */
function markerPrefixFor(texts: readonly string[]): string {
  let prefix = "zqph";
  while (texts.some((text) => text.includes(prefix))) prefix += "q";
  return prefix;
}

function sourcesOf(phase: Phase1, fragments: readonly Fragment[]): string[] {
  const { values, params, brand, tokens } = phase.sources;
  return [
    ...fragments.map((fragment) => fragment.source),
    ...Object.values(values),
    ...Object.values(params),
    ...Object.values(brand).filter((value): value is string => typeof value === "string"),
    ...Object.values(tokens),
  ];
}

async function renderFragments(phase: Phase1, fragments: readonly Fragment[], tokens: DesignTokens, options: RenderOptions): Promise<CompileResult> {
  const markers: Marker[] = [];
  const markerPrefix = markerPrefixFor(sourcesOf(phase, fragments));
  const scanned = fragments.map((fragment) => scanFragment({ phase, markers, markerPrefix }, fragment.source, fragment.scope, fragment.label));
  if (phase.problems.length > 0) throw new RenderValidationError(phase.problems);

  const head = `<mjml>\n<mj-head>\n${designHead(tokens)}\n</mj-head>\n<mj-body ${designBodyAttributes(tokens)}>\n`;
  const tail = "</mj-body>\n</mjml>\n";
  const ranges: { firstLine: number; label: string }[] = [];
  let line = head.split("\n").length;
  for (const [index, fragment] of scanned.entries()) {
    ranges.push({ firstLine: line, label: fragments[index].label });
    line += fragment.mjml.split("\n").length;
  }
  const document = head + scanned.map((fragment) => `${fragment.mjml}\n`).join("") + tail;
  const readable = head + scanned.map((fragment) => `${fragment.readable}\n`).join("") + tail;

  const key = contentHash(document);
  let compiledMjml = options.cache?.get(key);
  if (compiledMjml === undefined) {
    compiledMjml = await compileMjml(document, markerPrefix, options.fragments === undefined ? undefined : { cache: options.fragments, head });
    options.cache?.set(key, compiledMjml);
  }
  const nodes = evaluateParts(compiledMjml.parts, markers, phase);
  if (phase.problems.length > 0) throw new RenderValidationError(phase.problems);

  const compiled: CompiledTemplate = { format: 1, nodes, placeholders: placeholderNames(nodes) };
  const labelOf = (issueLine: number | null) => {
    if (issueLine === null) return null;
    return ranges.findLast((range) => range.firstLine <= issueLine)?.label ?? null;
  };
  const mjmlIssues = compiledMjml.issues.map((issue): RenderIssue => {
    const label = labelOf(issue.line);
    return { ...issue, message: label === null ? issue.message : `${label}: ${issue.message}` };
  });
  return { mjml: readable, html: personalise(compiled, {}), errors: [...mjmlIssues, ...phase.issues], compiled };
}

type Skeleton = typeof import("mjml-core/lib/helpers/skeleton.js")["default"];

interface Mjml {
  compile: typeof mjml2html;
  body: BodyClass;
  initComponent: InitComponent;
  skeleton: Skeleton;
}

/**
 * MJML, loaded on first use: it takes ~0.6 s to import, which every function's cold start would pay. The
 * module is kept once loaded: an `import()` per compilation is a trip through the module loader each time
 * (under tsx's loader, a message to its thread and back), paid by every cold preview.
 */
let mjmlModule: Promise<Mjml> | undefined;
const loadMjml = () =>
  (mjmlModule ??= Promise.all([import("mjml"), import("mjml-core"), import("mjml-core/lib/helpers/skeleton.js")]).then(([mjml, coreModule, skeletonModule]) => {
    // mjml-core is CommonJS compiled from ES modules (`exports.default`, `__esModule`): Node's own loader
    // gives `module.exports` as the default export, a transpiling loader gives the ES view; both are read.
    const core = esView<typeof coreModule>(coreModule, "components");
    const skeleton = esView<{ default: Skeleton }>(skeletonModule, "default", "function");
    // Importing "mjml" registers its components in mjml-core's registry, MJML's own mj-body among them.
    const body = core.components["mj-body"];
    if (body === undefined) throw new Error("MJML registered no mj-body component.");
    const { initComponent } = core as unknown as { initComponent: InitComponent };
    return { compile: mjml.default, body: body as unknown as BodyClass, initComponent, skeleton: leanSkeleton(skeleton.default) };
  }));

/** A CommonJS module's exports as its ES view: the namespace when it has `name` (of `type`), else its `default`. */
function esView<T>(namespace: unknown, name: string, type: "object" | "function" = "object"): T {
  const direct = namespace as Record<string, unknown>;
  if (typeof direct[name] === type) return direct as T;
  const exported = direct.default as Record<string, unknown> | undefined;
  if (exported && typeof exported[name] === type) return exported as T;
  throw new Error(`mjml-core's module has no ${name}.`);
}

/**
 * MJML's skeleton, given only the web fonts whose name occurs in the HTML. The skeleton links a font
 * when a case-insensitive search for `font-family:…<name>` finds it; a name that is nowhere in the
 * lower-cased HTML cannot be found by it, so the document is the same, without five searches of the
 * whole HTML for fonts it does not use.
 */
export function leanSkeleton(skeleton: Skeleton): Skeleton {
  return (options) => {
    if (options.fonts === undefined || (options.inlineStyle !== undefined && options.inlineStyle.length > 0)) return skeleton(options);
    const lower = options.content.toLowerCase();
    const fonts = Object.fromEntries(Object.entries(options.fonts).filter(([name]) => lower.includes(name.toLowerCase())));
    return skeleton({ ...options, fonts });
  };
}

async function compileMjml(document: string, markerPrefix: string, fragments?: { cache: FragmentCache; head: string }): Promise<CompiledMjml> {
  let result: Awaited<ReturnType<typeof mjml2html>>;
  const { compile, body, initComponent, skeleton } = await loadMjml();
  // A preset replaces components for this compile only: here mj-body, with body children from the cache.
  const presets =
    fragments === undefined ? [] : [{ components: [fragmentBody(body, initComponent, fragments.cache, fragments.head, markerPrefix)], dependencies: {} }];
  try {
    // ignoreIncludes: block MJML must never read files from the server (mj-include).
    result = await compile(document, { validationLevel: "soft", ignoreIncludes: true, skeleton: skeleton as () => string, ...({ presets } as object) });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new RenderValidationError([{ path: "mjml", message: `MJML could not be parsed: ${reason}` }]);
  }
  const html = withoutIndentation(result.html);
  const parts: (string | number)[] = [];
  let last = 0;
  for (const match of html.matchAll(new RegExp(`${markerPrefix}(\\d+)z`, "g"))) {
    parts.push(html.slice(last, match.index), Number(match[1]));
    last = match.index + match[0].length;
  }
  parts.push(html.slice(last));
  const issues = result.errors.map((issue): RenderIssue => ({ line: issue.line ?? null, message: issue.message, tagName: issue.tagName ?? null }));
  return { parts, issues };
}

/** Markup in which leading whitespace of a line can be visible. */
const PRESERVED_WHITESPACE = /<pre[\s>]|<textarea[\s>]|white-space\s*:\s*(pre|break-spaces)/i;

/**
 * MJML's output without the indentation at the start of its lines. Whitespace after a line break renders
 * as the line break does (one collapsible space), so the mail looks the same; it is a quarter smaller (ten
 * demo blocks: 35 KB become 26 KB, further from Gmail's 102 KB clipping) and a provider batch of it parses
 * almost three times faster (measured with `JSON.parse`: 40 ms → 14 ms for 500 messages). Only MJML's own
 * static output is touched (values are filled in later), so preview and send stay equal. Markup where
 * leading whitespace can show (`<pre>`, `<textarea>`, `white-space: pre…`) is left exactly as it is.
 */
function withoutIndentation(html: string): string {
  return PRESERVED_WHITESPACE.test(html) ? html : html.replace(/\n[ \t]+/g, "\n");
}

type OpenMarker = Extract<Marker, { kind: "open" | "urlStart" }>;

/**
 * Phase 1 proper: walks MJML's output, filling every marker with its value (escaped for its position),
 * deciding sections, and keeping what only recipient data can decide as slots and conditions.
 */
function evaluateParts(parts: readonly (string | number)[], markers: readonly Marker[], phase: Phase1): OutputNode[] {
  const root: OutputNode[] = [];
  const open: { marker: OpenMarker; nodes: OutputNode[]; path: string | null }[] = [];
  let target = root;
  for (const part of parts) {
    if (typeof part === "string") {
      appendNode(target, part);
      continue;
    }
    const marker = markers[part];
    if (marker === undefined) throw new Error(`MJML output holds an unknown marker ${part}.`);
    switch (marker.kind) {
      case "value": {
        const site = phase.site(marker.scope, marker.name, marker.mode);
        for (const node of site.nodes) appendNode(target, node);
        const group = open[open.length - 1];
        if (group !== undefined && group.marker.kind === "urlStart" && group.path === null) group.path = site.path;
        break;
      }
      case "verbatim":
        appendNode(target, marker.source);
        break;
      case "open":
      case "urlStart":
        open.push({ marker, nodes: [], path: null });
        target = open[open.length - 1].nodes;
        break;
      case "close":
      case "urlEnd": {
        const done = open.pop();
        if (done === undefined || (done.marker.kind === "urlStart") !== (marker.kind === "urlEnd")) {
          throw new Error("MJML output holds unbalanced section markers.");
        }
        target = open.length === 0 ? root : open[open.length - 1].nodes;
        if (done.marker.kind === "open") {
          const condition = phase.condition(done.marker.scope, done.marker.name, done.marker.inverted);
          if (condition === true) for (const node of done.nodes) appendNode(target, node);
          else if (condition !== false) appendNode(target, { when: condition, then: done.nodes });
        } else {
          finishUrl(target, done.nodes, done.marker.url, done.path ?? done.marker.scope.path, phase);
        }
        break;
      }
    }
  }
  if (open.length > 0) throw new Error("MJML output holds unclosed section markers.");
  return root;
}

/**
 * A URL attribute with placeholders. Known completely: checked now (422). Its start already fixes the
 * scheme: checked now. Otherwise recipient data could complete `java` + `script:`: checked per recipient.
 */
function finishUrl(target: OutputNode[], nodes: OutputNode[], kind: "link" | "image", path: string, phase: Phase1): void {
  const firstOpen = nodes.findIndex((node) => typeof node !== "string");
  const known = (firstOpen === -1 ? nodes : nodes.slice(0, firstOpen)).join("");
  if (firstOpen === -1 || urlSchemeIsFixed(known)) {
    const problem = urlProblem(known, kind);
    if (problem !== null) phase.problem(path, problem);
    for (const node of nodes) appendNode(target, node);
    return;
  }
  appendNode(target, { url: kind, parts: nodes });
}
