import { ApiFailure, type Problem } from "./api";
import { field, h, outcome, readField, showProblems, trackUnsaved, type Field, type FieldSpec } from "./dom";

/**
 * Forms for the known shapes of the admin API (lists of parameters, block stacks, senders, token maps)
 * instead of raw JSON. An editor draws its part of a request body and reads it back; its fields carry the
 * request paths (`params.2.name`), so a 422's `details` land at the field they name. Lists add, remove and
 * reorder rows; every structural change fires `input`, so the unsaved-changes guard and live previews follow.
 */
export type Editor<T> = {
  element: HTMLElement;
  /** The value as the API takes it; a local mistake (broken JSON) throws an `ApiFailure` naming its path. */
  read(): T;
  /** The fields now drawn, with their request paths. */
  fields(): Field[];
};

/** Tells the enclosing form (unsaved-changes guard, live previews) that the editor changed. */
export const changed = (element: HTMLElement) => element.dispatchEvent(new Event("input", { bubbles: true }));

/** One field; `read` shapes its text (`""` → null, say). */
export function fieldEditor<T = unknown>(spec: FieldSpec, read?: (raw: unknown) => T): Editor<T> {
  const f = field(spec);
  return { element: f.wrap, read: () => (read ? read(readField(f)) : (readField(f) as T)), fields: () => [f] };
}

/** Empty text is "none": null. */
export const emptyIsNull = (raw: unknown): string | null => {
  const text = String(raw ?? "");
  return text.trim() === "" ? null : text;
};

/** An object of parts, drawn in order (optionally inside a fieldset with a legend). */
export function objectEditor<T extends Record<string, unknown>>(parts: { [K in keyof T]: Editor<T[K]> }, legend?: string): Editor<T> {
  const entries = Object.entries(parts) as [keyof T & string, Editor<unknown>][];
  const children = entries.map(([, part]) => part.element);
  const element = legend ? h("fieldset", { class: "group" }, h("legend", {}, legend), ...children) : h("div", { class: "fields" }, ...children);
  return {
    element,
    read: () => Object.fromEntries(entries.map(([key, part]) => [key, part.read()])) as T,
    fields: () => entries.flatMap(([, part]) => part.fields()),
  };
}

/** An editor inside a fieldset with a legend (and a hint): same value, grouped for the eye and the screen reader. */
export function inFieldset<T>(legend: string, editor: Editor<T>, hint?: string): Editor<T> {
  return { ...editor, element: h("fieldset", { class: "group" }, h("legend", {}, legend), hint ? h("p", { class: "hint" }, hint) : null, editor.element) };
}

export type ListSpec<T> = {
  /** Request path of the list (`params`); row `i` is at `<path>.<i>`. */
  path: string;
  /** Name of one item in labels and buttons: "parameter" → "Parameter 2", "Remove parameter 2". */
  item: string;
  items: readonly T[];
  /** A row for `value` at request path `path`; its labels should name `label` ("Parameter 2"). */
  row(value: T, path: string, label: string): Editor<T>;
  /** The value of a new row. */
  blank(): T;
  /** A row's value for its legend ("Parameter 2: title"). */
  describe?(value: T): string;
  /** At most this many rows (the API's limit). */
  max?: number;
};

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * A list of rows with Add, Remove, Move up, Move down. A structural change redraws the rows from their
 * current values, so every field's path is its row's index again, and keeps the keyboard focus on the
 * moved row's button.
 */
