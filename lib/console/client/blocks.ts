import { ApiFailure, get, getAll, send } from "./api";
import { card, date, debounce, field, h, outcome, readField, showProblems, table, trackUnsaved } from "./dom";
import { editorForm, emptyIsNull, fieldEditor, inFieldset, listEditor, objectEditor, placeProblems, withJsonView, type Editor } from "./editors";
import type { Customer } from "./customers";
import type { AdminComponents as components } from "@mail-ads/client/admin";
import { blockParamTypes } from "../../db/schema/vocabulary";

// Answers of the admin API, typed from its OpenAPI document (the one source; packages/client/src/types).
type Schemas = components["schemas"];

type Block = Schemas["MailBlock"];
type BlockDraftPreview = Schemas["BlockDraftPreview"];
type BlockParam = Schemas["MailBlockParam"];

const PARAM_TYPES = blockParamTypes;

/** One parameter of a block's schema. */
function paramRow(value: BlockParam, path: string, label: string): Editor<BlockParam> {
  return objectEditor<BlockParam>({
    name: fieldEditor<string>({ path: `${path}.name`, label: `${label}: name`, value: value.name, hint: "Placeholder in the MJML: {{name}}." }),
    label: fieldEditor<string>({ path: `${path}.label`, label: `${label}: label`, value: value.label }),
    type: fieldEditor<BlockParam["type"]>({ path: `${path}.type`, label: `${label}: type`, type: "select", options: PARAM_TYPES, value: value.type }),
    required: fieldEditor<boolean>({ path: `${path}.required`, label: `${label}: required`, type: "checkbox", value: value.required }),
    hide_if_missing: fieldEditor<boolean>({
      path: `${path}.hide_if_missing`,
      label: `${label}: hide the block's outer element without a value`,
      type: "checkbox",
      value: value.hide_if_missing,
    }),
    fallback: fieldEditor(
      { path: `${path}.fallback`, label: `${label}: fallback`, value: value.fallback ?? "", hint: "Used without a value. Empty: none." },
      emptyIsNull,
    ),
    example: fieldEditor<string>({ path: `${path}.example`, label: `${label}: example`, value: value.example, hint: "Fills the tile and the preview." }),
  });
}

const isParams = (value: unknown): value is BlockParam[] => Array.isArray(value) && value.every((v) => typeof v === "object" && v !== null);

/** The parameter schema: a row per parameter, or (advanced) the JSON. */
function paramsEditor(params: BlockParam[]): Editor<BlockParam[]> {
  return inFieldset(
    "Parameters",
    withJsonView<BlockParam[]>({
      path: "params",
      label: "Parameters",
      value: params,
      accepts: isParams,
      make: (value) =>
        listEditor<BlockParam>({
          path: "params",
          item: "parameter",
          items: value,
          max: 50,
          describe: (p) => p.name,
          blank: () => ({ name: "", type: "string", label: "", required: false, fallback: null, hide_if_missing: false, example: "" }),
          row: paramRow,
        }),
    }),
    "Examples fill the preview.",
  );
}

const STARTER_MJML = "<mj-section><mj-column><mj-text><h1>{{title}}</h1></mj-text></mj-column></mj-section>";

export async function blocksPage(main: HTMLElement): Promise<void> {
  const blocks = await get<Block[]>("mail/blocks");
  main.replaceChildren(
    h("h1", {}, "Block library"),
    card(
      "Create a block",
      editorForm({
        submit: "Create block",
        guard: true,
        editor: objectEditor({
          slug: fieldEditor<string>({ path: "slug", label: "Slug", hint: "Lower-case letters and digits separated by hyphens.", required: true }),
          name: fieldEditor<string>({ path: "name", label: "Name", required: true }),
          mjml: fieldEditor<string>({ path: "mjml", label: "MJML", type: "textarea", value: STARTER_MJML, wide: true }),
          params: paramsEditor([{ name: "title", type: "text", label: "Title", required: true, fallback: "", hide_if_missing: false, example: "Hello" }]),
        }),
        onSubmit: async (values) => {
          const block = await send<Block>("POST", "mail/blocks", values);
          location.hash = `#/blocks/${block.id}`;
          return `Created ${block.name}.`;
        },
      }),
    ),
    card(
      "Blocks",
      table(
        ["Name", "Slug", "Tags", "Version", "State", "Changed"],
        blocks.map((b) => [
          h("a", { href: `#/blocks/${b.id}` }, b.name),
          b.slug,
          b.tags.map((t) => t.label).join(", ") || "—",
          String(b.version),
          b.active ? "Active" : "Inactive",
          date(b.updated_at),
        ]),
      ),
    ),
  );
}

