import { escapers, urlProblem } from "./escape";
import type { UrlKind } from "./escape";
import type { CompiledTemplate, Condition, OutputNode } from "../../db/json-columns";
import type { TemplateNode } from "./syntax";

export type { CompiledTemplate, Condition, OutputNode } from "../../db/json-columns";

/**
 * Recipient data: `{{name}}` reads `data[name]`, and for dotted names falls back to the nested path
 * (`{{company.name}}` → `data.company.name`). Strings, numbers and booleans count; anything else is missing.
 */
export type RecipientData = Readonly<Record<string, unknown>>;

export type Personaliser = (data: RecipientData, defaults?: RecipientData) => string;

/** Substituted for a URL attribute whose per-recipient value has a forbidden scheme. */
export const refusedUrl = "about:blank";

const enum OpCode {
  Text,
  Slot,
  Section,
  Url,
}

type Op =
  | { code: OpCode.Text; text: string }
  | { code: OpCode.Slot; key: string; path: readonly string[] | null; escape: (value: string) => string }
  | { code: OpCode.Section; test: Test; body: Op[] }
  | { code: OpCode.Url; kind: UrlKind; body: Op[]; encode: Encode };

/** Applied to everything a personaliser writes (identity for HTML; JSON string escaping for provider batch bodies). */
type Encode = (text: string) => string;
const asIs: Encode = (text) => text;

export type Test = (data: RecipientData, defaults: RecipientData | undefined) => boolean;

function scalar(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  return undefined;
}

function read(data: RecipientData, key: string, path: readonly string[] | null): string | undefined {
  const flat = scalar(data[key]);
  if (flat !== undefined || path === null) return flat;
  let current: unknown = data;
  for (const segment of path) {
    if (current === null || typeof current !== "object" || !Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return scalar(current);
}

export function lookup(data: RecipientData, defaults: RecipientData | undefined, key: string, path: readonly string[] | null): string {
  const value = read(data, key, path);
  if (value !== undefined) return value;
  return defaults === undefined ? "" : (read(defaults, key, path) ?? "");
}

export function pathOf(name: string): readonly string[] | null {
  return name.includes(".") ? name.split(".") : null;
}

export function compileCondition(condition: Condition): Test {
  if ("name" in condition) {
    const key = condition.name;
    const path = pathOf(key);
    return (data, defaults) => lookup(data, defaults, key, path) !== "";
  }
  if ("not" in condition) {
    const inner = compileCondition(condition.not);
    return (data, defaults) => !inner(data, defaults);
  }
  if ("any" in condition) {
    const tests = condition.any.map(compileCondition);
    return (data, defaults) => tests.some((test) => test(data, defaults));
  }
  const tests = condition.all.map(compileCondition);
  return (data, defaults) => tests.every((test) => test(data, defaults));
}

function compileNodes(nodes: readonly OutputNode[], encode: Encode): Op[] {
  return nodes.map((node): Op => {
    if (typeof node === "string") return { code: OpCode.Text, text: encode(node) };
    if ("slot" in node) {
      const escapeValue = escapers[node.mode];
      return { code: OpCode.Slot, key: node.slot, path: pathOf(node.slot), escape: encode === asIs ? escapeValue : (value) => encode(escapeValue(value)) };
    }
    if ("when" in node) return { code: OpCode.Section, test: compileCondition(node.when), body: compileNodes(node.then, encode) };
    // A URL is checked as a mail client reads it, so its parts are assembled unencoded and encoded once.
    return { code: OpCode.Url, kind: node.url, body: compileNodes(node.parts, asIs), encode };
  });
}

// The hot loop of phase 2: concatenation and escaping only (V8 keeps `+=` results as ropes).
function run(ops: readonly Op[], data: RecipientData, defaults: RecipientData | undefined): string {
  let out = "";
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    switch (op.code) {
      case OpCode.Text:
        out += op.text;
        break;
      case OpCode.Slot:
        out += op.escape(lookup(data, defaults, op.key, op.path));
        break;
      case OpCode.Section:
        if (op.test(data, defaults)) out += run(op.body, data, defaults);
        break;
      case OpCode.Url: {
        const url = run(op.body, data, defaults);
        out += urlProblem(url, op.kind) === null ? url : refusedUrl;
        break;
      }
    }
  }
  return out;
}

/** Precompiles once; the returned function renders one recipient. `defaults` (e.g. job params) lose to `data`. */
export function createPersonaliser(compiled: CompiledTemplate): Personaliser {
  const ops = compileNodes(compiled.nodes, asIs);
  return (data, defaults) => run(ops, data, defaults);
}

/**
 * Where a streaming personaliser writes. `fixed` gets the template's static text: always the same string
 * objects, encoded once at compile time, so a sink can keep their bytes; `value` gets everything that
 * depends on the recipient, already escaped and encoded.
 */
export type PersonaliserSink = { fixed(text: string): void; value(text: string): void };
export type StreamingPersonaliser = (sink: PersonaliserSink, data: RecipientData, defaults?: RecipientData) => void;

/**
 * Phase 2 written piece by piece into a sink, with `encode` (a character-by-character encoding such as
 * JSON string escaping) applied to all of it: static text once here, values per recipient. Send jobs
 * write provider batch bodies this way: the static HTML is copied as bytes, never re-escaped.
 */
export function createStreamingPersonaliser(compiled: CompiledTemplate, encode: (text: string) => string): StreamingPersonaliser {
  const write = (sink: PersonaliserSink, ops: readonly Op[], data: RecipientData, defaults: RecipientData | undefined): void => {
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i];
      switch (op.code) {
        case OpCode.Text:
          sink.fixed(op.text);
          break;
        case OpCode.Slot:
          sink.value(op.escape(lookup(data, defaults, op.key, op.path)));
          break;
        case OpCode.Section:
          if (op.test(data, defaults)) write(sink, op.body, data, defaults);
          break;
        case OpCode.Url: {
          const url = run(op.body, data, defaults);
          sink.value(op.encode(urlProblem(url, op.kind) === null ? url : refusedUrl));
          break;
        }
      }
    }
  };
  const ops = compileNodes(compiled.nodes, encode);
  return (sink, data, defaults) => write(sink, ops, data, defaults);
}

