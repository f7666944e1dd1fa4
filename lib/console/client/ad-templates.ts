import { ApiFailure, get, send } from "./api";
import { card, date, debounce, field, h, outcome, readField, showProblems, table, trackUnsaved, type Field } from "./dom";
import { editorForm, emptyIsNull, fieldEditor, inFieldset, listEditor, objectEditor, placeProblems, withJsonView, type Editor } from "./editors";
import { ratioFigures, type AdTemplate } from "./ads";
import type { AdminComponents as components } from "@mail-ads/client/admin";
import { adTemplateParamTypes } from "../../db/schema/vocabulary";

// Answers of the admin API, typed from its OpenAPI document (the one source; packages/client/src/types).
type DraftPreview = components["schemas"]["AdTemplateDraftPreview"];

/** A template parameter as the admin API documents it (its schema is open in the document: `lib/ads/templates/layout.ts`). */
type AdParam = {
  name: string;
  type: "text" | "color" | "image" | "video";
  label: string;
  required: boolean;
  description: string;
  min_chars: number | null;
  max_chars: number | null;
  example: string | null;
  supports_highlight: boolean;
};

const asParam = (raw: Record<string, unknown>): AdParam => ({
  name: String(raw.name ?? ""),
  type: (raw.type as AdParam["type"]) ?? "text",
  label: String(raw.label ?? ""),
  required: raw.required === true,
  description: String(raw.description ?? ""),
  min_chars: typeof raw.min_chars === "number" ? raw.min_chars : null,
  max_chars: typeof raw.max_chars === "number" ? raw.max_chars : null,
  example: typeof raw.example === "string" ? raw.example : null,
  supports_highlight: raw.supports_highlight === true,
});

function adParamRow(value: AdParam, path: string, label: string): Editor<AdParam> {
  return objectEditor<AdParam>({
    name: fieldEditor<string>({ path: `${path}.name`, label: `${label}: name`, value: value.name, hint: "Lower-case letters, digits and _." }),
    label: fieldEditor<string>({ path: `${path}.label`, label: `${label}: label`, value: value.label }),
    type: fieldEditor<AdParam["type"]>({
      path: `${path}.type`,
      label: `${label}: type`,
      type: "select",
      options: adTemplateParamTypes,
      value: value.type,
    }),
    required: fieldEditor<boolean>({ path: `${path}.required`, label: `${label}: required`, type: "checkbox", value: value.required }),
    description: fieldEditor<string>({ path: `${path}.description`, label: `${label}: description`, value: value.description }),
    min_chars: fieldEditor<number | null>({
      path: `${path}.min_chars`,
      label: `${label}: at least (characters)`,
      type: "number",
      value: value.min_chars,
      hint: "Text only. Empty: no minimum.",
    }),
    max_chars: fieldEditor<number | null>({
      path: `${path}.max_chars`,
      label: `${label}: at most (characters)`,
      type: "number",
      value: value.max_chars,
      hint: "Text only. Empty: no maximum.",
    }),
    supports_highlight: fieldEditor<boolean>({
      path: `${path}.supports_highlight`,
      label: `${label}: [[word]] highlights`,
      type: "checkbox",
      value: value.supports_highlight,
    }),
    example: fieldEditor(
      { path: `${path}.example`, label: `${label}: example`, value: value.example ?? "", hint: "A colour is #rrggbb. Empty: none." },
      emptyIsNull,
    ),
  });
}

const isParamList = (value: unknown): value is Record<string, unknown>[] => Array.isArray(value) && value.every((v) => typeof v === "object" && v !== null);

/** The parameters as a form (a row each, add/remove/reorder), or (advanced) the JSON; `path` is where the page's errors name them. */
function adParamsEditor(path: string, params: readonly Record<string, unknown>[]): Editor<AdParam[]> {
  return inFieldset(
    "Parameters",
    withJsonView<AdParam[]>({
      path,
      label: "Parameters",
      value: params.map(asParam),
      accepts: (value): value is AdParam[] => isParamList(value),
      make: (value) =>
        listEditor<AdParam>({
          path,
          item: "parameter",
          items: value.map((v) => asParam(v as unknown as Record<string, unknown>)),
          describe: (p) => p.name,
          blank: () => asParam({}),
          row: adParamRow,
        }),
    }),
  );
}

