import type { PathDetail } from "../../core/errors";
import type { Condition, OutputNode } from "./compiled";
import { escapers } from "./escape";
import type { EscapeMode } from "./escape";
import { parseTemplate, TemplateSyntaxError } from "./syntax";
import type { TemplateNode } from "./syntax";
import type { DesignTokenName, DesignTokens } from "./tokens";
import type { BlockDefinition, Brand, RenderIssue } from "./types";

/*
 * Phase 1 resolution. A name in a fragment resolves, in this order, to
 *   token.<key>   a design token                       (literal)
 *   brand.<key>   a brand value                        (literal; null renders as empty)
 *   a value       params > global values > block values (a template: it may hold placeholders itself)
 *   deferred      nothing knows it yet: recipient data decides in phase 2.
 * A declared block parameter without a value (or with an empty one) takes its fallback. "Defined" is
 * the line between the phases: an empty string is resolved (sections drop now), a missing value waits.
 * Values are templates and expand recursively; a reference back to a name being expanded is left to
 * recipient data, so a block value `first_name: "{{first_name}}"` means "the recipient's first name"
 * and values can never loop.
 */

export type Resolution = { kind: "deferred" } | { kind: "literal"; value: string; path: string } | { kind: "template"; nodes: TemplateNode[]; path: string };

/** Phase-1 value of a condition: decided now (boolean) or left to recipient data. */
export type ConditionValue = boolean | Condition;

const deferred: Resolution = { kind: "deferred" };

function any(conditions: readonly ConditionValue[]): ConditionValue {
  const open: Condition[] = [];
  for (const condition of conditions) {
    if (condition === true) return true;
    if (condition !== false) open.push(condition);
  }
  return open.length === 0 ? false : open.length === 1 ? open[0] : { any: open };
}

function all(conditions: readonly ConditionValue[]): ConditionValue {
  const open: Condition[] = [];
  for (const condition of conditions) {
    if (condition === false) return false;
    if (condition !== true) open.push(condition);
  }
  return open.length === 0 ? true : open.length === 1 ? open[0] : { all: open };
}

function not(condition: ConditionValue): ConditionValue {
  if (typeof condition === "boolean") return !condition;
  return "not" in condition ? condition.not : { not: condition };
}

/** Appends a node, merging adjacent text so the personaliser has fewer, longer chunks. */
export function appendNode(target: OutputNode[], node: OutputNode): void {
  const last = target.length - 1;
  if (typeof node === "string") {
    if (node === "") return;
    if (last >= 0 && typeof target[last] === "string") {
      target[last] = (target[last] as string) + node;
      return;
    }
  }
  target.push(node);
}

type RawValue = { value: string; path: string };

interface ScopeSpec {
  /** Where problems of this scope point, e.g. `blocks.2`. */
  path: string;
  block: BlockDefinition | null;
  blockValues: Readonly<Record<string, string>>;
}

/** The names one fragment (a block, the frame header or footer) can see in phase 1. */
export class Scope {
  readonly path: string;
  /** Declared parameters of type `text`: their line breaks become `<br>`. */
  readonly multilineNames: ReadonlySet<string>;
  readonly #phase: Phase1;
  readonly #spec: ScopeSpec;
  readonly #declared = new Map<string, Resolution>();

  constructor(phase: Phase1, spec: ScopeSpec) {
    this.#phase = phase;
    this.#spec = spec;
    this.path = spec.path;
    const params = spec.block?.params ?? [];
    this.multilineNames = new Set([...params.filter((p) => p.type === "text").map((p) => p.name), "brand.imprint", "brand.address"]);
    // Declared parameters resolve eagerly so a missing required value is reported even when unused.
    for (const param of params) this.#declared.set(param.name, this.#resolveDeclared(param.name));
  }