export function listEditor<T>(spec: ListSpec<T>): Editor<T[]> {
  let rows: Editor<T>[] = [];
  const body = h("div", { class: "rows" });
  const empty = h("p", { class: "hint" }, `No ${spec.item}${spec.item.endsWith("s") ? "es" : "s"} yet.`);
  const add = h("button", { type: "button", class: "secondary" }, `Add ${spec.item}`);
  const element = h("div", { class: "list-editor", "data-list": spec.path }, body, empty, h("div", { class: "row" }, add));

  const draw = (values: readonly T[], focus?: { index: number; action: string }) => {
    rows = [];
    body.replaceChildren(
      ...values.map((value, index) => {
        const label = `${capital(spec.item)} ${index + 1}`;
        const row = spec.row(value, `${spec.path}.${index}`, label);
        rows.push(row);
        const act = (action: string, text: string, disabled: boolean, run: () => void) =>
          h("button", { type: "button", class: "secondary small", "data-action": action, disabled, onClick: run }, text);
        const current = () => rows.map((r) => r.read());
        const move = (to: number, action: string) => {
          const next = current();
          const [moved] = next.splice(index, 1) as [T];
          next.splice(to, 0, moved);
          draw(next, { index: to, action });
        };
        const described = spec.describe ? spec.describe(value) : "";
        return h(
          "fieldset",
          { class: "group" },
          h("legend", {}, described ? `${label}: ${described}` : label),
          row.element,
          h(
            "div",
            { class: "row" },
            act("up", `Move ${spec.item} ${index + 1} up`, index === 0, () => move(index - 1, "up")),
            act("down", `Move ${spec.item} ${index + 1} down`, index === values.length - 1, () => move(index + 1, "down")),
            act("remove", `Remove ${spec.item} ${index + 1}`, false, () => {
              const next = current();
              next.splice(index, 1);
              draw(next, { index: Math.min(index, next.length - 1), action: "remove" });
            }),
          ),
        );
      }),
    );
    empty.hidden = values.length > 0;
    add.disabled = spec.max !== undefined && values.length >= spec.max;
    if (focus) {
      const target =
        focus.index < 0
          ? add
          : (body.children[focus.index]?.querySelector<HTMLButtonElement>(`[data-action="${focus.action}"]:not(:disabled)`) ??
            body.children[focus.index]?.querySelector<HTMLElement>("input, select, textarea"));
      (target ?? add).focus();
      changed(element);
    }
  };
  add.addEventListener("click", () => {
    const next = [...rows.map((r) => r.read()), spec.blank()];
    draw(next);
    body.lastElementChild?.querySelector<HTMLElement>("input, select, textarea")?.focus();
    changed(element);
  });
  draw(spec.items);
  return { element, read: () => rows.map((r) => r.read()), fields: () => rows.flatMap((r) => r.fields()) };
}

/** A list of single values (addresses, domains): one labelled field a row. */
export function valueList(spec: { path: string; item: string; items: readonly string[]; type?: "text" | "email"; max?: number }): Editor<string[]> {
  return listEditor<string>({
    path: spec.path,
    item: spec.item,
    items: spec.items,
    max: spec.max,
    blank: () => "",
    row: (value, path, label) => fieldEditor<string>({ path, label, type: spec.type ?? "text", value }, (raw) => String(raw).trim()),
  });
}

/**
 * A known shape with a raw JSON view beside it ("advanced"): the form is the default; switching to JSON
 * shows the current value as text, switching back draws the form from the text (refused while it is not
 * valid JSON or not the shape `make` accepts).
 */
export function withJsonView<T>(input: { path: string; label: string; value: T; make(value: T): Editor<T>; accepts(value: unknown): value is T }): Editor<T> {
  let form = input.make(input.value);
  let json: Field | null = null;
  const host = h("div", {}, form.element);
  const toggle = h(
    "button",
    { type: "button", class: "secondary small", "data-read": "", "aria-pressed": "false" },
    `Edit ${input.label.toLowerCase()} as JSON`,
  );
  const state = h("p", { class: "error", role: "alert", hidden: true });
  toggle.addEventListener("click", () => {
    state.hidden = true;
    if (json === null) {
      json = field({ path: input.path, label: `${input.label} (JSON)`, type: "json", value: form.read(), rows: 12, wide: true });
      host.replaceChildren(json.wrap);
      toggle.setAttribute("aria-pressed", "true");
      toggle.textContent = `Edit ${input.label.toLowerCase()} in the form`;
      json.control.focus();
      return;
    }
    let parsed: unknown;
    try {
      parsed = readField(json);
    } catch (error) {
      showProblems([json], error instanceof ApiFailure ? error.problems : []);
      return;
    }
    if (!input.accepts(parsed)) {
      state.textContent = `Error: the JSON is not the shape of ${input.label.toLowerCase()}; fix it or keep editing it as JSON.`;
      state.hidden = false;
      return;
    }
    form = input.make(parsed);
    json = null;
    host.replaceChildren(form.element);
    toggle.setAttribute("aria-pressed", "false");
    toggle.textContent = `Edit ${input.label.toLowerCase()} as JSON`;
    changed(host);
  });
  return {
    element: h("div", { class: "json-view" }, h("div", { class: "row" }, toggle), state, host),
    read: () => (json ? (readField(json) as T) : form.read()),
    fields: () => (json ? [json] : form.fields()),
  };
}

