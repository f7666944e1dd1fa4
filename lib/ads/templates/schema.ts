import { z } from "@hono/zod-openapi";
import { SALE_BANNER } from "./demo";

/**
 * The template resource as the operator reads it (`/v1/ad-templates` of the admin API) and a customer's
 * assignment of one: owned by the ads service, whose template service returns them.
 */
export const templateId = "6b1f0c3e-2d4a-4e5b-9c6d-7e8f9a0b1c2d";

export const LAYOUT_RULES =
  'A layout is an element tree per ratio (`1:1` 1080×1080, `4:5` 1080×1350, `9:16` 1080×1920): `{ type: "box", style, children }`, `{ type: "text", param | text, style, min_font_size?, max_lines? }` (a text with a pixel `width` and `min_font_size` shrinks to fit its `height`/`max_lines` and is refused past the minimum), `{ type: "image", param, style }` (needs `width` and `height`). Styles are a fixed list of flex properties (width, height, padding*, margin*, gap, flexDirection, justifyContent, alignItems, flexGrow, flexShrink, flexWrap, position, top/right/bottom/left, backgroundColor, color, borderRadius, borderWidth, borderColor, opacity, fontFamily `Inter`, fontSize, fontWeight 400/700/800, lineHeight, letterSpacing, textAlign, textTransform, objectFit); a colour is `#rrggbb`, `transparent` or `{ "param": "<colour parameter>" }`. `highlight` styles `[[word]]` in text parameters with `supports_highlight`. Checked on save: unknown keys, unknown or mistyped parameter references, a root of the wrong size, a missing highlight style → 422 with the path in `details`.';

export const AdminAdTemplate = z
  .object({
    id: z.uuid().openapi({ description: "Template id.", example: templateId }),
    name: z.string().openapi({ description: "Name, 1–100 characters.", example: SALE_BANNER.name }),
    description: z.string().openapi({ description: "Description, at most 500 characters.", example: SALE_BANNER.description }),
    type: z.enum(["image", "video"]).openapi({ description: "`image` or `video` (video rendering is not available yet).", example: "image" }),
    status: z.enum(["active", "inactive"]).openapi({ description: "Inactive templates are hidden from customers (their GET answers 404).", example: "active" }),
    revision: z.int().openapi({ description: "Grows with every change; preview URLs change with it.", example: 1 }),
    params: z.array(z.record(z.string(), z.unknown())).openapi({
      description: "Parameters `{ name, type, required, label, description, min_chars, max_chars, example, supports_highlight }`.",
      example: SALE_BANNER.params as never,
    }),
    layouts: z.record(z.string(), z.unknown()).openapi({ description: LAYOUT_RULES, example: SALE_BANNER.layouts as never }),
    highlight: z
      .record(z.string(), z.unknown())
      .nullable()
      .openapi({ description: "`{ backgroundColor, color?, paddingX? }`, or null.", example: SALE_BANNER.highlight as never }),
    created_at: z.string().openapi({ description: "Creation time (ISO 8601).", example: "2026-03-01T10:00:00.000Z" }),
    updated_at: z.string().openapi({ description: "Last change (ISO 8601).", example: "2026-03-01T10:00:00.000Z" }),
  })
  .openapi("AdminAdTemplate");

export const Assignment = z
  .object({
    template_id: z.uuid().openapi({ description: "Template id.", example: templateId }),
    customer_id: z.uuid().openapi({ description: "Customer id.", example: "3f0e8a52-6f1e-4c1d-9a43-0d2f1b7c5e11" }),
    preview_values: z
      .record(z.string(), z.string())
      .openapi({ description: "Preview values for this customer; `{}` = the examples.", example: { headline: "Winter [[Sale]]" } }),
    assigned_at: z.string().openapi({ description: "When the template was assigned (ISO 8601).", example: "2026-03-01T10:00:00.000Z" }),
  })
  .openapi("AdTemplateAssignment");
