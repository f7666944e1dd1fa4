import { ApiFailure, get, send } from "./api";
import { card, date, debounce, field, form, h, outcome, readField, showProblems, table, trackUnsaved } from "./dom";
import { ratioFigures, type AdTemplate } from "./ads";
import type { components } from "../../client/types/admin";

// Answers of the admin API, typed from its OpenAPI document (the one source; lib/client/types).
type DraftPreview = components["schemas"]["AdTemplateDraftPreview"];

export async function adTemplatesPage(main: HTMLElement): Promise<void> {
  const templates = await get<AdTemplate[]>("ads/templates");
  const first = templates[0];
  main.replaceChildren(
    h("h1", {}, "Ad templates"),
    card(
      "Templates",
      table(
        ["Name", "Type", "State", "Revision", "Changed"],
        templates.map((t) => [h("a", { href: `#/ad-templates/${t.id}` }, t.name), t.type, t.status, String(t.revision), date(t.updated_at)]),
      ),
    ),
    card(
      "Create a template",
      h(
        "p",
        { class: "hint" },
        first ? `Starts from a copy of ${first.name}; open it afterwards to edit the layouts with live previews.` : "Layouts and parameters as JSON.",
      ),
      form({
        submit: "Create template",
        fields: [
          { path: "name", label: "Name", required: true },
          { path: "description", label: "Description" },
          { path: "type", label: "Type", type: "select", options: ["image", "video"] },
          { path: "params", label: "Parameters (JSON)", type: "json", value: first?.params ?? [], wide: true },
          { path: "layouts", label: "Layouts (JSON: 1:1, 4:5, 9:16)", type: "json", value: first?.layouts ?? {}, rows: 12, wide: true },
          { path: "highlight", label: "Highlight style (JSON or null)", type: "json", value: first?.highlight ?? null, rows: 3 },
        ],
        onSubmit: async (values) => {
          const created = await send<AdTemplate>("POST", "ads/templates", values);
          location.hash = `#/ad-templates/${created.id}`;
          return `Created ${created.name}.`;
        },
      }),
    ),
  );
}

/** The layout editor: the three ratios are drawn side by side from the unsaved draft as you type (debounced). */
export async function adTemplatePage(main: HTMLElement, id: string): Promise<void> {
  const template = await get<AdTemplate>(`ads/templates/${id}`);
  const fields = [
    field({ path: "name", label: "Name", value: template.name }),
    field({ path: "description", label: "Description", value: template.description }),
    field({
      path: "status",
      label: "State",
      type: "select",
      options: ["active", "inactive"],
      value: template.status,
      hint: "Inactive templates are hidden from customers.",
    }),
    field({ path: "template.params", label: "Parameters (JSON)", type: "json", value: template.params, rows: 10, wide: true }),
    field({ path: "template.layouts", label: "Layouts (JSON: 1:1, 4:5, 9:16)", type: "json", value: template.layouts, rows: 18, wide: true }),
    field({ path: "template.highlight", label: "Highlight style (JSON or null)", type: "json", value: template.highlight, rows: 3 }),
    field({ path: "values", label: "Preview values (JSON: parameter → value; examples where missing)", type: "json", value: {}, rows: 4 }),
  ];
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
          params: readField(byPath("template.params")),
          layouts: readField(byPath("template.layouts")),
          highlight: readField(byPath("template.highlight")),
        },
        values: readField(byPath("values")),
      };
      const answer = await send<DraftPreview>("POST", "ads/templates/preview", body);
      if (run !== drawn) return;
      showProblems(fields, []);
      previews.replaceChildren(ratioFigures(answer.images, template.name));
      previewState.textContent = `Previews updated at ${new Date().toLocaleTimeString()}.`;
    } catch (error) {
      if (run !== drawn) return;
      const problems = error instanceof ApiFailure ? error.problems.map((p) => ({ ...p, path: p.path.replace(/^params\./, "values.") })) : [];
      const unplaced = showProblems(fields, problems);
      previewState.textContent = `Preview failed: ${error instanceof Error ? error.message : String(error)}${unplaced.length ? ` (${unplaced.map((p) => `${p.path}: ${p.message}`).join("; ")})` : ""}`;
    }
  };
  const scheduled = debounce(500, () => void redraw());
  for (const path of ["template.params", "template.layouts", "template.highlight", "values"]) byPath(path).control.addEventListener("input", scheduled);

  const result = outcome();
  const editor = h(
    "form",
    { novalidate: true },
    ...fields.filter((f) => f.spec.path !== "values").map((f) => f.wrap),
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
        params: readField(byPath("template.params")),
        layouts: readField(byPath("template.layouts")),
        highlight: readField(byPath("template.highlight")),
      };
      const saved = await send<AdTemplate>("PATCH", `ads/templates/${id}`, body);
      showProblems(fields, []);
      tracked.saved();
      result.ok(`Saved as revision ${saved.revision}.`);
    } catch (error) {
      // The save names `params`, `layouts`, `highlight`; the editor's fields are under `template.`.
      const problems =
        error instanceof ApiFailure
          ? error.problems.map((p) => ({ ...p, path: /^(params|layouts|highlight)\b/.test(p.path) ? `template.${p.path}` : p.path }))
          : [];
      result.fail(error, showProblems(fields, problems));
    }
  });
  main.replaceChildren(
    h("p", {}, h("a", { href: "#/ad-templates" }, "← Ad templates")),
    h("h1", {}, `Ad template: ${template.name}`),
    h("div", { class: "split" }, card("Edit", editor), card("Live previews (1:1, 4:5, 9:16)", byPath("values").wrap, previewState, previews)),
  );
  await redraw();
}
