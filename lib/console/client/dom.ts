import { ApiFailure, send, type Problem } from "./api";
import { at, fromLocalInput, localInput } from "./words";

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;

/** A small element builder: `on*` attributes become listeners, `false`/`null` attributes are left out. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value === "function") element.addEventListener(name.slice(2).toLowerCase(), value);
    else if (value === true) element.setAttribute(name, "");
    else if (value !== false && value !== null && value !== undefined) element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

let ids = 0;
export const uid = (prefix: string) => `${prefix}-${++ids}`;

export type FieldSpec = {
  /** The request path of the value (`mail.monthly_limit`): the form's values and the API's error paths use it. */
  path: string;
  label: string;
  /** `datetime`: a date-time picker in the operator's time zone; its value is an ISO time (UTC) in and out. */
  type?: "text" | "number" | "password" | "email" | "search" | "textarea" | "select" | "checkbox" | "json" | "datetime";
  value?: string | number | boolean | unknown;
  options?: readonly (string | { value: string; label: string })[];
  hint?: string;
  rows?: number;
  required?: boolean;
  wide?: boolean;
};

export type Field = { spec: FieldSpec; wrap: HTMLElement; control: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement; error: HTMLElement };

export function field(spec: FieldSpec): Field {
  const id = uid("f");
  const errorId = `${id}-error`;
  const hintId = spec.hint ? `${id}-hint` : null;
  const type = spec.type ?? "text";
  let control: Field["control"];
  if (type === "textarea" || type === "json") {
    control = h("textarea", { id, name: spec.path, rows: spec.rows ?? 8, spellcheck: "false" });
    control.value = type === "json" ? JSON.stringify(spec.value ?? null, null, 2) : String(spec.value ?? "");
  } else if (type === "select") {
    control = h("select", { id, name: spec.path });
    for (const option of spec.options ?? []) {
      const { value, label } = typeof option === "string" ? { value: option, label: option } : option;
      control.appendChild(h("option", { value, selected: value === spec.value }, label));
    }
  } else if (type === "datetime") {
    control = h("input", { id, name: spec.path, type: "datetime-local", autocomplete: "off" });
    control.value = localInput(typeof spec.value === "string" ? spec.value : null);
  } else {
    control = h("input", { id, name: spec.path, type, autocomplete: "off" });
    if (type === "checkbox") (control as HTMLInputElement).checked = spec.value === true;
    else control.value = spec.value === undefined || spec.value === null ? "" : String(spec.value);
  }
  if (spec.required) control.setAttribute("required", "");
  control.setAttribute("aria-describedby", [hintId, errorId].filter(Boolean).join(" "));
  const label = h("label", { for: id }, spec.label);
  const error = h("p", { id: errorId, class: "error", hidden: true });
  const hint = spec.hint ? h("p", { id: hintId, class: "hint" }, spec.hint) : null;
  const wrap =
    type === "checkbox"
      ? h("div", { class: "field check" }, control, label, hint, error)
      : h("div", { class: `field${spec.wide ? " wide" : ""}` }, label, control, hint, error);
  return { spec, wrap, control, error };
}

export function readField(f: Field): unknown {
  const type = f.spec.type ?? "text";
  const raw = f.control.value;
  if (type === "checkbox") return (f.control as HTMLInputElement).checked;
  if (type === "number") return raw.trim() === "" ? null : Number(raw);
  if (type === "datetime") return fromLocalInput(raw);
  if (type === "json") {
    try {
      return JSON.parse(raw);
    } catch (error) {
      throw new ApiFailure(0, "invalid_json", "Fix the JSON before saving.", [{ path: f.spec.path, message: `Not valid JSON: ${(error as Error).message}` }]);
    }
  }
  return raw;
}

/** Nests `{ "mail.mode": "live" }` into `{ mail: { mode: "live" } }`. */
export function nest(flat: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [path, value] of Object.entries(flat)) {
    const keys = path.split(".");
    let node = out;
    for (const key of keys.slice(0, -1)) {
      node[key] ??= {};
      node = node[key] as Record<string, unknown>;
    }
    node[keys[keys.length - 1] as string] = value;
  }
  return out;
}

