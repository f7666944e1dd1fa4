import { z } from "zod";
import { RenderValidationError } from "./errors";
import { fontWeights } from "../../db/schema/index";

/*
 * Design tokens: the customer's appearance as resolved render values, all strings, sizes in px.
 * Block MJML reads them as `{{token.<key>}}` (resolved before MJML compiles, so MJML can compute with
 * widths and paddings); `designHead` applies them as MJML defaults (mj-attributes, mj-style).
 * Every value is validated so it can stand in a double-quoted attribute or a CSS declaration as is.
 */

const hexColor = z.string().regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, "Must be a hex colour such as #1a2b3c.");

function pixels(min: number, max: number) {
  return z
    .string()
    .regex(/^-?\d+(?:\.\d+)?px$/, "Must be a pixel size such as 16px.")
    .refine((value) => {
      const size = Number.parseFloat(value);
      return size >= min && size <= max;
    }, `Must be between ${min}px and ${max}px.`);
}

/** CSS box shorthand: one to four non-negative px values (`12px 24px`). */
const pixelBox = z.string().regex(/^\d+(?:\.\d+)?px(?: \d+(?:\.\d+)?px){0,3}$/, "Must be one to four pixel sizes such as 12px 24px.");

/** A font stack; quotes only as single quotes so the value fits a double-quoted attribute. */
const fontStack = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9 ,'-]+$/, "Must be a font stack such as 'Helvetica Neue', Arial, sans-serif.");

const fontWeight = z.enum(fontWeights);

/** A token's schema with its description; the example is also the default (see `defaultDesignTokens`). */
function token<T extends z.ZodType>(schema: T, description: string, defaultValue: string) {
  return schema.meta({ description, example: defaultValue });
}

export const designTokensSchema = z.strictObject({
  // The spec's keys.
  color_background: token(hexColor, "Page background around the mail container.", "#f4f5f7"),
  color_container: token(hexColor, "Background of the content container.", "#ffffff"),
  color_text: token(hexColor, "Body text colour.", "#1f2933"),
  color_heading: token(hexColor, "Heading colour.", "#111827"),
  color_primary: token(hexColor, "Brand colour: buttons and accents.", "#2563eb"),
  color_on_primary: token(hexColor, "Text on the primary colour (button labels).", "#ffffff"),
  color_link: token(hexColor, "Inline link colour.", "#2563eb"),
  color_footer_bg: token(hexColor, "Footer background.", "#f4f5f7"),
  color_footer_text: token(hexColor, "Footer text and links.", "#6b7280"),
  font_heading: token(fontStack, "Font stack of headings.", "Helvetica, Arial, sans-serif"),
  font_body: token(fontStack, "Font stack of body text.", "Helvetica, Arial, sans-serif"),
  font_size_base: token(pixels(10, 24), "Body text size.", "16px"),
  font_size_h1: token(pixels(16, 48), "Main heading size.", "28px"),
  space_section: token(pixels(0, 80), "Vertical space between blocks.", "24px"),
  container_width: token(pixels(320, 800), "Width of the content container.", "600px"),
  button_radius: token(pixels(0, 40), "Corner radius of buttons.", "6px"),
  // Status colours: notices in transactional mails (order confirmed, payment failed…).
  color_success: token(hexColor, "Status colour: success.", "#15803d"),
  color_warning: token(hexColor, "Status colour: warning.", "#b45309"),
  color_danger: token(hexColor, "Status colour: error or danger.", "#b91c1c"),
  color_info: token(hexColor, "Status colour: information.", "#0369a1"),
  // Typography.
  color_text_muted: token(hexColor, "Secondary text: captions, subtitles.", "#6b7280"),
  font_size_h2: token(pixels(14, 40), "Sub-heading size.", "20px"),
  font_size_small: token(pixels(9, 18), "Small print: captions, footer.", "13px"),
  line_height_base: token(pixels(12, 40), "Line height of body text.", "24px"),
  heading_letter_spacing: token(pixels(-4, 8), "Letter spacing of headings.", "-0.2px"),
  heading_font_weight: token(fontWeight, "Font weight of headings.", "700"),
  // Components.
  space_gutter: token(pixels(0, 60), "Horizontal padding between the container edge and content.", "32px"),
  button_padding: token(pixelBox, "Inner padding of buttons (CSS shorthand).", "12px 24px"),
  divider_color: token(hexColor, "Colour of divider lines.", "#e5e7eb"),
  divider_width: token(pixels(1, 8), "Thickness of divider lines.", "1px"),
  image_radius: token(pixels(0, 40), "Corner radius of images.", "4px"),
});

