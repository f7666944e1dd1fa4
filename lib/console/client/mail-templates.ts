import { get, send } from "./api";
import { say } from "./words";
import { card, field, h, membershipBox, outcome, readField, table } from "./dom";
import { changed, editorForm, fieldEditor, inFieldset, listEditor, objectEditor, withJsonView, type Editor } from "./editors";
import { senderEditor } from "./mail-senders";
import type { AdminComponents as components } from "@mail-ads/client/admin";
import { blockParamTypes, templateStatuses } from "../../db/schema/vocabulary";

// Answers of the admin API, typed from its OpenAPI document (the one source; packages/client/src/types).
type Schemas = components["schemas"];
type Template = Schemas["MailTemplate"];
type TemplateParam = Schemas["MailTemplateParam"];
type BlockReference = Schemas["MailBlockReference"];
type EnabledBlock = Schemas["MailEnabledBlock"];
type Block = Schemas["MailBlock"];
type TemplatePreview = Schemas["AdminMailTemplatePreview"];
type Values = Record<string, string>;

const PARAM_TYPES = blockParamTypes;

/** One entry of a template's parameter contract. */
function contractRow(value: TemplateParam, path: string, label: string): Editor<TemplateParam> {
  return objectEditor<TemplateParam>({
    name: fieldEditor<string>({ path: `${path}.name`, label: `${label}: name`, value: value.name, hint: "Used as {{name}} in the subject and block values." }),
    label: fieldEditor<string>({ path: `${path}.label`, label: `${label}: label`, value: value.label }),
    type: fieldEditor<TemplateParam["type"]>({ path: `${path}.type`, label: `${label}: type`, type: "select", options: PARAM_TYPES, value: value.type }),
    required: fieldEditor<boolean>({ path: `${path}.required`, label: `${label}: required`, type: "checkbox", value: value.required }),
    example: fieldEditor<string>({ path: `${path}.example`, label: `${label}: example`, value: value.example }),
  });
}

const isList = (value: unknown): value is never[] => Array.isArray(value) && value.every((v) => typeof v === "object" && v !== null);
const isValues = (value: unknown): value is Values =>
  typeof value === "object" && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === "string");

function contractEditor(params: TemplateParam[]): Editor<TemplateParam[]> {
  return withJsonView<TemplateParam[]>({
    path: "params",
    label: "Parameters",
    value: params,
    accepts: isList,
    make: (value) =>
      listEditor<TemplateParam>({
        path: "params",
        item: "parameter",
        items: value,
        max: 100,
        blank: () => ({ name: "", label: "", type: "string", required: true, example: "" }),
        describe: (p) => p.name,
        row: contractRow,
      }),
  });
}

/**
 * One block of the stack: the block (among those enabled for the customer) and a field per parameter of it.
 * Changing the block redraws the value fields, keeping the values of parameters both blocks have; a value
 * not among the block's parameters stays visible (and editable) rather than silently kept or dropped.
 */
function stackRow(blocks: readonly EnabledBlock[], value: BlockReference, path: string, label: string): Editor<BlockReference> {
  const known = blocks.some((b) => b.id === value.block_id);
  const choose = field({
    path: `${path}.block_id`,
    label: `${label}: block`,
    type: "select",
    value: value.block_id,
    options: [
      ...(value.block_id === "" ? [{ value: "", label: "Choose a block" }] : []),
      ...(known || value.block_id === "" ? [] : [{ value: value.block_id, label: `Not enabled: ${value.block_id}` }]),
      ...blocks.map((b) => ({ value: b.id, label: b.name })),
    ],
  });
  let valueFields: ReturnType<typeof field>[] = [];
  const host = h("div", { class: "values" });
  const drawValues = (values: Values) => {
    const block = blocks.find((b) => b.id === choose.control.value);
    const params: Block["params"] = block?.params ?? [];
    const extra = Object.keys(values).filter((key) => !params.some((p) => p.name === key));
    valueFields = [
      ...params.map((p) =>
        field({
          path: `${path}.values.${p.name}`,
          label: `${label}: ${p.label}`,
          type: p.type === "text" ? "textarea" : "text",
          rows: 3,
          value: values[p.name] ?? "",
          hint: `{{${p.name}}}, ${p.type}${p.required ? ", required" : ""}. May refer to the contract as {{name}}.`,
        }),
      ),
      ...extra.map((key) => field({ path: `${path}.values.${key}`, label: `${label}: ${key}`, value: values[key], hint: "Not a parameter of this block." })),
    ];
    host.replaceChildren(...valueFields.map((f) => f.wrap));
  };
  const readValues = (): Values => {
    const out: Values = {};
    for (const f of valueFields) {
      const text = String(readField(f));
      if (text !== "") out[f.spec.path.slice(`${path}.values.`.length)] = text;
    }
    return out;
  };
  choose.control.addEventListener("change", () => {
    drawValues(readValues());
    changed(host);
  });
  drawValues(value.values ?? {});
  return {
    element: h("div", {}, choose.wrap, host),
    read: () => ({ block_id: choose.control.value, values: readValues() }),
    fields: () => [choose, ...valueFields],
  };
}