const personalisers = new WeakMap<CompiledTemplate, Personaliser>();

/**
 * Phase 2: the HTML for one recipient. Values are escaped for their position, unknown placeholders render
 * as nothing. The precompiled form is kept per `compiled` object, so calling this in a loop is cheap.
 */
export function personalise(compiled: CompiledTemplate, data: RecipientData, defaults?: RecipientData): string {
  let personaliser = personalisers.get(compiled);
  if (personaliser === undefined) {
    personaliser = createPersonaliser(compiled);
    personalisers.set(compiled, personaliser);
  }
  return personaliser(data, defaults);
}

function collectNames(condition: Condition, names: Set<string>): void {
  if ("name" in condition) names.add(condition.name);
  else if ("not" in condition) collectNames(condition.not, names);
  else for (const inner of "any" in condition ? condition.any : condition.all) collectNames(inner, names);
}

/** Names of everything recipient data can still decide in `nodes`. */
export function placeholderNames(nodes: readonly OutputNode[], names = new Set<string>()): string[] {
  for (const node of nodes) {
    if (typeof node === "string") continue;
    if ("slot" in node) names.add(node.slot);
    else if ("when" in node) {
      collectNames(node.when, names);
      placeholderNames(node.then, names);
    } else placeholderNames(node.parts, names);
  }
  return [...names].sort();
}

/** Plain-text templates (subjects) reuse the same machinery with their own value treatment. */
export function compileTextTemplate(nodes: readonly TemplateNode[], treat: (value: string) => string): Personaliser {
  const toOps = (list: readonly TemplateNode[]): Op[] =>
    list.map((node): Op => {
      if (typeof node === "string") return { code: OpCode.Text, text: treat(node) };
      if (node.kind === "verbatim") return { code: OpCode.Text, text: node.source };
      if (node.kind === "var") return { code: OpCode.Slot, key: node.name, path: pathOf(node.name), escape: treat };
      const test = compileCondition(node.inverted ? { not: { name: node.name } } : { name: node.name });
      return { code: OpCode.Section, test, body: toOps(node.children) };
    });
  const ops = toOps(nodes);
  return (data, defaults) => run(ops, data, defaults);
}
