import { LRUCache } from "lru-cache";
import type { BodyComponent, Component } from "mjml-core";
import { contentHash } from "./cache";

/*
 * Compiled body fragments: MJML's HTML for one child of `<mj-body>` (a block's section, the frame's
 * footer section…), kept so a document that differs from one compiled before only in some blocks renders
 * only those. MJML renders each body child from the child's own tree (its attributes, with the head's
 * defaults and classes already applied by MJML), the head's settings (breakpoint, fonts) and the body's
 * width; besides its HTML, a child leaves only entries in the document's head (media queries, head
 * styles), which are recorded and replayed in the same order. The rest of the compile (parsing,
 * validation, the mj-body element, the skeleton, the Outlook clean-ups) still runs on the whole
 * document, so the HTML is the same string MJML writes for the whole document.
 *
 * The key is made from those inputs only: the child's tree (without its line numbers), its position where
 * MJML reads it, and the head. Values never reach MJML (they travel as markers, see scan.ts), so two
 * customers share a fragment only when their MJML is the same; markers are renumbered from 0 in the key
 * and in the stored HTML, so a block keeps its fragment wherever it stands in a stack.
 */

/** What a body child left in the document's head while it rendered, replayed on reuse in this order. */
type HeadEntry =
  | { kind: "mediaQuery"; className: string; width: { parsedWidth?: number; unit?: string; padding?: string } }
  | { kind: "headStyle"; name: string; css: string }
  | { kind: "componentHeadStyle"; css: string };

interface Fragment {
  /** MJML's HTML of the child, markers numbered locally (0 for the first marker of the child's tree). */
  html: string;
  head: readonly HeadEntry[];
}

export type FragmentCache = LRUCache<string, Fragment>;

/**
 * A bounded cache of compiled fragments (entries and bytes; a fragment is its HTML and head entries as
 * UTF-16 plus its key). Shared by every customer of the process: keys hold nothing but MJML.
 */
export function createFragmentCache(maxEntries = 4096, maxBytes = 16 * 1024 * 1024): FragmentCache {
  return new LRUCache<string, Fragment>({
    max: maxEntries,
    maxSize: maxBytes,
    sizeCalculation: (fragment, key) =>
      2 * (key.length + fragment.html.length + fragment.head.reduce((sum, entry) => sum + JSON.stringify(entry).length, 0)) + 64,
  });
}

/** Components that draw random ids (per document, so two equal carousels differ): never reused. */
const randomisedTags = new Set(["mj-carousel", "mj-navbar"]);
/** Body children whose HTML depends on their position only through "is it the first child". */
const firstOnlyTags = new Set(["mj-section", "mj-wrapper", "mj-hero"]);

/** A node of MJML's parsed tree as the body holds it: attributes already merged with the head's defaults. */
interface BodyNode {
  tagName: string;
  attributes?: Record<string, unknown>;
  rawAttrs?: Record<string, unknown>;
  globalAttributes?: Record<string, unknown>;
  content?: string;
  children?: readonly BodyNode[];
}

function holdsRandomised(node: BodyNode): boolean {
  return randomisedTags.has(node.tagName) || (node.children?.some(holdsRandomised) ?? false);
}

/**
 * What MJML renders a node from, as text: tag, attributes, content and children, without where it was
 * parsed (line, file). The same MJML anywhere in any document gives the same text.
 */
function nodeText(node: BodyNode): string {
  const children = node.children === undefined ? "" : node.children.map(nodeText).join(",");
  return `{${JSON.stringify(node.tagName)},${JSON.stringify(node.attributes ?? null)},${JSON.stringify(node.rawAttrs ?? null)},${JSON.stringify(node.globalAttributes ?? null)},${JSON.stringify(node.content ?? null)},[${children}]}`;
}

/** The props MJML gives each child: where it stands among its siblings. */
type Position = Omit<Component["props"], "children">;

type Width = { parsedWidth?: number; unit?: string; padding?: string };

interface Context {
  components: Record<string, (typeof Component & { isRawElement(): boolean }) | undefined>;
  globalData: { breakpoint: string };
  addMediaQuery(className: string, width: Width): void;
  addHeadStyle(name: string, style: (breakpoint: string) => string): void;
  addComponentHeadSyle(style: (breakpoint: string) => string): void;
}

type RenderChildrenOptions = Parameters<BodyComponent["renderChildren"]>[1];