export async function adTemplatesPage(main: HTMLElement): Promise<void> {
  const templates = await get<AdTemplate[]>("ads/templates");
  const first = templates[0];
  main.replaceChildren(
    h("h1", {}, "Ad templates"),
    card(
      "Templates",
      table(
        ["Name", "Type", "State", "Revision", "Changed"],
        templates.map((t) => [
          h("a", { href: `#/ad-templates/${t.id}` }, t.name),
          t.type === "image" ? "Image" : "Video",
          t.status === "active" ? "Active" : "Inactive",
          String(t.revision),
          date(t.updated_at),
        ]),
      ),
    ),
    card(
      "Create a template",
      h(
        "p",
        { class: "hint" },
        first ? `Starts from a copy of ${first.name}; open it afterwards to edit the layouts with live previews.` : "Layouts and parameters as JSON.",
      ),
      editorForm({
        submit: "Create template",
        guard: true,
        editor: objectEditor({
          name: fieldEditor<string>({ path: "name", label: "Name", required: true }),
          description: fieldEditor<string>({ path: "description", label: "Description" }),
          type: fieldEditor<string>({ path: "type", label: "Type", type: "select", options: ["image", "video"] }),
          params: adParamsEditor("params", first?.params ?? []),
          layouts: fieldEditor({ path: "layouts", label: "Layouts (JSON: 1:1, 4:5, 9:16)", type: "json", value: first?.layouts ?? {}, rows: 12, wide: true }),
          highlight: fieldEditor({ path: "highlight", label: "Highlight style (JSON or null)", type: "json", value: first?.highlight ?? null, rows: 3 }),
        }),
        onSubmit: async (value) => {
          const created = await send<AdTemplate>("POST", "ads/templates", value);
          location.hash = `#/ad-templates/${created.id}`;
          return `Created ${created.name}.`;
        },
      }),
    ),
  );
}

/** The layout editor: the three ratios are drawn side by side from the unsaved draft as you type (debounced). */
/**
 * The preview's values: a field per parameter of the draft (empty: the parameter's example), redrawn when the
 * parameters change (typed values kept by name). Not saved: they only feed the previews.
 */
function previewValues(params: () => AdParam[]): Editor<Record<string, string>> & { sync(): void } {
  let fields: Field[] = [];
  let drawnFor = "";
  const body = h("div", { class: "fields" });
  const read = () => Object.fromEntries(fields.map((f) => [f.spec.path.slice("values.".length), f.control.value]).filter(([, v]) => v !== ""));
  const sync = () => {
    let list: AdParam[];
    try {
      list = params();
    } catch {
      return; // the parameters' JSON view holds broken JSON: keep the fields drawn
    }
    const named = list.filter((p, i) => p.name !== "" && list.findIndex((q) => q.name === p.name) === i);
    const key = JSON.stringify(named.map((p) => [p.name, p.label, p.example]));
    if (key === drawnFor) return;
    drawnFor = key;
    const typed: Record<string, string> = read();
    fields = named.map((p) =>
      field({
        path: `values.${p.name}`,
        label: `Preview: ${p.label || p.name}`,
        value: typed[p.name] ?? "",
        hint: p.example ? `Empty: the example (${p.example}).` : "Empty: none.",
      }),
    );
    body.replaceChildren(...fields.map((f) => f.wrap));
  };
  sync();
  return { element: h("fieldset", { class: "group" }, h("legend", {}, "Preview values"), body), read, fields: () => fields, sync };
}