function stackEditor(blocks: readonly EnabledBlock[], stack: BlockReference[]): Editor<BlockReference[]> {
  const name = (ref: BlockReference) => blocks.find((b) => b.id === ref.block_id)?.name ?? "";
  return withJsonView<BlockReference[]>({
    path: "blocks",
    label: "Blocks",
    value: stack,
    accepts: isList,
    make: (value) =>
      listEditor<BlockReference>({
        path: "blocks",
        item: "block",
        items: value,
        max: 100,
        blank: () => ({ block_id: blocks[0]?.id ?? "", values: {} }),
        describe: name,
        row: (ref, path, label) => stackRow(blocks, ref, path, label),
      }),
  });
}

/** Global values (`values`: name → text), merged into every block's values. */
function globalValuesEditor(values: Values): Editor<Values> {
  type Pair = { key: string; value: string };
  return withJsonView<Values>({
    path: "values",
    label: "Global values",
    value: values,
    accepts: isValues,
    make: (start) => {
      const list = listEditor<Pair>({
        path: "values",
        item: "global value",
        items: Object.entries(start).map(([key, value]) => ({ key, value })),
        blank: () => ({ key: "", value: "" }),
        row: (pair, path, label) => {
          const key = field({ path: `${path}.key`, label: `${label}: name`, value: pair.key });
          const value = field({ path: `values.${pair.key}`, label: `${label}: value`, value: pair.value });
          return {
            element: h("div", {}, key.wrap, value.wrap),
            read: () => ({ key: key.control.value.trim(), value: value.control.value }),
            // The API names a bad value by its key (`values.support_email`).
            fields: () => {
              value.spec.path = `values.${key.control.value.trim()}`;
              return [key, value];
            },
          };
        },
      });
      return {
        ...list,
        read: () =>
          Object.fromEntries(
            list
              .read()
              .filter((p) => p.key !== "")
              .map((p) => [p.key, p.value]),
          ),
      };
    },
  });
}

type TemplateBody = {
  name: string;
  subject: string;
  status: Template["status"];
  from: Template["from"];
  blocks: BlockReference[];
  params: TemplateParam[];
  values: Values;
};

function templateEditor(
  blocks: readonly EnabledBlock[],
  t: Omit<TemplateBody, "blocks"> & { blocks: BlockReference[] | null },
  admin: boolean,
  statuses: readonly string[],
) {
  const parts = {
    name: fieldEditor<string>({ path: "name", label: "Name", value: t.name, required: true }),
    subject: fieldEditor<string>({ path: "subject", label: "Subject", value: t.subject, required: true, hint: "May contain {{placeholder}}." }),
    status: fieldEditor<Template["status"]>({
      path: "status",
      label: "Status",
      type: "select",
      options: statuses.map((value) => ({ value, label: say("templateStatus", value) })),
      value: t.status,
    }),
    from: senderEditor({ path: "from", legend: "Sender", value: t.from, hint: "Empty: the customer's default sender for the kind." }),
    blocks: inFieldset("Blocks", stackEditor(blocks, t.blocks ?? []), "The stack, top to bottom; the footer comes from the frame."),
    values: inFieldset("Global values", globalValuesEditor(t.values), "Merged into and overriding every block's values."),
    ...(admin ? { params: inFieldset("Parameter contract", contractEditor(t.params), "Every send must give each required parameter a non-empty value.") } : {}),
  };
  // A builder template has no contract: its body leaves `params` out (the API answers 422 to `params` there).
  return objectEditor(parts as { [K in keyof TemplateBody]: Editor<TemplateBody[K]> });
}