/** The MJML editor: the tile preview follows the text as you type (debounced), through the customers' tile pipeline. */
export async function blockPage(main: HTMLElement, id: string): Promise<void> {
  const [block, customers] = await Promise.all([get<Block>(`mail/blocks/${id}`), getAll<Customer>("customers", 5)]);
  const fields = [
    field({ path: "name", label: "Name", value: block.name }),
    field({ path: "slug", label: "Slug", value: block.slug }),
    field({ path: "description", label: "Description", value: block.description ?? "" }),
    field({ path: "mjml", label: "MJML", type: "textarea", value: block.mjml, rows: 16, wide: true }),
    field({ path: "active", label: "Active (usable by customers it is enabled for)", type: "checkbox", value: block.active }),
  ];
  const design = field({
    path: "customer_id",
    label: "Preview in the design of",
    type: "select",
    options: [{ value: "", label: "Default design" }, ...customers.map((c) => ({ value: c.id, label: c.name }))],
    value: "",
  });
  const params = paramsEditor(block.params);
  const allFields = () => [...fields, ...params.fields()];
  const byPath = (path: string) => fields.find((f) => f.spec.path === path) as (typeof fields)[number];
  const frame = h("iframe", { class: "preview", title: "Tile preview of the block", sandbox: "" });
  const previewState = h("p", { role: "status", class: "hint", "data-testid": "preview-state" }, "Preview not drawn yet.");
  const findings = h("div", { "aria-live": "polite" });
  let drawn = 0;

  const redraw = async () => {
    const run = ++drawn;
    previewState.textContent = "Rendering preview…";
    try {
      const body = {
        mjml: readField(byPath("mjml")),
        params: params.read(),
        ...(design.control.value ? { customer_id: design.control.value } : {}),
      };
      const tile = await send<BlockDraftPreview>("POST", "mail/blocks/preview", body);
      if (run !== drawn) return;
      showProblems(allFields(), []);
      if (tile.html !== null) frame.srcdoc = tile.html;
      findings.replaceChildren(
        tile.errors.length === 0
          ? h("p", { class: "notice" }, "✓ No MJML findings.")
          : h(
              "div",
              { class: "error", role: "alert" },
              h("p", {}, `${tile.errors.length} finding(s):`),
              h("ul", {}, ...tile.errors.map((e) => h("li", {}, `${e.line === null ? "" : `line ${e.line}: `}${e.message}`))),
            ),
      );
      previewState.textContent = tile.html === null ? "The draft cannot render; see the findings." : `Preview updated at ${new Date().toLocaleTimeString()}.`;
    } catch (error) {
      if (run !== drawn) return;
      const unplaced = error instanceof ApiFailure ? placeProblems(allFields(), error.problems) : [];
      previewState.textContent = `Preview failed: ${error instanceof Error ? error.message : String(error)}${unplaced.length ? ` (${unplaced.map((p) => `${p.path}: ${p.message}`).join("; ")})` : ""}`;
    }
  };
  const scheduled = debounce(400, () => void redraw());
  for (const f of [byPath("mjml"), design]) f.control.addEventListener("input", scheduled);
  params.element.addEventListener("input", scheduled);
  params.element.addEventListener("change", scheduled);
  design.control.addEventListener("change", scheduled);

  const result = outcome();
  const editor = h(
    "form",
    { novalidate: true },
    ...fields.slice(0, -1).map((f) => f.wrap),
    params.element,
    ...fields.slice(-1).map((f) => f.wrap),
    h("div", { class: "row" }, h("button", { type: "submit" }, "Save block")),
    result.element,
  );
  const tracked = trackUnsaved(editor);
  editor.addEventListener("submit", async (event) => {
    event.preventDefault();
    result.clear();
    try {
      const body: Record<string, unknown> = {};
      for (const f of fields) body[f.spec.path] = readField(f);
      body.params = params.read();
      if (body.description === "") body.description = null;
      const saved = await send<Block>("PATCH", `mail/blocks/${id}`, body);
      showProblems(allFields(), []);
      tracked.saved();
      result.ok(`Saved as version ${saved.version}.`);
    } catch (error) {
      result.fail(error, error instanceof ApiFailure ? placeProblems(allFields(), error.problems) : []);
    }
  });

  main.replaceChildren(
    h("p", {}, h("a", { href: "#/blocks" }, "← Block library")),
    h("h1", {}, `Block: ${block.name}`),
    h("div", { class: "split" }, card("Edit", editor), h("div", { class: "sticky" }, card("Live preview", design.wrap, previewState, frame, findings))),
  );
  await redraw();
}