function setFieldError(f: Field, message: string | null): void {
  f.error.hidden = message === null;
  f.error.textContent = message === null ? "" : `Error: ${message}`;
  if (message === null) f.control.removeAttribute("aria-invalid");
  else f.control.setAttribute("aria-invalid", "true");
}

/**
 * Puts each problem next to the field it concerns: the field whose path is the problem's path or its
 * longest prefix (`overrides.color_primary` lands on the `overrides` editor). What fits no field is returned.
 */
export function showProblems(fields: readonly Field[], problems: readonly Problem[]): Problem[] {
  const unplaced: Problem[] = [];
  const messages = new Map<Field, string[]>();
  for (const problem of problems) {
    const target = fields
      .filter((f) => problem.path === f.spec.path || problem.path.startsWith(`${f.spec.path}.`))
      .sort((a, b) => b.spec.path.length - a.spec.path.length)[0];
    if (!target) unplaced.push(problem);
    else messages.set(target, [...(messages.get(target) ?? []), problem.path === target.spec.path ? problem.message : `${problem.path}: ${problem.message}`]);
  }
  // One message per field: the first problem the API names for it (fixing it brings up the next, if any).
  for (const f of fields) setFieldError(f, messages.get(f)?.[0] ?? null);
  const first = fields.find((f) => messages.has(f));
  first?.control.focus();
  return unplaced;
}

export type Outcome = { element: HTMLElement; ok(text: string): void; fail(error: unknown, unplaced?: Problem[]): void; clear(): void };

/** A live region for a form's outcome: success in words, failures as an alert. */
export function outcome(): Outcome {
  const element = h("div", { role: "status", "aria-live": "polite" });
  return {
    element,
    ok(text) {
      element.replaceChildren(h("p", { class: "notice" }, `✓ ${text}`));
    },
    fail(error, unplaced = []) {
      // When every problem sits at its field, the alert only points there: the field says what is wrong, once.
      const atFields = error instanceof ApiFailure && error.problems.length > 0 && unplaced.length === 0;
      const count = atFields ? new Set(error.problems.map((p) => p.path)).size : 0;
      const message = atFields
        ? `Not saved: ${count === 1 ? "a field needs" : `${count} fields need`} attention (marked above).`
        : error instanceof Error
          ? error.message
          : String(error);
      element.replaceChildren(
        h(
          "div",
          { role: "alert", class: "error" },
          h("p", {}, `Error: ${message}`),
          unplaced.length > 0 ? h("ul", {}, ...unplaced.map((p) => h("li", {}, `${p.path}: ${p.message}`))) : null,
        ),
      );
    },
    clear() {
      element.replaceChildren();
    },
  };
}

export type FormSpec = {
  title?: string;
  fields: FieldSpec[];
  submit: string;
  onSubmit(values: Record<string, unknown>): Promise<string | undefined>;
  /** Which fields to send: all (default) or only those changed since the form was drawn. */
  sendOnlyChanged?: boolean;
  /** An editor: leaving it with unsaved changes asks first (tab close and in-app navigation). */
  guard?: boolean;
  /** A search or a filter: changes nothing, open to every role. */
  read?: boolean;
  /** The role the write needs (default `admin`; lib/console/client/roles.ts). */
  needs?: "support" | "admin" | "owner";
};

// Editors with changes not yet saved; a form no longer in the page does not count.
const unsaved = new Set<HTMLFormElement>();

/** Marks an editor dirty on input; `saved()` after a successful save. */
export function trackUnsaved(element: HTMLFormElement): { saved(): void } {
  const dirty = () => unsaved.add(element);
  element.addEventListener("input", dirty);
  element.addEventListener("change", dirty);
  return { saved: () => unsaved.delete(element) };
}

export function hasUnsavedChanges(): boolean {
  for (const element of unsaved) if (!element.isConnected) unsaved.delete(element);
  return unsaved.size > 0;
}

export function forgetUnsavedChanges(): void {
  unsaved.clear();
}

