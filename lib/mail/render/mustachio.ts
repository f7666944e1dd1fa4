import { compileCondition, lookup, pathOf, refusedUrl, type CompiledTemplate, type OutputNode, type RecipientData, type Test } from "./compiled";
import { escapers, urlProblem } from "./escape";
import { subjectText } from "./subject";
import { parseTemplate, type TemplateNode } from "./syntax";

/**
 * Our compiled templates as Mustachio templates, for Postmark's Bulk API: the static HTML goes once per
 * request, each recipient sends only a `TemplateModel`. Postmark compiles the message; what it compiles
 * must be byte for byte what `personalise` (the preview, the batch path) produces.
 *
 * Mustachio's own escaping (`{{x}}`, .NET's `HttpUtility.HtmlEncode`) only knows element text and encodes
 * more than ours (Latin-1 and emoji as numeric references); our templates escape per position (text,
 * multi-line text, attribute, URL) and check URL schemes per recipient. So every value goes into the model
 * already escaped by our escapers and is referenced raw (`{{{v0}}}`): the preview, the batch path and the
 * bulk path give the same bytes, and Mustachio's encoding never applies. Sections become `{{#c0}}…{{/c0}}`
 * on a model key that is present (`"1"`) exactly when our condition holds; conditions with `any`/`all`/`not`
 * are decided by us. Inside a section Mustachio's scope is the section's value, so references there climb
 * back to the model with `../` per level. Static text never forms a Mustachio token: a brace next to
 * another brace or at a chunk's edge is written as `{{{l}}}` / `{{{r}}}` (model keys `l` = "{", `r` = "}"),
 * except Postmark's own `{{{ pm:… }}}` tokens, which pass as they are.
 */

type Item =
  | string
  | { value: number; get: (data: RecipientData, defaults: RecipientData | undefined) => string }
  | { section: number; test: Test; body: Item[] };

export type MustachioTemplate = {
  /** The Mustachio source (HtmlBody or Subject), the same for every recipient. */
  template: string;
  /** Whether the model needs the brace keys `l` and `r`. */
  braces: boolean;
  /** The recipient's model entries (values are escaped for their position already); absent = empty/false. */
  fill(model: Record<string, string>, data: RecipientData, defaults?: RecipientData): void;
};

const pmToken = /\{\{\{\s*pm:[A-Za-z_]+\s*\}\}\}/g;

/** Static text that Mustachio reads as text: braces that could touch another brace are model references. */
function literal(text: string, up: string, state: { braces: boolean }): string {
  if (!text.includes("{") && !text.includes("}")) return text;
  let out = "";
  let last = 0;
  const protect = (chunk: string) => {
    let result = "";
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i];
      const brace = c === "{" || c === "}";
      const risky = brace && (i === 0 || i === chunk.length - 1 || "{}".includes(chunk[i - 1]) || "{}".includes(chunk[i + 1]));
      if (risky) {
        state.braces = true;
        result += `{{{${up}${c === "{" ? "l" : "r"}}}}`;
      } else result += c;
    }
    return result;
  };
  for (const match of text.matchAll(pmToken)) {
    out += protect(text.slice(last, match.index));
    // A pm token must not touch other braces either: its neighbours were protected as chunk edges.
    out += match[0];
    last = match.index + match[0].length;
  }
  return out + protect(text.slice(last));
}

function build(items: readonly Item[], depth: number, state: { braces: boolean }, prefix: string): string {
  const up = "../".repeat(depth);
  let out = "";
  for (const item of items) {
    if (typeof item === "string") out += literal(item, up, state);
    else if ("value" in item) out += `{{{${up}${prefix}v${item.value}}}}`;
    else {
      const key = `${up}${prefix}c${item.section}`;
      out += `{{#${key}}}${build(item.body, depth + 1, state, prefix)}{{/${key}}}`;
    }
  }
  return out;
}

function filler(items: readonly Item[], prefix: string) {
  const fill = (model: Record<string, string>, list: readonly Item[], data: RecipientData, defaults: RecipientData | undefined) => {
    for (const item of list) {
      if (typeof item === "string") continue;
      if ("value" in item) {
        const value = item.get(data, defaults);
        if (value !== "") model[`${prefix}v${item.value}`] = value;
      } else if (item.test(data, defaults)) {
        model[`${prefix}c${item.section}`] = "1";
        fill(model, item.body, data, defaults);
      }
    }
  };
  return (model: Record<string, string>, data: RecipientData, defaults?: RecipientData) => fill(model, items, data, defaults);
}

function finish(items: Item[], prefix: string): MustachioTemplate {
  const state = { braces: false };
  const template = build(items, 0, state, prefix);
  return { template, braces: state.braces, fill: filler(items, prefix) };
}

/** Translates a compiled HTML template (see the module comment). */
export function mustachioHtml(compiled: CompiledTemplate): MustachioTemplate {
  const counter = { value: 0, section: 0 };
  const items = (nodes: readonly OutputNode[]): Item[] => {
    const out: Item[] = [];
    for (const node of nodes) {
      if (typeof node === "string") out.push(node);
      else if ("slot" in node) {
        const key = node.slot;
        const path = pathOf(key);
        const escapeValue = escapers[node.mode];
        out.push({ value: counter.value++, get: (data, defaults) => escapeValue(lookup(data, defaults, key, path)) });
      } else if ("when" in node) out.push({ section: counter.section++, test: compileCondition(node.when), body: items(node.then) });
      else {
        // A URL is assembled and checked per recipient, as `personalise` does, and sent whole.
        const kind = node.url;
        const parts = node.parts;
        out.push({
          value: counter.value++,
          get: (data, defaults) => {
            const url = renderParts(parts, data, defaults);
            return urlProblem(url, kind) === null ? url : refusedUrl;
          },
        });
      }
    }
    return out;
  };
  return finish(items(compiled.nodes), "");
}

function renderParts(nodes: readonly OutputNode[], data: RecipientData, defaults: RecipientData | undefined): string {
  let out = "";
  for (const node of nodes) {
    if (typeof node === "string") out += node;
    else if ("slot" in node) out += escapers[node.mode](lookup(data, defaults, node.slot, pathOf(node.slot)));
    else if ("when" in node) {
      if (compileCondition(node.when)(data, defaults)) out += renderParts(node.then, data, defaults);
    } else {
      const url = renderParts(node.parts, data, defaults);
      out += urlProblem(url, node.url) === null ? url : refusedUrl;
    }
  }
  return out;
}

/**
 * Translates a subject (our placeholder syntax, plain text: line breaks become spaces, nothing is escaped).
 * Its model keys start with "s", so one `TemplateModel` serves the subject and the HTML.
 */
export function mustachioSubject(subject: string): MustachioTemplate {
  const counter = { value: 0, section: 0 };
  const items = (nodes: readonly TemplateNode[]): Item[] =>
    nodes.map((node): Item => {
      if (typeof node === "string") return subjectText(node);
      if (node.kind === "verbatim") return node.source;
      if (node.kind === "var") {
        const key = node.name;
        const path = pathOf(key);
        return { value: counter.value++, get: (data, defaults) => subjectText(lookup(data, defaults, key, path)) };
      }
      const test = compileCondition(node.inverted ? { not: { name: node.name } } : { name: node.name });
      return { section: counter.section++, test, body: items(node.children) };
    });
  return finish(items(parseTemplate(subject)), "s");
}