/**
 * The API's problems placed at the fields: a problem on a whole object or list (`default_newsletter_from`,
 * `verified_senders`) lands on its first field when no field carries that exact path.
 */
export function placeProblems(fields: readonly Field[], problems: readonly Problem[]): Problem[] {
  const placed = problems.map((p) => {
    if (fields.some((f) => p.path === f.spec.path || p.path.startsWith(`${f.spec.path}.`))) return p;
    const inside = fields.find((f) => p.path !== "" && f.spec.path.startsWith(`${p.path}.`));
    return inside ? { path: inside.spec.path, message: `${p.path}: ${p.message}` } : p;
  });
  return showProblems(fields, placed);
}

/**
 * A form over one editor: Save sends `read()`, the outcome is said in words, the API's field errors land at
 * their fields; `guard` makes leaving it with unsaved changes ask first.
 */
export function editorForm<T>(spec: {
  editor: Editor<T>;
  submit: string;
  title?: string;
  guard?: boolean;
  /** Maps the API's error paths onto the editor's (an editor nested under `template.`, say). */
  problemPath?(path: string): string;
  onSubmit(value: T): Promise<string | undefined>;
}): HTMLFormElement {
  const result = outcome();
  const button = h("button", { type: "submit" }, spec.submit);
  const element = h(
    "form",
    { novalidate: true },
    spec.title ? h("h3", {}, spec.title) : null,
    spec.editor.element,
    h("div", { class: "row" }, button),
    result.element,
  );
  const tracked = spec.guard ? trackUnsaved(element) : null;
  element.addEventListener("submit", async (event) => {
    event.preventDefault();
    result.clear();
    button.disabled = true;
    try {
      const value = spec.editor.read();
      showProblems(spec.editor.fields(), []);
      const message = await spec.onSubmit(value);
      tracked?.saved();
      result.ok(message ?? "Saved.");
    } catch (error) {
      const problems = error instanceof ApiFailure ? error.problems.map((p) => ({ ...p, path: spec.problemPath ? spec.problemPath(p.path) : p.path })) : [];
      result.fail(error, placeProblems(spec.editor.fields(), problems));
    } finally {
      button.disabled = false;
    }
  });
  return element;
}

/** Puts controls (a Show button, a colour picker) on one line with the field's own control. */
export function beside(f: Field, ...extra: HTMLElement[]): void {
  const line = h("div", { class: "inline" });
  f.control.replaceWith(line);
  line.append(f.control, ...extra);
}

/** A password field with Show/Hide: what is typed can be checked before it is saved, masked otherwise. */
export function secretField(spec: { path: string; label: string; hint?: string; name: string }): Editor<string> {
  const f = field({ path: spec.path, label: spec.label, type: "password", hint: spec.hint });
  const show = h("button", { type: "button", class: "secondary small", "data-read": "", "aria-pressed": "false" }, `Show ${spec.name}`);
  show.addEventListener("click", () => {
    const hidden = (f.control as HTMLInputElement).type === "password";
    (f.control as HTMLInputElement).type = hidden ? "text" : "password";
    show.setAttribute("aria-pressed", String(hidden));
    show.textContent = `${hidden ? "Hide" : "Show"} ${spec.name}`;
  });
  beside(f, show);
  return { element: f.wrap, read: () => String(readField(f)), fields: () => [f] };
}