/** A form over one admin request: labelled fields, errors next to their field, the outcome in words. */
export function form(spec: FormSpec): HTMLFormElement {
  const fields = spec.fields.map(field);
  const result = outcome();
  const button = h("button", { type: "submit" }, spec.submit);
  const initial = new Map(
    fields.map((f) => [f, f.control instanceof HTMLInputElement && f.control.type === "checkbox" ? String(f.control.checked) : f.control.value]),
  );
  const element = h(
    "form",
    { novalidate: true, "data-read": spec.read ? "" : null, "data-needs": spec.read ? null : (spec.needs ?? "admin") },
    spec.title ? h("h3", {}, spec.title) : null,
    ...fields.map((f) => f.wrap),
    h("div", { class: "row" }, button),
    result.element,
  );
  const tracked = spec.guard ? trackUnsaved(element) : null;
  element.addEventListener("submit", async (event) => {
    event.preventDefault();
    result.clear();
    button.disabled = true;
    try {
      const values: Record<string, unknown> = {};
      for (const f of fields) {
        const now = f.control instanceof HTMLInputElement && f.control.type === "checkbox" ? String(f.control.checked) : f.control.value;
        if (spec.sendOnlyChanged && now === initial.get(f)) continue;
        values[f.spec.path] = readField(f);
      }
      showProblems(fields, []);
      const message = await spec.onSubmit(values);
      tracked?.saved();
      result.ok(message ?? "Saved.");
    } catch (error) {
      const unplaced = error instanceof ApiFailure ? showProblems(fields, error.problems) : [];
      result.fail(error, unplaced);
    } finally {
      button.disabled = false;
    }
  });
  return element;
}

export function table(headers: string[], rows: Child[][], caption?: string): HTMLTableElement {
  return h(
    "table",
    {},
    caption ? h("caption", { class: "hint" }, caption) : null,
    h("thead", {}, h("tr", {}, ...headers.map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, ...rows.map((cells) => h("tr", {}, ...cells.map((cell) => h("td", {}, cell))))),
  );
}

export function card(title: string, ...children: Child[]): HTMLElement {
  const id = uid("card");
  return h("section", { class: "card", "aria-labelledby": id }, h("h2", { id }, title), ...children);
}

/** Runs `work` after `ms` of quiet: the live previews redraw when typing pauses, not on every key. */
export function debounce<A extends unknown[]>(ms: number, work: (...args: A) => void): (...args: A) => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => work(...args), ms);
  };
}

export const yesNo = (value: boolean) => (value ? "yes" : "no");
/** A time in the operator's time zone, shown with the zone. */
export const date = at;

/**
 * A labelled checkbox over a membership (a block enabled for a customer, a template assigned): checking PUTs
 * `path`, unchecking DELETEs it; a refusal flips the box back and says why in `result`.
 */
export function membershipBox(input: { label: string; checked: boolean; path: string; result: Outcome; said(on: boolean): string }): HTMLElement {
  const box = h("input", { type: "checkbox", id: uid("member"), checked: input.checked });
  box.addEventListener("change", async () => {
    try {
      await send(box.checked ? "PUT" : "DELETE", input.path);
      input.result.ok(input.said(box.checked));
    } catch (error) {
      box.checked = !box.checked;
      input.result.fail(error);
    }
  });
  return h("span", {}, box, " ", h("label", { for: box.id }, input.label));
}

/** A URL with its password (`user:password@`) replaced by dots, for showing a secret URL masked. */
export function maskUrlPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === "") return "••••••••";
    parsed.password = "••••••••";
    return parsed.toString().replace(/%E2%80%A2/g, "•");
  } catch {
    return "••••••••";
  }
}

/**
 * A secret shown masked, with Reveal/Hide and Copy (the clipboard gets the value
 * without it being shown). The value itself is in the page only as long as it is revealed.
 */
export function secretValue(value: string, name: string, masked = "••••••••"): HTMLElement {
  const shown = h("span", { class: "secret", "data-testid": "secret-value" }, masked);
  const state = h("span", { role: "status", class: "hint" });
  const reveal = h("button", { type: "button", class: "secondary" }, `Reveal ${name}`);
  let revealed = false;
  reveal.addEventListener("click", () => {
    revealed = !revealed;
    reveal.textContent = `${revealed ? "Hide" : "Reveal"} ${name}`;
    shown.textContent = revealed ? value : masked;
  });
  const copy = h("button", { type: "button", class: "secondary" }, `Copy ${name}`);
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(value);
      state.textContent = "Copied.";
    } catch {
      state.textContent = "The browser refused the clipboard; reveal the value and copy it by hand.";
    }
  });
  return h("span", { class: "row" }, shown, reveal, copy, state);
}
