import { get, send } from "./api";
import { card, date, debounce, h } from "./dom";
import { beside, changed, editorForm, emptyIsNull, fieldEditor, objectEditor, withJsonView, type Editor } from "./editors";
import type { AdminComponents as components } from "@mail-ads/client/admin";
import { fontWeights } from "../../db/schema/vocabulary";

// Answers of the admin API, typed from its OpenAPI document (the one source; packages/client/src/types).
type Schemas = components["schemas"];
type DesignRules = Schemas["MailDesignRules"];
type Tokens = Schemas["MailDesignTokens"];
type TokenName = keyof Tokens;
type Frame = Schemas["MailFrame"];
type Brand = Schemas["MailBrand"];

type TokenKind = "colour" | "size" | "box" | "font" | "weight";

/**
 * Every design token with its label and kind, grouped as the form shows them. `Record<TokenName, …>`
 * makes a token added to the API's schema a compile error here until the form has a field for it.
 */
const TOKENS: Record<TokenName, { label: string; kind: TokenKind; group: "Colours" | "Typography" | "Spacing and components" }> = {
  color_primary: { label: "Brand colour (buttons, accents)", kind: "colour", group: "Colours" },
  color_on_primary: { label: "Text on the brand colour", kind: "colour", group: "Colours" },
  color_link: { label: "Links", kind: "colour", group: "Colours" },
  color_text: { label: "Body text", kind: "colour", group: "Colours" },
  color_text_muted: { label: "Secondary text", kind: "colour", group: "Colours" },
  color_heading: { label: "Headings", kind: "colour", group: "Colours" },
  color_background: { label: "Page background", kind: "colour", group: "Colours" },
  color_container: { label: "Content background", kind: "colour", group: "Colours" },
  color_footer_bg: { label: "Footer background", kind: "colour", group: "Colours" },
  color_footer_text: { label: "Footer text", kind: "colour", group: "Colours" },
  color_success: { label: "Status: success", kind: "colour", group: "Colours" },
  color_warning: { label: "Status: warning", kind: "colour", group: "Colours" },
  color_danger: { label: "Status: danger", kind: "colour", group: "Colours" },
  color_info: { label: "Status: information", kind: "colour", group: "Colours" },
  divider_color: { label: "Divider lines", kind: "colour", group: "Colours" },
  font_body: { label: "Body font stack", kind: "font", group: "Typography" },
  font_heading: { label: "Heading font stack", kind: "font", group: "Typography" },
  font_size_base: { label: "Body text size", kind: "size", group: "Typography" },
  line_height_base: { label: "Body line height", kind: "size", group: "Typography" },
  font_size_h1: { label: "Main heading size", kind: "size", group: "Typography" },
  font_size_h2: { label: "Sub-heading size", kind: "size", group: "Typography" },
  font_size_small: { label: "Small print size", kind: "size", group: "Typography" },
  heading_font_weight: { label: "Heading weight", kind: "weight", group: "Typography" },
  heading_letter_spacing: { label: "Heading letter spacing", kind: "size", group: "Typography" },
  container_width: { label: "Content width", kind: "size", group: "Spacing and components" },
  space_section: { label: "Space between blocks", kind: "size", group: "Spacing and components" },
  space_gutter: { label: "Side padding", kind: "size", group: "Spacing and components" },
  button_radius: { label: "Button corner radius", kind: "size", group: "Spacing and components" },
  button_padding: { label: "Button padding", kind: "box", group: "Spacing and components" },
  image_radius: { label: "Image corner radius", kind: "size", group: "Spacing and components" },
  divider_width: { label: "Divider thickness", kind: "size", group: "Spacing and components" },
};
const GROUPS = ["Colours", "Typography", "Spacing and components"] as const;
const WEIGHTS = fontWeights;
const FORMAT: Record<TokenKind, string> = {
  colour: "Hex colour such as #1a2b3c.",
  size: "Pixels such as 16px.",
  box: "One to four pixel sizes such as 12px 24px.",
  font: "A font stack such as 'Helvetica Neue', Arial, sans-serif.",
  weight: "",
};