  #raw(name: string): RawValue | undefined {
    const { params, values } = this.#phase.sources;
    if (Object.hasOwn(params, name)) return { value: params[name], path: `params.${name}` };
    if (Object.hasOwn(values, name)) return { value: values[name], path: `values.${name}` };
    if (Object.hasOwn(this.#spec.blockValues, name)) return { value: this.#spec.blockValues[name], path: `${this.path}.values.${name}` };
    return undefined;
  }

  #resolveDeclared(name: string): Resolution {
    const param = this.#spec.block?.params.find((p) => p.name === name);
    if (param === undefined) return deferred;
    const raw = this.#raw(name);
    const valuePath = raw?.path ?? `${this.path}.values.${name}`;
    const chosen = (raw === undefined || raw.value === "") && param.fallback !== null ? { value: param.fallback, path: valuePath } : raw;
    if (param.required && (chosen === undefined || chosen.value === "")) {
      this.#phase.problem(valuePath, `"${param.label}" is required.`);
    }
    if (chosen === undefined) return deferred;
    if ((param.type === "url" || param.type === "image") && chosen.value !== "" && !chosen.value.includes("{{")) {
      const problem = absoluteUrlProblem(chosen.value, param.type);
      if (problem !== null) this.#phase.problem(chosen.path, problem);
    }
    return { kind: "template", nodes: this.#phase.parse(chosen.value, chosen.path), path: chosen.path };
  }

  resolve(name: string): Resolution {
    if (name.startsWith("token.")) return this.#phase.token(name, this.path);
    if (name.startsWith("brand.")) return this.#phase.brandValue(name, this.path);
    const declared = this.#declared.get(name);
    if (declared !== undefined) return declared;
    const raw = this.#raw(name);
    return raw === undefined ? deferred : { kind: "template", nodes: this.#phase.parse(raw.value, raw.path), path: raw.path };
  }
}

function absoluteUrlProblem(value: string, type: "url" | "image"): string | null {
  const schemes = type === "image" ? ["http:", "https:"] : ["http:", "https:", "mailto:", "tel:"];
  let protocol: string;
  try {
    protocol = new URL(value.trim()).protocol;
  } catch {
    return type === "image" ? "Must be an absolute http(s) image URL." : "Must be an absolute http(s), mailto: or tel: URL.";
  }
  return schemes.includes(protocol) ? null : `URL scheme "${protocol}" is not allowed; use ${schemes.join(", ")}.`;
}

export interface Phase1Sources {
  tokens: DesignTokens;
  brand: Brand;
  values: Readonly<Record<string, string>>;
  params: Readonly<Record<string, string>>;
}

/** Phase-1 state of one render: the sources, parsed values, and every problem found on the way. */
export class Phase1 {
  readonly sources: Phase1Sources;
  readonly problems: PathDetail[] = [];
  readonly issues: RenderIssue[] = [];
  readonly #parsed = new Map<string, TemplateNode[]>();

  constructor(sources: Phase1Sources) {
    this.sources = sources;
    for (const [name, value] of Object.entries(sources.values)) this.parse(value, `values.${name}`);
    for (const [name, value] of Object.entries(sources.params)) this.parse(value, `params.${name}`);
  }

  scope(path: string, block: BlockDefinition | null, blockValues: Readonly<Record<string, string>>): Scope {
    for (const [name, value] of Object.entries(blockValues)) this.parse(value, `${path}.values.${name}`);
    return new Scope(this, { path, block, blockValues });
  }

  problem(path: string, message: string): void {
    if (!this.problems.some((p) => p.path === path && p.message === message)) this.problems.push({ path, message });
  }

  parse(value: string, path: string): TemplateNode[] {
    let nodes = this.#parsed.get(value);
    if (nodes === undefined) {
      try {
        nodes = parseTemplate(value);
      } catch (error) {
        if (!(error instanceof TemplateSyntaxError)) throw error;
        this.problem(path, error.message);
        nodes = [];
      }
      this.#parsed.set(value, nodes);
    }
    return nodes;
  }

  token(name: string, where: string): Resolution {
    const key = name.slice("token.".length);
    if (Object.hasOwn(this.sources.tokens, key)) {
      return { kind: "literal", value: this.sources.tokens[key as DesignTokenName], path: `design_tokens.${key}` };
    }
    this.#issue(`${where}: unknown design token "{{${name}}}" renders as nothing.`);
    return { kind: "literal", value: "", path: where };
  }

  brandValue(name: string, where: string): Resolution {
    const key = name.slice("brand.".length);
    const brand: Readonly<Record<string, string | null | undefined>> = this.sources.brand;
    if (Object.hasOwn(brand, key)) return { kind: "literal", value: brand[key] ?? "", path: `frame.brand.${key}` };
    this.#issue(`${where}: unknown brand value "{{${name}}}" renders as nothing.`);
    return { kind: "literal", value: "", path: where };
  }

  #issue(message: string): void {
    if (!this.issues.some((issue) => issue.message === message)) this.issues.push({ line: null, message, tagName: null });
  }

  /** A placeholder at one position: escaped text when known, a slot for recipient data otherwise. */
  site(scope: Scope, name: string, mode: EscapeMode): { nodes: OutputNode[]; path: string | null } {
    const resolution = scope.resolve(name);
    const nodes = this.#expand(scope, name, resolution, mode, []);
    return { nodes, path: resolution.kind === "deferred" ? null : resolution.path };
  }

  #expand(scope: Scope, name: string, resolution: Resolution, mode: EscapeMode, chain: readonly string[]): OutputNode[] {
    if (resolution.kind === "deferred" || chain.includes(name)) return [{ slot: name, mode }];
    if (resolution.kind === "literal") return [escapers[mode](resolution.value)];
    return this.#evaluate(scope, resolution.nodes, mode, [...chain, name]);
  }