/** What this module uses of MJML's `mj-body` component (mjml-body), as mjml-core's registry holds it. */
interface BodyInstance {
  props: Component["props"];
  getChildContext(): unknown;
  renderChildren(children?: [], options?: RenderChildrenOptions): string;
  render(): string;
}
export type BodyClass = new (initialData: unknown) => BodyInstance;

export type InitComponent = (init: { name: string; initialDatas: Record<string, unknown> }) => Component | null;

/**
 * The `mj-body` component for one compile: MJML's own, whose children are taken from `cache` when an
 * equal child (same tree, position as it matters, same head) was rendered before. `head` is the document
 * around the children (the `<mj-head>` and the `<mj-body>` tag); `markerPrefix` is the compile's.
 */
export function fragmentBody(base: BodyClass, initComponent: InitComponent, cache: FragmentCache, head: string, markerPrefix: string): BodyClass {
  const headKey = contentHash(head);
  const markerPattern = new RegExp(`${markerPrefix}(\\d+)z`, "g");

  /** A child rendered, or taken from the cache; `context` is the one mj-body gives its children. */
  function renderChild(node: BodyNode, context: Context, props: Position): string {
    const render = (childContext: Context) => {
      const component = initComponent({ name: node.tagName, initialDatas: { ...node, attributes: { ...node.attributes }, context: childContext, props } });
      return component === null ? "" : component.render();
    };
    const type = context.components[node.tagName];
    if (type === undefined || type.isRawElement() || holdsRandomised(node)) return render(context);

    const { first, index, last, sibling, nonRawSiblings } = props;
    const position = firstOnlyTags.has(node.tagName) ? `${first}` : `${first},${index},${last},${sibling},${nonRawSiblings}`;
    // Markers renumbered in order of appearance: `local[n]` is this compile's number of local marker n.
    const local: number[] = [];
    const toLocal = new Map<number, number>();
    const tree = nodeText(node).replace(markerPattern, (_, digits: string) => {
      const global = Number(digits);
      let number = toLocal.get(global);
      if (number === undefined) {
        number = local.push(global) - 1;
        toLocal.set(global, number);
      }
      return `${markerPrefix}${number}z`;
    });
    const key = contentHash(`${headKey}\n${position}\n${tree}`);

    const found = cache.get(key);
    if (found !== undefined) {
      for (const entry of found.head) {
        if (entry.kind === "mediaQuery") context.addMediaQuery(entry.className, entry.width);
        else if (entry.kind === "headStyle") context.addHeadStyle(entry.name, () => entry.css);
        else context.addComponentHeadSyle(() => entry.css);
      }
      return found.html.replace(markerPattern, (_, digits: string) => `${markerPrefix}${local[Number(digits)]}z`);
    }

    // Rendered with a context that records what the child adds to the head (itself and its descendants).
    const recorded: HeadEntry[] = [];
    const { breakpoint } = context.globalData;
    const html = render({
      ...context,
      addMediaQuery(className, width) {
        recorded.push({ kind: "mediaQuery", className, width: { ...width } });
        context.addMediaQuery(className, width);
      },
      addHeadStyle(name, style) {
        recorded.push({ kind: "headStyle", name, css: style(breakpoint) });
        context.addHeadStyle(name, style);
      },
      addComponentHeadSyle(style) {
        recorded.push({ kind: "componentHeadStyle", css: style(breakpoint) });
        context.addComponentHeadSyle(style);
      },
    });
    let unknownMarker = false;
    const stored = html.replace(markerPattern, (_, digits: string) => {
      const number = toLocal.get(Number(digits));
      if (number === undefined) unknownMarker = true;
      return `${markerPrefix}${number}z`;
    });
    if (!unknownMarker) cache.set(key, { html: stored, head: recorded });
    return html;
  }

  return class FragmentBody extends base {
    static componentName = "mj-body";

    /**
     * MJML's `renderChildren` for the body's own call (no arguments): the same props per child (first,
     * index, last, sibling, nonRawSiblings), each child rendered by `renderChild`.
     */
    override renderChildren(children?: [], options?: RenderChildrenOptions): string {
      if (children !== undefined || options !== undefined) return super.renderChildren(children, options);
      const context = this.getChildContext() as Context;
      const nodes = this.props.children as readonly BodyNode[];
      const sibling = nodes.length;
      const nonRawSiblings = nodes.filter((node) => context.components[node.tagName]?.isRawElement() !== true).length;
      let output = "";
      for (const [index, node] of nodes.entries()) {
        output += renderChild(node, context, { first: index === 0, index, last: index + 1 === sibling, sibling, nonRawSiblings });
      }
      return output;
    }
  };
}
