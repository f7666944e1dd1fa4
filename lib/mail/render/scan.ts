import type { EscapeMode, UrlKind } from "./escape";
import { escapeAttr, escapeText, escapeUrl } from "./escape";
import type { Phase1, Scope } from "./resolve";
import { readPlaceholder } from "./syntax";
import type { PlaceholderToken } from "./syntax";

/*
 * Placeholders cannot go through MJML as `{{…}}`: MJML parses, re-serialises and (with minify) rewrites
 * the document. Before compiling, every placeholder of a fragment becomes an inert marker (`zqph12z`:
 * letters and digits only, which no step of MJML changes) and the marker table remembers what it stood
 * for. After compiling, the HTML is split at the markers (see `evaluateParts`).
 *
 * Every value goes through a marker, including values known in phase 1: MJML's output then depends only
 * on the template, never on values, so phase 1 with all values and phase 2 with recipient data fill the
 * same positions of the same HTML with the same escaping, and the compiled MJML can be cached by template.
 *
 * The exceptions are positions MJML itself interprets (colours, sizes, paddings: "style" positions) and
 * design tokens: those are substituted before compiling, so they must be known in phase 1.
 *
 * Where a placeholder stands decides its escaping:
 *   text   content of mj-text, mj-button, mj-raw… (and HTML inside them)      → HTML-escaped
 *   attr   alt, title… and attributes of HTML tags inside content            → attribute-escaped
 *   url    href, src, background-url                                         → URL-escaped, scheme-checked
 *   style  MJML layout attributes, `style="…"`, mj-style                      → substituted before MJML
 * A section (`{{#x}}…{{/x}}`) opens and closes within one element; between elements it may wrap whole
 * sections (in mj-body) or content elements (in mj-column), where it travels as `<mj-raw>marker</mj-raw>`.
 */

export type Marker =
  | { kind: "value"; name: string; mode: EscapeMode; scope: Scope }
  | { kind: "open"; name: string; inverted: boolean; scope: Scope }
  | { kind: "close" }
  | { kind: "verbatim"; source: string }
  | { kind: "urlStart"; url: UrlKind; scope: Scope }
  | { kind: "urlEnd" };