  #evaluate(scope: Scope, nodes: readonly TemplateNode[], mode: EscapeMode, chain: readonly string[]): OutputNode[] {
    const out: OutputNode[] = [];
    for (const node of nodes) {
      if (typeof node === "string") appendNode(out, escapers[mode](node));
      else if (node.kind === "verbatim") appendNode(out, node.source);
      else if (node.kind === "var") {
        for (const part of this.#expand(scope, node.name, scope.resolve(node.name), mode, chain)) appendNode(out, part);
      } else {
        const condition = this.condition(scope, node.name, node.inverted, chain);
        if (condition === false) continue;
        const body = this.#evaluate(scope, node.children, mode, chain);
        if (condition === true) for (const part of body) appendNode(out, part);
        else appendNode(out, { when: condition, then: body });
      }
    }
    return out;
  }

  /** Whether `{{#name}}` (or `{{^name}}`) renders: a value counts when it expands to non-empty text. */
  condition(scope: Scope, name: string, inverted: boolean, chain: readonly string[] = []): ConditionValue {
    const resolution = scope.resolve(name);
    let value: ConditionValue;
    if (resolution.kind === "deferred" || chain.includes(name)) value = { name };
    else if (resolution.kind === "literal") value = resolution.value !== "";
    else value = this.#nonEmpty(scope, resolution.nodes, [...chain, name]);
    return inverted ? not(value) : value;
  }

  #nonEmpty(scope: Scope, nodes: readonly TemplateNode[], chain: readonly string[]): ConditionValue {
    return any(
      nodes.map((node): ConditionValue => {
        if (typeof node === "string") return node !== "";
        if (node.kind === "verbatim") return true;
        if (node.kind === "var") return this.condition(scope, node.name, false, chain);
        return all([this.condition(scope, node.name, node.inverted, chain), this.#nonEmpty(scope, node.children, chain)]);
      }),
    );
  }

  /**
   * The complete value of `name` as raw text, for positions MJML itself interprets (colours, widths):
   * null when recipient data would be needed.
   */
  literal(scope: Scope, name: string): string | null {
    const resolution = scope.resolve(name);
    if (resolution.kind === "deferred") return null;
    if (resolution.kind === "literal") return resolution.value;
    return this.#raw(scope, resolution.nodes, [name]);
  }

  #raw(scope: Scope, nodes: readonly TemplateNode[], chain: readonly string[]): string | null {
    let out = "";
    for (const node of nodes) {
      let part: string | null = "";
      if (typeof node === "string") part = node;
      else if (node.kind === "verbatim") part = node.source;
      else if (node.kind === "var") {
        const inner = scope.resolve(node.name);
        if (inner.kind === "deferred" || chain.includes(node.name)) part = null;
        else if (inner.kind === "literal") part = inner.value;
        else part = this.#raw(scope, inner.nodes, [...chain, node.name]);
      } else {
        const condition = this.condition(scope, node.name, node.inverted, chain);
        if (condition === true) part = this.#raw(scope, node.children, chain);
        else if (condition !== false) part = null;
      }
      if (part === null) return null;
      out += part;
    }
    return out;
  }
}
