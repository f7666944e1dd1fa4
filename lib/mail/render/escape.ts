/**
 * Escaping per output context. Phase 1 and phase 2 use exactly these functions on the same positions of
 * the same compiled HTML, which is what makes "personalise later" equal "render with all values now".
 * Every escaper works character by character, so escape(a + b) === escape(a) + escape(b).
 */
import type { EscapeMode, UrlKind } from "../../db/json-columns";

export type { EscapeMode, UrlKind };

const textEntities: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const textSpecial = /[&<>"']/;
const textSpecialAll = /[&<>"']/g;

/** Element content: the five HTML metacharacters. */
export function escapeText(value: string): string {
  return textSpecial.test(value) ? value.replace(textSpecialAll, (c) => textEntities[c]) : value;
}

const lineBreaks = /\r|\n/g;

/**
 * Element content of `text` parameters and brand imprint/address: LF becomes `<br>`, CR is dropped (so
 * CRLF is one break). Character by character on purpose: a value split across placeholders escapes
 * the same as in one piece.
 */
function escapeMultiline(value: string): string {
  return escapeText(value).replace(lineBreaks, (c) => (c === "\n" ? "<br>" : ""));
}

const attrEntities: Record<string, string> = { ...textEntities, "`": "&#96;", "\t": "&#9;", "\n": "&#10;", "\r": "&#13;" };
const attrSpecial = /[&<>"'`\t\n\r]/;
const attrSpecialAll = /[&<>"'`\t\n\r]/g;

/**
 * Quoted attribute values (`alt`, `title`…): both quote characters, so single- and double-quoted attributes
 * are safe, and whitespace controls as references so a value stays on the attribute's line.
 */
export function escapeAttr(value: string): string {
  return attrSpecial.test(value) ? value.replace(attrSpecialAll, (c) => attrEntities[c]) : value;
}

// Characters that could end a CSS `url('…')` (MJML copies `background-url` into inline CSS and VML) or an
// attribute, plus whitespace and controls, which browsers strip or reinterpret inside URLs.
const urlUnsafe = /[\u0000-\u0020"'<>\\()`\u007f]/;
const urlUnsafeAll = /[\u0000-\u0020"'<>\\()`\u007f]/g;

/** URL-valued attributes (`href`, `src`, `background-url`): percent-encode the unsafe ASCII, then `&`. */
export function escapeUrl(value: string): string {
  const encoded = urlUnsafe.test(value) ? value.replace(urlUnsafeAll, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`) : value;
  return encoded.includes("&") ? encoded.replaceAll("&", "&amp;") : encoded;
}

export const escapers: Readonly<Record<EscapeMode, (value: string) => string>> = {
  text: escapeText,
  multiline: escapeMultiline,
  attr: escapeAttr,
  url: escapeUrl,
};

const allowedSchemes: Readonly<Record<UrlKind, ReadonlySet<string>>> = {
  link: new Set(["http", "https", "mailto", "tel"]),
  image: new Set(["http", "https", "cid", "data"]),
};
const dataImage = /^data:image\/(png|gif|jpe?g|webp)[;,]/;
const namedReferences: Record<string, string> = { amp: "&", colon: ":", tab: "", newline: "", quot: '"', apos: "'", lt: "<", gt: ">" };

/**
 * What a mail client makes of an attribute's text when it follows the URL: character references decoded,
 * leading spaces and controls dropped, tabs and line breaks removed anywhere (WHATWG URL parsing).
 * The percent-encoded forms `escapeUrl` produces for those characters are treated the same, so a value
 * like " javascript:…" is refused with a clear error rather than turned into a broken relative link.
 */
function urlAsParsed(attributeText: string): string {
  const decoded = attributeText.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);?/gi, (whole, ref: string) => {
    if (ref[0] !== "#") return namedReferences[ref.toLowerCase()] ?? whole;
    const code = ref[1] === "x" || ref[1] === "X" ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
    return code > 0 && code < 0x110000 ? String.fromCodePoint(code) : "";
  });
  return decoded.replace(/^(?:[\u0000-\u0020]|%[01][0-9a-f]|%20)+/i, "").replace(/[\t\n\r]|%0[9ad]/gi, "");
}

const schemePattern = /^([a-z][a-z0-9+.-]*):/i;

/**
 * Null when the attribute text is an acceptable URL, otherwise why not. An allowlist rather than a
 * `javascript:` blocklist: `vbscript:`, `data:text/html`, `file:` and schemes we do not know fail too.
 * Relative URLs pass (harmless in a mail client).
 */
export function urlProblem(attributeText: string, kind: UrlKind): string | null {
  const url = urlAsParsed(attributeText);
  const scheme = schemePattern.exec(url)?.[1].toLowerCase();
  if (scheme === undefined) return null;
  if (!allowedSchemes[kind].has(scheme)) {
    return `URL scheme "${scheme}:" is not allowed; use ${[...allowedSchemes[kind]].map((s) => `${s}:`).join(", ")}.`;
  }
  if (scheme === "data" && !dataImage.test(url.toLowerCase())) return "Only data:image/png, gif, jpeg or webp URLs are allowed.";
  return null;
}

/**
 * Whether the start of a URL already fixes its scheme, so nothing appended later can turn it into
 * `javascript:`: true once a `:`, `/`, `?` or `#` has been seen.
 */
export function urlSchemeIsFixed(prefixText: string): boolean {
  return /[:/?#]/.test(urlAsParsed(prefixText));
}
