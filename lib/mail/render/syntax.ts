/**
 * The placeholder language shared by block MJML, values, subjects and the compiled HTML:
 *
 *   {{name}}                 value (HTML-escaped for where it stands); unknown names render as nothing
 *   {{#name}} … {{/name}}    section: rendered only when `name` has a non-empty value; sections nest
 *   {{^name}} … {{/name}}    inverted section: rendered only when `name` is missing or empty
 *   {{{ anything }}}         verbatim: left untouched in every phase (Postmark's `{{{ pm:unsubscribe }}}`)
 *
 * Names match `[A-Za-z_][A-Za-z0-9_.-]*`; spaces or tabs may pad the name (`{{ first_name }}`).
 * Anything else that starts with `{{` is literal text. Unbalanced sections are an error.
 */
const tokenPattern = /\{\{\{[^{}\r\n]*\}\}\}|\{\{[ \t]*([#^/]?)[ \t]*([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*\}\}/y;

export type PlaceholderToken = { type: "var" | "open" | "inverted" | "close"; name: string; source: string } | { type: "verbatim"; source: string };

/** Reads the placeholder starting exactly at `index`, or null when the text there is literal. */
export function readPlaceholder(text: string, index: number): PlaceholderToken | null {
  tokenPattern.lastIndex = index;
  const match = tokenPattern.exec(text);
  if (match === null) return null;
  const source = match[0];
  if (source.startsWith("{{{")) return { type: "verbatim", source };
  const name = match[2];
  switch (match[1]) {
    case "#":
      return { type: "open", name, source };
    case "^":
      return { type: "inverted", name, source };
    case "/":
      return { type: "close", name, source };
    default:
      return { type: "var", name, source };
  }
}

export type TemplateNode =
  | string
  | { kind: "var"; name: string }
  | { kind: "section"; name: string; inverted: boolean; children: TemplateNode[] }
  | { kind: "verbatim"; source: string };

export class TemplateSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TemplateSyntaxError";
  }
}

/** Parses a template (a value, a subject) into a tree; throws `TemplateSyntaxError` on unbalanced sections. */
export function parseTemplate(text: string): TemplateNode[] {
  const root: TemplateNode[] = [];
  type OpenSection = { name: string; inverted: boolean; children: TemplateNode[] };
  const open: OpenSection[] = [];
  let target = root;
  let literalStart = 0;
  let index = text.indexOf("{{");
  const flush = (end: number) => {
    if (end > literalStart) target.push(text.slice(literalStart, end));
  };
  while (index !== -1) {
    const token = readPlaceholder(text, index);
    if (token === null) {
      index = text.indexOf("{{", index + 1);
      continue;
    }
    flush(index);
    if (token.type === "verbatim") target.push({ kind: "verbatim", source: token.source });
    else if (token.type === "var") target.push({ kind: "var", name: token.name });
    else if (token.type === "close") {
      const section = open.pop();
      if (section === undefined) throw new TemplateSyntaxError(`"{{/${token.name}}}" closes a section that was never opened.`);
      if (section.name !== token.name) {
        throw new TemplateSyntaxError(`"{{/${token.name}}}" closes "{{${section.inverted ? "^" : "#"}${section.name}}}".`);
      }
      target = open.length === 0 ? root : open[open.length - 1].children;
      target.push({ kind: "section", name: section.name, inverted: section.inverted, children: section.children });
    } else {
      const section: OpenSection = { name: token.name, inverted: token.type === "inverted", children: [] };
      open.push(section);
      target = section.children;
    }
    literalStart = index + token.source.length;
    index = text.indexOf("{{", literalStart);
  }
  flush(text.length);
  const unclosed = open.pop();
  if (unclosed !== undefined) throw new TemplateSyntaxError(`Section "{{${unclosed.inverted ? "^" : "#"}${unclosed.name}}}" is never closed.`);
  return root;
}