const sixDigits = (hex: string) => (/^#[0-9a-f]{3}$/i.test(hex) ? `#${[...hex.slice(1)].map((d) => d + d).join("")}` : hex);

/** A token's field; empty means the default (shown as the placeholder). A colour has a picker beside its text. */
function tokenEditor(name: TokenName, override: string | undefined, resolved: string): Editor<string | null> {
  const { label, kind } = TOKENS[name];
  const path = `overrides.${name}`;
  const hint = `${FORMAT[kind]} Empty: the default${override === undefined ? ` (${resolved})` : ""}.`;
  const editor =
    kind === "weight"
      ? fieldEditor(
          { path, label, type: "select", value: override ?? "", options: [{ value: "", label: "Default" }, ...WEIGHTS], hint: "Empty: the default." },
          emptyIsNull,
        )
      : fieldEditor<string | null>({ path, label, value: override ?? "", hint }, (raw) => (String(raw).trim() === "" ? null : String(raw).trim()));
  const [f] = editor.fields();
  if (f && kind !== "weight") f.control.setAttribute("placeholder", resolved);
  if (f && kind === "colour") {
    const picker = h("input", { type: "color", "aria-label": `${label}: colour picker`, value: sixDigits(override ?? resolved) });
    picker.addEventListener("input", () => {
      f.control.value = picker.value;
      changed(f.control);
    });
    f.control.addEventListener("input", () => {
      const typed = sixDigits(f.control.value.trim());
      if (/^#[0-9a-f]{6}$/i.test(typed)) picker.value = typed;
    });
    beside(f, picker);
  }
  return editor;
}

type Overrides = Record<string, string>;

function overridesEditor(rules: DesignRules, overrides: Overrides): Editor<Overrides> {
  const editors = (Object.keys(TOKENS) as TokenName[]).map((name) => ({ name, editor: tokenEditor(name, overrides[name], rules.tokens[name]) }));
  const element = h(
    "div",
    {},
    ...GROUPS.map((group) =>
      h("fieldset", { class: "group tokens" }, h("legend", {}, group), ...editors.filter((e) => TOKENS[e.name].group === group).map((e) => e.editor.element)),
    ),
  );
  return {
    element,
    read: () => {
      const out: Overrides = {};
      for (const { name, editor } of editors) {
        const value = editor.read();
        if (value !== null) out[name] = value;
      }
      return out;
    },
    fields: () => editors.flatMap((e) => e.editor.fields()),
  };
}

/**
 * A sample mail drawn in the browser from the tokens being edited (the saved tokens overlaid with the
 * overrides in the editor), so the effect of a rule shows while typing; saving re-renders tiles server-side.
 */
function designSample(tokens: Record<string, string>, company: string): HTMLElement {
  const t = (key: string, fallback: string) => tokens[key] ?? fallback;
  return h(
    "div",
    { "data-testid": "design-sample", class: "customer-content", style: `background:${t("color_background", "#f4f4f4")};padding:16px;` },
    h(
      "div",
      {
        style: `background:${t("color_container", "#fff")};max-width:${t("container_width", "600px")};margin:0 auto;padding:${t("space_section", "24px")};font-family:${t("font_body", "sans-serif")};font-size:${t("font_size_base", "16px")};line-height:${t("line_height_base", "24px")};color:${t("color_text", "#333")};`,
      },
      h("p", { style: `margin:0 0 8px;font-weight:bold;color:${t("color_text_muted", "#666")};` }, company),
      h(
        "p",
        {
          style: `margin:0 0 8px;font-family:${t("font_heading", "sans-serif")};font-size:${t("font_size_h1", "28px")};color:${t("color_heading", "#111")};font-weight:${t("heading_font_weight", "bold")};letter-spacing:${t("heading_letter_spacing", "0")};`,
        },
        "Sample heading",
      ),
      h("p", {}, "Body text of a newsletter, with ", h("span", { style: `color:${t("color_link", "#0b57d0")};text-decoration:underline;` }, "a link"), "."),
      h(
        "p",
        {},
        h(
          "span",
          {
            style: `display:inline-block;background:${t("color_primary", "#0b57d0")};color:${t("color_on_primary", "#fff")};border-radius:${t("button_radius", "4px")};padding:${t("button_padding", "12px 24px")};`,
          },
          "Button",
        ),
      ),
    ),
    h(
      "div",
      {
        style: `background:${t("color_footer_bg", "#eee")};color:${t("color_footer_text", "#555")};max-width:${t("container_width", "600px")};margin:0 auto;padding:12px;font-size:${t("font_size_small", "12px")};`,
      },
      "Footer · imprint · unsubscribe",
    ),
  );
}

const isOverrides = (value: unknown): value is Overrides =>
  typeof value === "object" && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === "string");

async function designCard(id: string, company: string): Promise<HTMLElement> {
  const rules = await get<DesignRules>(`customers/${id}/mail/design-rules`);
  const overrides = withJsonView<Overrides>({
    path: "overrides",
    label: "Overrides",
    value: rules.overrides,
    make: (value) => overridesEditor(rules, value),
    accepts: isOverrides,
  });
  const sampleBox = h("div", {}, designSample(rules.tokens, company));
  const sampleState = h("p", { class: "hint", role: "status" });
  const defaults = Object.fromEntries(Object.entries(rules.tokens).filter(([key]) => !(key in rules.overrides)));
  const redraw = debounce(250, () => {
    try {
      sampleBox.replaceChildren(designSample({ ...defaults, ...overrides.read() }, company));
      sampleState.textContent = "Sample follows the editor.";
    } catch {
      sampleState.textContent = "The sample waits for valid JSON.";
    }
  });
  const editor = editorForm({
    editor: overrides,
    submit: "Save design rules",
    guard: true,
    onSubmit: async (value) => {
      const saved = await send<DesignRules>("PUT", `customers/${id}/mail/design-rules`, { overrides: value });
      return `Saved as version ${saved.version}.`;
    },
  });
  editor.addEventListener("input", redraw);
  return card(
    "Design rules",
    h("p", { class: "hint" }, `Version ${rules.version}. Empty fields use the defaults; clearing every field resets the design.`),
    h("div", { class: "split" }, editor, h("div", { class: "sticky" }, h("h3", {}, "Live sample"), sampleState, sampleBox)),
  );
}

function brandEditor(brand: Brand): Editor<Brand> {
  return objectEditor<Brand>(
    {
      company_name: fieldEditor<string>({ path: "brand.company_name", label: "Company name", value: brand.company_name, hint: "Logo alt text and footers." }),
      logo_url: fieldEditor(
        {
          path: "brand.logo_url",
          label: "Logo URL",
          value: brand.logo_url ?? "",
          hint: "Absolute http(s) URL, e.g. an asset URL. Empty: the header shows the company name.",
        },
        emptyIsNull,
      ),
      website_url: fieldEditor({ path: "brand.website_url", label: "Website URL", value: brand.website_url ?? "", hint: "Empty: none." }, emptyIsNull),
      address: fieldEditor<string>({ path: "brand.address", label: "Postal address", type: "textarea", rows: 3, value: brand.address }),
      imprint: fieldEditor<string>({ path: "brand.imprint", label: "Imprint", type: "textarea", rows: 3, value: brand.imprint }),
    },
    "Brand",
  );
}

async function frameCard(id: string): Promise<HTMLElement> {
  const frame = await get<Frame>(`customers/${id}/mail/frame`);
  type FrameBody = Omit<Frame, "version" | "updated_at">;
  const editor = objectEditor<FrameBody>({
    brand: brandEditor(frame.brand),
    header_mjml: fieldEditor(
      { path: "header_mjml", label: "Header MJML (empty: none)", type: "textarea", rows: 4, value: frame.header_mjml ?? "", wide: true },
      emptyIsNull,
    ),
    newsletter_footer_mjml: fieldEditor<string>({
      path: "newsletter_footer_mjml",
      label: "Newsletter footer MJML",
      type: "textarea",
      rows: 6,
      value: frame.newsletter_footer_mjml,
      wide: true,
      hint: 'Must link to "{{{ pm:unsubscribe }}}".',
    }),
    transactional_footer_mjml: fieldEditor<string>({
      path: "transactional_footer_mjml",
      label: "Transactional footer MJML",
      type: "textarea",
      rows: 6,
      value: frame.transactional_footer_mjml,
      wide: true,
    }),
  });
  return card(
    "Brand and frame",
    h("p", { class: "hint" }, `Version ${frame.version}, changed ${date(frame.updated_at)}. The brand values, the header and the two footers.`),
    editorForm({
      editor,
      submit: "Save brand and frame",
      guard: true,
      onSubmit: async (value) => {
        const saved = await send<Frame>("PUT", `customers/${id}/mail/frame`, value);
        return `Saved as version ${saved.version}.`;
      },
    }),
  );
}

/** The design page: the tokens (colours, fonts, sizes) with a live sample, then the brand (logo, imprint) and frame. */
export const designCards = (id: string, company: string): Promise<HTMLElement>[] => [designCard(id, company), frameCard(id)];