/** MJML tags whose content MJML copies as HTML. */
const endingTags = new Set([
  "mj-text",
  "mj-button",
  "mj-raw",
  "mj-table",
  "mj-navbar-link",
  "mj-accordion-title",
  "mj-accordion-text",
  "mj-social-element",
  "mj-style",
  "mj-title",
  "mj-preview",
]);
const voidTags = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]);
/** The renderer writes the document around fragments; a fragment holding these would end it early. */
const documentTags = new Set(["mjml", "mj-head", "mj-body"]);
/** Where a section may wrap elements: MJML renders `mj-raw` there without table cells of its own. */
const sectionParents = new Set(["mj-body", "mj-column"]);
const mjmlUrlAttributes: Readonly<Record<string, UrlKind>> = { href: "link", src: "image", "background-url": "image", "thumbnails-src": "image" };
/** MJML attributes copied verbatim into the HTML, so a marker there is safe. */
const mjmlContentAttributes = new Set(["alt", "title", "name", "rel"]);
const htmlUrlAttributes: Readonly<Record<string, UrlKind>> = { href: "link", src: "image", background: "image", poster: "image", action: "link", cite: "link" };
const unsafeStyleValue = /["<>&;{}\\\r\n]|url\s*\(|expression\s*\(|@import|\/\*/i;

type Position = { kind: "url"; url: UrlKind } | { kind: "attr" } | { kind: "style" } | { kind: "forbidden" };

function attributePosition(tag: string, attribute: string): Position {
  if (attribute.startsWith("on") || attribute === "srcdoc" || attribute === "formaction") return { kind: "forbidden" };
  if (attribute === "style") return { kind: "style" };
  if (tag.startsWith("mj-")) {
    if (Object.hasOwn(mjmlUrlAttributes, attribute)) return { kind: "url", url: mjmlUrlAttributes[attribute] };
    return mjmlContentAttributes.has(attribute) ? { kind: "attr" } : { kind: "style" };
  }
  if (Object.hasOwn(htmlUrlAttributes, attribute)) return { kind: "url", url: htmlUrlAttributes[attribute] };
  return { kind: "attr" };
}

interface OpenElement {
  name: string;
  id: number;
  /** Content is HTML that MJML copies (inside an ending tag). */
  content: boolean;
  /** Content is CSS. */
  css: boolean;
}

interface OpenSection {
  name: string;
  /** The element (`e<id>`) or attribute (`a<n>`) the section must close in. */
  key: string;
  elementId: number;
}

export interface ScanTarget {
  phase: Phase1;
  markers: Marker[];
  markerPrefix: string;
}

export interface ScannedFragment {
  /** The fragment with markers, for MJML. */
  mjml: string;
  /** The fragment as the caller sees it: placeholders as written; same line breaks as `mjml`. */
  readable: string;
}

/** Scans one body-level fragment (a block, the frame header or a footer) of `scope`. */
export function scanFragment(target: ScanTarget, source: string, scope: Scope, label: string): ScannedFragment {
  const { phase, markers, markerPrefix } = target;
  const compiled: string[] = [];
  const readable: string[] = [];
  const stack: OpenElement[] = [{ name: "mj-body", id: 0, content: false, css: false }];
  const sections: OpenSection[] = [];
  let nextElementId = 1;
  let nextAttributeId = 0;

  const problem = (message: string) => phase.problem(scope.path, `${label}: ${message}`);
  const emit = (forMjml: string, forReader = forMjml) => {
    compiled.push(forMjml);
    readable.push(forReader);
  };
  const marker = (entry: Marker): string => `${markerPrefix}${markers.push(entry) - 1}z`;

  /** Values MJML interprets must be complete in phase 1 and unable to leave their declaration. */
  const styleValue = (name: string, quote: string): string => {
    const value = phase.literal(scope, name);
    if (value === null) {
      problem(`"{{${name}}}" sets a style or layout attribute, so it needs a value when the template is rendered; recipient data cannot fill it.`);
      return "";
    }
    if (unsafeStyleValue.test(value) || (quote !== "" && value.includes(quote))) {
      problem(`the value of "{{${name}}}" is not allowed in a style or layout attribute.`);
      return "";
    }
    return value;
  };

  const openSection = (token: PlaceholderToken & { name: string }, key: string): string => {
    sections.push({ name: token.name, key, elementId: stack[stack.length - 1].id });
    return marker({ kind: "open", name: token.name, inverted: token.type === "inverted", scope });
  };

  const closeSection = (token: PlaceholderToken & { name: string }, key: string): string | null => {
    const open = sections[sections.length - 1];
    if (open === undefined || open.name !== token.name || open.key !== key) {
      problem(
        open === undefined || open.key !== key
          ? `"${token.source}" has no matching "{{#${token.name}}}" in the same element.`
          : `"${token.source}" closes "{{#${open.name}}}".`,
      );
      return null;
    }
    sections.pop();
    return marker({ kind: "close" });
  };

  /** A placeholder in element content. */
  const contentToken = (token: PlaceholderToken) => {
    const parent = stack[stack.length - 1];
    if (parent.css) {
      if (token.type === "var") emit(styleValue(token.name, ""));
      else problem(`"${token.source}" cannot stand in CSS.`);
      return;
    }
    if (parent.content) {
      if (token.type === "verbatim") emit(marker({ kind: "verbatim", source: token.source }), token.source);
      else if (token.type === "var") {
        if (token.name.startsWith("token.")) {
          const value = escapeText(phase.literal(scope, token.name) ?? "");
          emit(value, value);
        } else {
          const mode: EscapeMode = scope.multilineNames.has(token.name) ? "multiline" : "text";
          emit(marker({ kind: "value", name: token.name, mode, scope }), token.source);
        }
      } else if (token.type === "close") {
        const text = closeSection(token, `e${parent.id}`);
        if (text !== null) emit(text, token.source);
      } else emit(openSection(token, `e${parent.id}`), token.source);
      return;
    }
    if (token.type === "var" || token.type === "verbatim") {
      problem(`"${token.source}" must stand inside a content element such as mj-text, mj-button or mj-raw.`);
      return;
    }
    if (!sectionParents.has(parent.name)) {
      problem(`"${token.source}" inside <${parent.name}>: sections may wrap whole sections (in mj-body) or content elements (in mj-column).`);
      return;
    }
    const text = token.type === "close" ? closeSection(token, `e${parent.id}`) : openSection(token, `e${parent.id}`);
    if (text !== null) emit(`<mj-raw>${text}</mj-raw>`, token.source);
  };

  /** Rewrites one attribute value that contains placeholders; returns [for MJML, for the reader]. */
  const attributeValue = (tag: string, attribute: string, quote: string, value: string): [string, string] => {
    const position = attributePosition(tag, attribute);
    if (position.kind === "forbidden") {
      problem(`placeholders are not allowed in the ${attribute} attribute.`);
      return [value, value];
    }
    const key = `a${nextAttributeId++}`;
    let forMjml = "";
    let forReader = "";
    let literalStart = 0;
    let index = value.indexOf("{{");
    while (index !== -1) {
      const token = readPlaceholder(value, index);
      if (token === null) {
        index = value.indexOf("{{", index + 1);
        continue;
      }
      const before = value.slice(literalStart, index);
      forMjml += before;
      forReader += before;
      let mjmlText = "";
      let readerText = token.source;
      if (position.kind === "style") {
        if (token.type === "var") mjmlText = readerText = styleValue(token.name, quote);
        else problem(`"${token.source}" cannot stand in the ${attribute} attribute.`);
      } else if (token.type === "verbatim") {
        mjmlText = marker({ kind: "verbatim", source: token.source });
      } else if (token.type === "var") {
        const mode: EscapeMode = position.kind === "url" ? "url" : "attr";
        if (token.name.startsWith("token.")) {
          const tokenValue = phase.literal(scope, token.name) ?? "";
          mjmlText = readerText = mode === "url" ? escapeUrl(tokenValue) : escapeAttr(tokenValue);
        } else mjmlText = marker({ kind: "value", name: token.name, mode, scope });
      } else if (position.kind === "url") {
        problem(`sections cannot stand inside the URL attribute ${attribute}; put the section around the element.`);
      } else if (token.type === "close") {
        mjmlText = closeSection(token, key) ?? "";
      } else {
        mjmlText = openSection(token, key);
      }
      forMjml += mjmlText;
      forReader += readerText;
      literalStart = index + token.source.length;
      index = value.indexOf("{{", literalStart);
    }
    const rest = value.slice(literalStart);
    forMjml += rest;
    forReader += rest;
    const unclosed = sections.findLast((section) => section.key === key);
    if (unclosed !== undefined) {
      problem(`"{{#${unclosed.name}}}" is not closed inside the ${attribute} attribute.`);
      sections.splice(sections.indexOf(unclosed));
    }
    // The URL check needs the whole attribute, static parts included: bracket it.
    if (position.kind === "url" && forMjml !== value) {
      forMjml = marker({ kind: "urlStart", url: position.url, scope }) + forMjml + marker({ kind: "urlEnd" });
    }
    return [forMjml, forReader];
  };

  /** Pops `stack[index]` and everything opened inside it (HTML may leave `<p>` open; MJML may not). */
  const closeElements = (index: number, closing: string) => {
    const closed = new Set(stack.slice(index).map((element) => element.id));
    for (const element of stack.slice(index + 1)) {
      if (element.name.startsWith("mj-")) problem(`<${element.name}> is not closed before </${closing}>.`);
    }
    const unclosed = sections.findIndex((section) => closed.has(section.elementId));
    if (unclosed !== -1) {
      problem(`"{{#${sections[unclosed].name}}}" is not closed before </${closing}>.`);
      sections.length = unclosed;
    }
    stack.length = index;
  };

  const tagName = /[A-Za-z][A-Za-z0-9:._-]*/y;
  const attributeName = /[^\s"'<>/=]+/y;
  const readName = (pattern: RegExp, at: number): string | null => {
    pattern.lastIndex = at;
    return pattern.exec(source)?.[0] ?? null;
  };

  /** Reads markup starting at `<`; returns the index after it. */
  const markup = (start: number): number => {
    if (source.startsWith("<!--", start)) {
      // Conditional comments hold markup for Outlook: keep scanning inside. Plain comments are copied.
      const conditional = /^<!--\[if [^\]]*\]>/.exec(source.slice(start, start + 200));
      const end = conditional !== null ? start + conditional[0].length : source.indexOf("-->", start + 4);
      const stop = end === -1 ? source.length : conditional !== null ? end : end + 3;
      emit(source.slice(start, stop));
      return stop;
    }
    if (source[start + 1] === "!" || source[start + 1] === "?") {
      const end = source.indexOf(">", start);
      const stop = end === -1 ? source.length : end + 1;
      emit(source.slice(start, stop));
      return stop;
    }
    if (source[start + 1] === "/") {
      const name = readName(tagName, start + 2);
      const end = source.indexOf(">", start);
      const stop = end === -1 ? source.length : end + 1;
      emit(source.slice(start, stop));
      if (name === null) return stop;
      const lower = name.toLowerCase();
      if (documentTags.has(lower)) {
        problem(`</${lower}> cannot appear in a block; the renderer writes the document around it.`);
        return stop;
      }
      const index = stack.findLastIndex((element, i) => i > 0 && element.name === lower);
      if (index === -1) {
        if (lower.startsWith("mj-")) problem(`</${lower}> has no opening tag.`);
      } else closeElements(index, lower);
      return stop;
    }
    const name = readName(tagName, start + 1);
    if (name === null) {
      emit("<");
      return start + 1;
    }
    const tag = name.toLowerCase();
    if (documentTags.has(tag)) problem(`<${tag}> cannot appear in a block; the renderer writes the document around it.`);
    let i = start + 1 + name.length;
    let out = source.slice(start, i);
    let reader = out;
    let selfClosing = false;
    for (;;) {
      const spaceStart = i;
      while (i < source.length && /\s/.test(source[i])) i++;
      out += source.slice(spaceStart, i);
      reader += source.slice(spaceStart, i);
      if (i >= source.length) {
        problem(`<${tag}> is not terminated.`);
        break;
      }
      if (source.startsWith("/>", i)) {
        selfClosing = true;
        out += "/>";
        reader += "/>";
        i += 2;
        break;
      }
      if (source[i] === ">") {
        out += ">";
        reader += ">";
        i++;
        break;
      }
      const attribute = readName(attributeName, i);
      if (attribute === null || source.startsWith("{{", i)) {
        if (source.startsWith("{{", i)) problem(`placeholders may only stand inside quoted attribute values of <${tag}>.`);
        out += source[i];
        reader += source[i];
        i++;
        continue;
      }
      out += attribute;
      reader += attribute;
      i += attribute.length;
      const equalsMatch = /^\s*=\s*/.exec(source.slice(i, i + 40));
      if (equalsMatch === null) continue;
      out += equalsMatch[0];
      reader += equalsMatch[0];
      i += equalsMatch[0].length;
      const quote = source[i] === '"' || source[i] === "'" ? source[i] : "";
      const valueStart = quote === "" ? i : i + 1;
      let valueEnd: number;
      if (quote !== "") {
        valueEnd = source.indexOf(quote, valueStart);
        if (valueEnd === -1) valueEnd = source.length;
      } else {
        const unquoted = /[^\s>]*/y;
        unquoted.lastIndex = valueStart;
        valueEnd = valueStart + (unquoted.exec(source)?.[0].length ?? 0);
      }
      const value = source.slice(valueStart, valueEnd);
      let [forMjml, forReader] = [value, value];
      if (value.includes("{{")) {
        if (quote === "") problem(`placeholders may only stand inside quoted attribute values of <${tag}>.`);
        else [forMjml, forReader] = attributeValue(tag, attribute.toLowerCase(), quote, value);
      }
      out += quote + forMjml + quote;
      reader += quote + forReader + quote;
      i = Math.min(source.length, valueEnd + (quote === "" ? 0 : 1));
    }
    emit(out, reader);
    if (!selfClosing && !voidTags.has(tag)) {
      const parent = stack[stack.length - 1];
      const content = parent.content || endingTags.has(tag);
      stack.push({ name: tag, id: nextElementId++, content, css: parent.css || tag === "mj-style" || tag === "style" });
    }
    return i;
  };

  let textStart = 0;
  let i = 0;
  while (i < source.length) {
    const char = source[i];
    if (char === "<") {
      emit(source.slice(textStart, i));
      i = markup(i);
      textStart = i;
      continue;
    }
    if (char === "{" && source[i + 1] === "{") {
      const token = readPlaceholder(source, i);
      if (token !== null) {
        emit(source.slice(textStart, i));
        contentToken(token);
        i += token.source.length;
        textStart = i;
        continue;
      }
    }
    i++;
  }
  emit(source.slice(textStart));
  for (const element of stack.slice(1)) {
    if (element.name.startsWith("mj-")) problem(`<${element.name}> is never closed.`);
  }
  for (const section of sections) problem(`"{{#${section.name}}}" is never closed.`);
  return { mjml: compiled.join(""), readable: readable.join("") };
}