export async function adTemplatePage(main: HTMLElement, id: string): Promise<void> {
  const template = await get<AdTemplate>(`ads/templates/${id}`);
  const fields = [
    field({ path: "name", label: "Name", value: template.name }),
    field({ path: "description", label: "Description", value: template.description }),
    field({
      path: "status",
      label: "State",
      type: "select",
      options: [
        { value: "active", label: "Active" },
        { value: "inactive", label: "Inactive" },
      ],
      value: template.status,
      hint: "Inactive templates are hidden from customers.",
    }),
    field({ path: "template.layouts", label: "Layouts (JSON: 1:1, 4:5, 9:16)", type: "json", value: template.layouts, rows: 18, wide: true }),
    field({ path: "template.highlight", label: "Highlight style (JSON or null)", type: "json", value: template.highlight, rows: 3 }),
  ];
  const params = adParamsEditor("template.params", template.params);
  const values = previewValues(() => params.read());
  const allFields = () => [...fields, ...params.fields(), ...values.fields()];
  const byPath = (path: string) => fields.find((f) => f.spec.path === path) as (typeof fields)[number];
  const previews = h("div", {});
  const previewState = h("p", { role: "status", class: "hint", "data-testid": "preview-state" }, "Rendering previews…");
  let drawn = 0;
  const redraw = async () => {
    const run = ++drawn;
    previewState.textContent = "Rendering previews…";
    try {
      const body = {
        template: {
          type: template.type,
          params: params.read(),
          layouts: readField(byPath("template.layouts")),
          highlight: readField(byPath("template.highlight")),
        },
        values: values.read(),
      };
      const answer = await send<DraftPreview>("POST", "ads/templates/preview", body);
      if (run !== drawn) return;
      showProblems(allFields(), []);
      previews.replaceChildren(ratioFigures(answer.images, template.name));
      previewState.textContent = `Previews updated at ${new Date().toLocaleTimeString()}.`;
    } catch (error) {
      if (run !== drawn) return;
      const problems = error instanceof ApiFailure ? error.problems.map((p) => ({ ...p, path: p.path.replace(/^params\./, "values.") })) : [];
      const unplaced = placeProblems(allFields(), problems);
      previewState.textContent = `Preview failed: ${error instanceof Error ? error.message : String(error)}${unplaced.length ? ` (${unplaced.map((p) => `${p.path}: ${p.message}`).join("; ")})` : ""}`;
    }
  };
  const scheduled = debounce(500, () => void redraw());
  for (const path of ["template.layouts", "template.highlight"]) byPath(path).control.addEventListener("input", scheduled);
  values.element.addEventListener("input", scheduled);
  for (const type of ["input", "change"]) {
    params.element.addEventListener(type, values.sync);
    params.element.addEventListener(type, scheduled);
  }

  const result = outcome();
  const editor = h(
    "form",
    { novalidate: true },
    ...fields.slice(0, 3).map((f) => f.wrap),
    params.element,
    ...fields.slice(3).map((f) => f.wrap),
    h("button", { type: "submit" }, "Save template"),
    result.element,
  );
  const tracked = trackUnsaved(editor);
  editor.addEventListener("submit", async (event) => {
    event.preventDefault();
    result.clear();
    try {
      const body = {
        name: readField(byPath("name")),
        description: readField(byPath("description")),
        status: readField(byPath("status")),
        params: params.read(),
        layouts: readField(byPath("template.layouts")),
        highlight: readField(byPath("template.highlight")),
      };
      const saved = await send<AdTemplate>("PATCH", `ads/templates/${id}`, body);
      showProblems(allFields(), []);
      tracked.saved();
      result.ok(`Saved as revision ${saved.revision}.`);
    } catch (error) {
      // The save names `params`, `layouts`, `highlight`; the editor's fields are under `template.`.
      const problems =
        error instanceof ApiFailure
          ? error.problems.map((p) => ({ ...p, path: /^(params|layouts|highlight)\b/.test(p.path) ? `template.${p.path}` : p.path }))
          : [];
      result.fail(error, placeProblems(allFields(), problems));
    }
  });
  main.replaceChildren(
    h("p", {}, h("a", { href: "#/ad-templates" }, "← Ad templates")),
    h("h1", {}, `Ad template: ${template.name}`),
    h(
      "div",
      { class: "split" },
      card("Edit", editor),
      h("div", { class: "sticky" }, card("Live previews (1:1, 4:5, 9:16)", values.element, previewState, previews)),
    ),
  );
  await redraw();
}
