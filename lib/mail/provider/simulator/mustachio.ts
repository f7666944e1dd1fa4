/**
 * Mustachio, the template language Postmark compiles Bulk API messages with, ported from its source
 * (github.com/ActiveCampaign/mustachio, `Tokenizer.cs`, `Parser.cs`, `ContextObject.cs`; sources and the
 * reasoning in docs/provider-facts.md, "Postmark Bulk API"):
 *
 *   {{x}} / {{ x }}        value, HTML-encoded with .NET's `HttpUtility.HtmlEncode` (see `htmlEncode`)
 *   {{{x}}} / {{& x}}      value, raw
 *   {{#x}} … {{/x}}        rendered once, with `x` as the scope, when `x` is truthy (not null, false, 0, "",
 *                          an empty list or object); a list does NOT iterate here
 *   {{#each x}} … {{/each}} rendered once per element of the list `x`, the element as the scope
 *   {{^x}} … {{/x}}        rendered when `x` is not truthy
 *   {{! comment }}         dropped
 *   a.b.c                  dotted path into objects; `../` steps to the enclosing scope
 *
 * A missing value renders as nothing; objects and lists render as nothing. Postmark's own tokens such as
 * `{{{ pm:unsubscribe }}}` are replaced at delivery, not by Mustachio: they are kept verbatim here.
 */

export class MustachioParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MustachioParseError";
  }
}

// Mustachio's `_tokenFinder`, verbatim; JavaScript's alternation order and laziness match .NET's here.
const tokenFinder = /([{]{2}[^{}]+?[}]{2})|([{]{3}[^{}]+?[}]{3})/g;
// Mustachio's `_negativePathSpec` (.NET `\w` is Unicode-aware, hence the `u` flag and `\p{…}`).
const negativePathSpec = /([.]{3,})|([^\p{L}\p{Mn}\p{Nd}\p{Pc}./_]+)|((?<![.]{2})[/])|([.]{2,}($|[^/]))/u;
const pathFinder = /(\.\.[\\/])|([^.]+)/g;
const postmarkToken = /^\{\{\{\s*pm:[A-Za-z_]+\s*\}\}\}$/;

type Node = { t: "text"; text: string } | { t: "value"; path: string; escaped: boolean } | { t: "with" | "inverted" | "each"; path: string; body: Node[] };

function validated(path: string): string {
  const trimmed = path.trim();
  if (negativePathSpec.test(trimmed)) throw new MustachioParseError(`The path '${trimmed}' is not valid.`);
  return trimmed;
}

const inner = (token: string, lead: string) => token.replace(/^\{+/, "").replace(/\}+$/, "").replace(lead, "").trim();

/** Tokenizes and parses like Mustachio's `Tokenizer.Tokenize` + `Parser.Parse`; throws on its parse errors. */
function parseMustachio(template: string): Node[] {
  const root: Node[] = [];
  const stack: { key: string; nodes: Node[] }[] = [];
  let target = root;
  let index = 0;
  const open = (node: Node & { body: Node[] }, key: string) => {
    target.push(node);
    stack.push({ key, nodes: target });
    target = node.body;
  };
  for (const match of template.matchAll(tokenFinder)) {
    const token = match[0];
    if (match.index > index) target.push({ t: "text", text: template.slice(index, match.index) });
    index = match.index + token.length;
    if (postmarkToken.test(token)) {
      target.push({ t: "text", text: token });
    } else if (token.startsWith("{{#each")) {
      const path = inner(token, "#").slice(4);
      if (!path.startsWith(" ") || path.trim() === "") throw new MustachioParseError("The 'each' block requires a model path: '{{#each <name>}}'.");
      open({ t: "each", path: validated(path), body: [] }, "each");
    } else if (token.startsWith("{{/each")) {
      if (token !== "{{/each}}" || stack.at(-1)?.key !== "each") throw new MustachioParseError("An 'each' block is closed without a matching '{{#each …}}'.");
      target = stack.pop()?.nodes ?? root;
    } else if (token.startsWith("{{#") || token.startsWith("{{^")) {
      const path = validated(inner(token, token[2]));
      open({ t: token[2] === "#" ? "with" : "inverted", path, body: [] }, path);
    } else if (token.startsWith("{{/")) {
      const path = inner(token, "/");
      if (stack.at(-1)?.key !== path) throw new MustachioParseError("It appears that open and closing elements are mismatched.");
      target = stack.pop()?.nodes ?? root;
    } else if (token.startsWith("{{{") || token.startsWith("{{&")) {
      target.push({ t: "value", path: validated(inner(token, "&")), escaped: false });
    } else if (token.startsWith("{{!")) {
      // a comment
    } else {
      target.push({ t: "value", path: validated(inner(token, "")), escaped: true });
    }
  }
  if (index < template.length) target.push({ t: "text", text: template.slice(index) });
  if (stack.length > 0) throw new MustachioParseError(`A scope block to the following path was opened but not closed: '${stack.at(-1)?.key}'.`);
  return root;
}