/** The template list with previews, then a form that creates an admin template. */
async function templatesCard(id: string, blocks: readonly EnabledBlock[]): Promise<HTMLElement> {
  const templates = await get<Template[]>(`customers/${id}/mail/templates`);
  // The preview frame stays hidden until a template is drawn in it: no empty box.
  const preview = h("iframe", { class: "preview", title: "Template preview", sandbox: "", hidden: true });
  const previewState = h("p", { role: "status", class: "hint" }, templates.length > 0 ? "Choose “Preview” on a template to see it here." : "");
  const showPreview = async (t: Template) => {
    previewState.textContent = `Rendering ${t.name}…`;
    try {
      const rendered = await send<TemplatePreview>("POST", `customers/${id}/mail/templates/${t.id}/preview`, {});
      preview.srcdoc = rendered.html;
      preview.hidden = false;
      previewState.textContent = `Preview of ${t.name} (subject: ${rendered.subject}), with the contract's example values.`;
    } catch (error) {
      previewState.textContent = `Preview failed: ${error instanceof Error ? error.message : String(error)}`;
    }
  };
  const kind = fieldEditor<Template["kind"]>({ path: "kind", label: "Kind", type: "select", options: ["transactional", "newsletter"], value: "transactional" });
  const editor = templateEditor(blocks, { name: "", subject: "", status: "active", from: null, blocks: [], params: [], values: {} }, true, ["active", "draft"]);
  return card(
    "Templates",
    table(
      ["Name", "Kind", "Origin", "Status", "Version", ""],
      templates.map((t) => [
        h("a", { href: `#/customers/${id}/mail/templates/${t.id}` }, t.name),
        say("messageKind", t.kind),
        t.origin === "admin" ? "Operator" : "Customer",
        say("templateStatus", t.status),
        String(t.version),
        h("button", { type: "button", class: "secondary", "data-read": "", onClick: () => void showPreview(t) }, `Preview ${t.name}`),
      ]),
    ),
    previewState,
    preview,
    editorForm({
      title: "Create an admin template",
      submit: "Create template",
      guard: true,
      editor: objectEditor({ kind, template: editor }),
      onSubmit: async (value) => {
        const t = await send<Template>("POST", `customers/${id}/mail/templates`, { kind: value.kind, ...value.template });
        location.hash = `#/customers/${id}/mail/templates/${t.id}`;
        return `Created ${t.name}.`;
      },
    }),
  );
}

function enabledBlocksCard(id: string, library: readonly Block[], enabled: readonly EnabledBlock[]): HTMLElement {
  const on = new Set(enabled.map((b) => b.id));
  const outcomeBox = outcome();
  return card(
    "Enabled blocks",
    h("p", { class: "hint" }, "The library blocks this customer's templates (and its builder) may stack."),
    table(
      ["Block", "Library state", "Enabled for this customer"],
      library.map((b) => [
        b.name,
        b.active ? "Active" : "Inactive",
        membershipBox({
          label: `Enable ${b.name}`,
          checked: on.has(b.id),
          path: `customers/${id}/mail/blocks/${b.id}`,
          result: outcomeBox,
          said: (enabled) => `${b.name} ${enabled ? "enabled" : "disabled"}.`,
        }),
      ]),
    ),
    outcomeBox.element,
  );
}

/** The templates page: the customer's templates and the blocks enabled for it. */
export async function templatesCards(id: string): Promise<Promise<HTMLElement>[]> {
  const [library, enabled] = await Promise.all([get<Block[]>("mail/blocks"), get<EnabledBlock[]>(`customers/${id}/mail/blocks`)]);
  return [templatesCard(id, enabled), Promise.resolve(enabledBlocksCard(id, library, enabled))];
}

/** One template: its stack, contract, sender and global values in a form (`#/customers/<id>/mail/templates/<template>`). */
export async function templateCards(id: string, templateId: string): Promise<Promise<HTMLElement>[]> {
  const [t, enabled] = await Promise.all([get<Template>(`customers/${id}/mail/templates/${templateId}`), get<EnabledBlock[]>(`customers/${id}/mail/blocks`)]);
  const admin = t.origin === "admin";
  const editor = templateEditor(enabled, t, admin, templateStatuses);
  const initial = JSON.stringify(editor.read());
  const before = JSON.parse(initial) as Record<string, unknown>;
  return [
    Promise.resolve(
      card(
        `Template: ${t.name}`,
        h("p", {}, h("a", { href: `#/customers/${id}/mail/templates` }, "← Templates")),
        h(
          "p",
          { class: "hint" },
          `${say("messageKind", t.kind)}, made by ${t.origin === "admin" ? "an operator" : "the customer"}, version ${t.version}.${admin ? "" : " A builder template has no parameter contract."}`,
        ),
        editorForm({
          editor,
          submit: "Save template",
          guard: true,
          onSubmit: async (value) => {
            // Only the parts that changed: an unchanged stack is not re-checked against blocks disabled since.
            const changes = Object.fromEntries(Object.entries(value).filter(([key, v]) => JSON.stringify(v) !== JSON.stringify(before[key])));
            if (Object.keys(changes).length === 0) return "Nothing changed.";
            const saved = await send<Template>("PATCH", `customers/${id}/mail/templates/${templateId}`, changes);
            Object.assign(before, JSON.parse(JSON.stringify(changes)));
            return `Saved as version ${saved.version}.`;
          },
        }),
      ),
    ),
  ];
}
