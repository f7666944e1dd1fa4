import { z } from "@hono/zod-openapi";
import { defaultDesignTokens, designTokensSchema, type DesignTokenName } from "../../../mail";

/** Every token documented from the render schema itself, so the docs cannot drift from what renders. */
const MailDesignTokens = z
  .object(
    Object.fromEntries(
      Object.entries(designTokensSchema.shape).map(([key, schema]) => [
        key,
        z.string().openapi({ description: String(schema.meta()?.description ?? key), example: defaultDesignTokens[key as keyof typeof defaultDesignTokens] }),
      ]),
    ),
  )
  .openapi("MailDesignTokens", { description: "Complete resolved design tokens: the overrides over the defaults. All strings; sizes in px." });

export const MailDesignRules = z
  .object({
    overrides: z
      .record(z.string(), z.string())
      .openapi({ description: "The customer's own values (a subset of the token keys); empty when none.", example: { color_primary: "#e11d48" } }),
    tokens: MailDesignTokens,
    version: z.number().int().openapi({ description: "0 while the customer has no rules of its own; bumped by every PUT (tiles follow it).", example: 1 }),
  })
  .openapi("MailDesignRules");

export const PutMailDesignRules = z
  .object({
    overrides: z.record(z.string(), z.string()).openapi({
      description:
        "The complete set of overrides (replaces the previous one); any subset of the token keys. Keys left out use the defaults; `{}` resets to the defaults.",
      example: { color_primary: "#e11d48", button_radius: "0px" },
    }),
  })
  .strict()
  .openapi("PutMailDesignRules");

/*
 * The spec names sixteen token keys and says further groups (status colours, components) exist without
 * naming them; these are our names. A key missing from the lists still gets documented under "Other".
 */
const namedGroups: [title: string, keys: DesignTokenName[]][] = [
  [
    "Base tokens (the spec's keys)",
    [
      "color_background",
      "color_container",
      "color_text",
      "color_heading",
      "color_primary",
      "color_on_primary",
      "color_link",
      "color_footer_bg",
      "color_footer_text",
      "font_heading",
      "font_body",
      "font_size_base",
      "font_size_h1",
      "space_section",
      "container_width",
      "button_radius",
    ],
  ],
  ["Status colours (notices in transactional mails: order confirmed, payment failed…)", ["color_success", "color_warning", "color_danger", "color_info"]],
  ["Typography", ["color_text_muted", "font_size_h2", "font_size_small", "line_height_base", "heading_letter_spacing", "heading_font_weight"]],
  ["Components (gutters, buttons, dividers, images)", ["space_gutter", "button_padding", "divider_color", "divider_width", "image_radius"]],
];

const allKeys = Object.keys(designTokensSchema.shape) as DesignTokenName[];
const grouped = new Set(namedGroups.flatMap(([, keys]) => keys));
const tokenGroups = [...namedGroups, ["Other", allKeys.filter((key) => !grouped.has(key))] as [string, DesignTokenName[]]].filter(
  ([, keys]) => keys.length > 0,
);

function tokenLine(key: DesignTokenName): string {
  return `- \`${key}\`: ${String(designTokensSchema.shape[key].meta()?.description ?? "")} Default \`${defaultDesignTokens[key]}\`.`;
}

/** The token reference in the route descriptions: every group, every key, its meaning and default. */
export const designTokenReference = [
  "Value formats: colours are hex (`#rgb` or `#rrggbb`); sizes are px within a range per token (e.g. `font_size_base` 10–24px); fonts are font stacks with single quotes only; `heading_font_weight` is `normal`, `bold` or `100`–`900`; `button_padding` is one to four px values.",
  ...tokenGroups.map(([title, keys]) => `\n**${title}**\n${keys.map(tokenLine).join("\n")}`),
].join("\n");

export const tags = ["Mail design rules"];