export type DesignTokens = z.infer<typeof designTokensSchema>;
export type DesignTokenName = keyof DesignTokens;

/**
 * Returned when a customer has no design rules of its own. Each token's documented example is its
 * default, so the two cannot drift apart; parsing proves the set complete and valid.
 */
export const defaultDesignTokens: Readonly<DesignTokens> = Object.freeze(
  designTokensSchema.parse(Object.fromEntries(Object.entries(designTokensSchema.shape).map(([key, schema]) => [key, schema.meta()?.example]))),
);

/** A customer's design rules: any subset of the tokens; unknown keys are rejected. */
const designTokenOverridesSchema = designTokensSchema.partial();

/**
 * Defaults overlaid with the customer's overrides. Invalid overrides raise `RenderValidationError` with
 * one detail per key (`<pathPrefix>.<key>`), so the admin sees every bad value at once.
 */
export function resolveDesignTokens(overrides: unknown, pathPrefix = "design_tokens"): DesignTokens {
  if (overrides === null || overrides === undefined) return { ...defaultDesignTokens };
  const parsed = designTokenOverridesSchema.safeParse(overrides);
  if (!parsed.success) {
    throw new RenderValidationError(
      parsed.error.issues.flatMap((issue) => {
        const keys = issue.code === "unrecognized_keys" ? issue.keys.map((key) => [key]) : [issue.path.map(String)];
        const message = issue.code === "unrecognized_keys" ? "Unknown design token." : issue.message;
        return keys.map((key) => ({ path: [pathPrefix, ...key].join("."), message }));
      }),
    );
  }
  // A key present with `undefined` keeps its default.
  const given = Object.fromEntries(Object.entries(parsed.data).filter(([, value]) => value !== undefined));
  return Object.assign({ ...defaultDesignTokens }, given);
}

/** Token-driven defaults for the MJML head, so blocks look right without repeating attributes. */
export function designHead(tokens: DesignTokens): string {
  const t = tokens;
  const heading = `font-family:${t.font_heading};font-weight:${t.heading_font_weight};color:${t.color_heading};letter-spacing:${t.heading_letter_spacing};margin:0 0 12px`;
  return [
    "<mj-attributes>",
    `<mj-all font-family="${t.font_body}" />`,
    `<mj-section background-color="${t.color_container}" padding="${t.space_section} 0 0" />`,
    `<mj-column padding="0" />`,
    `<mj-text color="${t.color_text}" font-size="${t.font_size_base}" line-height="${t.line_height_base}" padding="0 ${t.space_gutter}" />`,
    `<mj-button background-color="${t.color_primary}" color="${t.color_on_primary}" border-radius="${t.button_radius}" inner-padding="${t.button_padding}" font-size="${t.font_size_base}" font-weight="600" padding="0 ${t.space_gutter}" />`,
    `<mj-image border-radius="${t.image_radius}" padding="0 ${t.space_gutter}" />`,
    `<mj-divider border-color="${t.divider_color}" border-width="${t.divider_width}" padding="0 ${t.space_gutter}" />`,
    "</mj-attributes>",
    "<mj-style>",
    `a { color: ${t.color_link}; }`,
    `h1 { ${heading};font-size:${t.font_size_h1};line-height:1.25; }`,
    `h2 { ${heading};font-size:${t.font_size_h2};line-height:1.3; }`,
    `p { margin: 0 0 12px; }`,
    `.muted { color: ${t.color_text_muted}; font-size: ${t.font_size_small}; }`,
    "</mj-style>",
  ].join("\n");
}

/** Attributes of `<mj-body>`: page background and container width. */
export function designBodyAttributes(tokens: DesignTokens): string {
  return `background-color="${tokens.color_background}" width="${tokens.container_width}"`;
}