type Context = { value: unknown; parent: Context | null };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `ContextObject.GetContextForPath`: `../` goes up (staying at the root when there is none), names go down. */
function resolve(context: Context, path: string): Context {
  let current = context;
  for (const [element] of path.matchAll(pathFinder)) {
    if (element.startsWith("..")) current = current.parent ?? current;
    else {
      const value = isObject(current.value) && Object.hasOwn(current.value, element) ? current.value[element] : undefined;
      current = { value, parent: current };
    }
  }
  return current;
}

/** `ContextObject.Exists`: JavaScript-like truthiness, with empty lists and objects false. */
function exists(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (isObject(value)) return Object.keys(value).length > 0;
  return true;
}

/** `ContextObject.ToString`: scalars only (.NET prints booleans as `True`/`False`); objects and lists print nothing. */
function printable(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  if (typeof value === "boolean") return value ? "True" : "False";
  return null;
}

/**
 * .NET's `System.Web.HttpUtility.HtmlEncode` as Mustachio calls it (dotnet/runtime `HttpEncoder.HtmlEncode`):
 * `< > " ' &` as `&lt; &gt; &quot; &#39; &amp;`, U+00A0–U+00FF as decimal references (`é` → `&#233;`),
 * characters outside the BMP (emoji) as one decimal reference of the code point (`😀` → `&#128512;`),
 * a lone surrogate as U+FFFD; everything else as is.
 */
export function htmlEncode(text: string): string {
  if (!/[<>"'&\u00a0-\u00ff\ud800-\udfff]/.test(text)) return text;
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    switch (code) {
      case 0x3c:
        out += "&lt;";
        continue;
      case 0x3e:
        out += "&gt;";
        continue;
      case 0x22:
        out += "&quot;";
        continue;
      case 0x27:
        out += "&#39;";
        continue;
      case 0x26:
        out += "&amp;";
        continue;
    }
    if (code >= 0xa0 && code <= 0xff) out += `&#${code};`;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && text.charCodeAt(i + 1) >= 0xdc00 && text.charCodeAt(i + 1) <= 0xdfff) {
      out += `&#${text.codePointAt(i)};`;
      i += 1;
    } else if (code >= 0xd800 && code <= 0xdfff) out += "\ufffd";
    else out += text[i];
  }
  return out;
}

function render(nodes: readonly Node[], context: Context, encode: boolean): string {
  let out = "";
  for (const node of nodes) {
    if (node.t === "text") out += node.text;
    else if (node.t === "value") {
      const text = printable(resolve(context, node.path).value);
      if (text !== null) out += node.escaped && encode ? htmlEncode(text) : text;
    } else {
      const scope = resolve(context, node.path);
      if (node.t === "with") {
        if (exists(scope.value)) out += render(node.body, scope, encode);
      } else if (node.t === "inverted") {
        if (!exists(scope.value)) out += render(node.body, scope, encode);
      } else if (exists(scope.value)) {
        if (!Array.isArray(scope.value))
          throw new MustachioParseError(`'${node.path}' is used like an array by the template, but is a scalar value or object in your model.`);
        for (const item of scope.value) out += render(node.body, { value: item, parent: scope }, encode);
      }
    }
  }
  return out;
}

export type CompiledMustachio = (model: unknown) => string;

/**
 * Compiles once, renders per recipient. `escape: false` is Mustachio's `DisableContentSafety`, which
 * Postmark uses for subjects and text bodies ("content should not be escaped (such as when rendering text
 * bodies and subjects in emails)", `Parser.cs`).
 */
export function compileMustachio(template: string, options: { escape: boolean }): CompiledMustachio {
  const nodes = parseMustachio(template);
  return (model) => render(nodes, { value: model, parent: null }, options.escape);
}
