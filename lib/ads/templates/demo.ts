import type { CreativeRatio } from "../platform/placement-creative";
import type { HighlightStyle, LayoutNode, TemplateParam } from "./layout";

/*
 * The demo templates the `Demo` customer gets on first start, and the examples of the admin API: they
 * show the features (highlight, a brand colour, an optional product image, text that shrinks to fit).
 */

export type TemplateSeed = {
  name: string;
  description: string;
  type: "image" | "video";
  params: TemplateParam[];
  layouts: Record<CreativeRatio, LayoutNode>;
  highlight: HighlightStyle | null;
};

const param = (p: Partial<TemplateParam> & Pick<TemplateParam, "name" | "type" | "label">): TemplateParam => ({
  required: false,
  description: "",
  min_chars: null,
  max_chars: null,
  example: null,
  supports_highlight: false,
  ...p,
});

function saleLayout(height: number, imageSize: number, headlineSize: number): LayoutNode {
  return {
    type: "box",
    style: { width: 1080, height, flexDirection: "column", justifyContent: "space-between", backgroundColor: { param: "brand_color" }, padding: 80 },
    children: [
      {
        type: "text",
        param: "headline",
        style: { width: 920, height: headlineSize * 3 * 1.1, fontSize: headlineSize, fontWeight: 800, lineHeight: 1.1, color: "#ffffff" },
        min_font_size: 56,
      },
      {
        type: "box",
        style: { justifyContent: "center" },
        children: [{ type: "image", param: "product_image", style: { width: imageSize, height: imageSize, borderRadius: 24, objectFit: "cover" } }],
      },
      {
        type: "box",
        style: { flexDirection: "row", justifyContent: "space-between", alignItems: "center" },
        children: [
          { type: "text", param: "price", style: { fontSize: 88, fontWeight: 800, color: "#ffffff" } },
          {
            type: "text",
            param: "cta",
            style: {
              fontSize: 40,
              fontWeight: 700,
              color: "#111827",
              backgroundColor: "#ffffff",
              paddingLeft: 36,
              paddingRight: 36,
              paddingTop: 20,
              paddingBottom: 20,
              borderRadius: 999,
            },
          },
        ],
      },
    ],
  };
}

export const SALE_BANNER: TemplateSeed = {
  name: "Sale banner",
  description: "Headline with a highlighted word, price, call to action and an optional product image on the brand colour.",
  type: "image",
  params: [
    param({
      name: "headline",
      type: "text",
      label: "Headline",
      required: true,
      min_chars: 3,
      max_chars: 60,
      example: "Spring [[Sale]] on all shoes",
      supports_highlight: true,
      description: "Mark a word with [[…]] to highlight it.",
    }),
    param({ name: "price", type: "text", label: "Price", required: true, max_chars: 16, example: "€ 49.90" }),
    param({ name: "cta", type: "text", label: "Button text", max_chars: 20, example: "Shop now" }),
    param({ name: "brand_color", type: "color", label: "Brand colour", required: true, example: "#0f766e" }),
    param({ name: "product_image", type: "image", label: "Product image", description: "Optional; JPG, PNG or WebP over https." }),
  ],
  layouts: { "1:1": saleLayout(1080, 360, 96), "4:5": saleLayout(1350, 520, 104), "9:16": saleLayout(1920, 760, 112) },
  highlight: { backgroundColor: "#facc15", color: "#111827", paddingX: 12 },
};

function quoteLayout(height: number): LayoutNode {
  return {
    type: "box",
    style: { width: 1080, height, flexDirection: "column", justifyContent: "center", backgroundColor: "#f8fafc", padding: 96, gap: 48 },
    children: [
      { type: "text", text: "“", style: { fontSize: 200, fontWeight: 800, color: { param: "accent_color" }, lineHeight: 0.9 } },
      {
        type: "text",
        param: "quote",
        style: { width: 888, height: Math.round(height * 0.5), fontSize: 72, fontWeight: 700, lineHeight: 1.25, color: "#0f172a" },
        min_font_size: 40,
      },
      { type: "text", param: "author", style: { fontSize: 40, fontWeight: 400, color: "#475569" } },
    ],
  };
}

export const QUOTE_CARD: TemplateSeed = {
  name: "Quote card",
  description: "A customer quote with its author, text only; long quotes shrink to fit.",
  type: "image",
  params: [
    param({
      name: "quote",
      type: "text",
      label: "Quote",
      required: true,
      min_chars: 10,
      max_chars: 220,
      example: "The fastest delivery we have ever had. Ordered on Monday, wearing them on Tuesday.",
    }),
    param({ name: "author", type: "text", label: "Author", required: true, max_chars: 60, example: "— Jana, Berlin" }),
    param({ name: "accent_color", type: "color", label: "Accent colour", example: "#e11d48" }),
  ],
  layouts: { "1:1": quoteLayout(1080), "4:5": quoteLayout(1350), "9:16": quoteLayout(1920) },
  highlight: null,
};

function videoLayout(height: number, headlineSize: number): LayoutNode {
  return {
    type: "box",
    style: { width: 1080, height, flexDirection: "column", justifyContent: "flex-end", padding: 80, gap: 28 },
    children: [
      {
        type: "text",
        param: "headline",
        style: {
          width: 920,
          height: headlineSize * 2 * 1.15 + 48,
          fontSize: headlineSize,
          fontWeight: 800,
          lineHeight: 1.15,
          color: "#ffffff",
          backgroundColor: { param: "brand_color" },
          padding: 24,
          borderRadius: 16,
        },
        min_font_size: 48,
      },
      { type: "text", param: "subline", style: { fontSize: 44, fontWeight: 700, color: "#ffffff" } },
    ],
  };
}

export const VIDEO_PROMO: TemplateSeed = {
  name: "Video promo",
  description: "A headline with a highlighted word and a subline in the brand colour over the customer's background video.",
  type: "video",
  params: [
    param({
      name: "headline",
      type: "text",
      label: "Headline",
      required: true,
      min_chars: 3,
      max_chars: 50,
      example: "New [[season]], new colours",
      supports_highlight: true,
      description: "Mark a word with [[…]] to highlight it.",
    }),
    param({ name: "subline", type: "text", label: "Subline", max_chars: 60, example: "In stores and online from Friday" }),
    param({ name: "brand_color", type: "color", label: "Brand colour", required: true, example: "#e11d48" }),
    param({
      name: "background_video",
      type: "video",
      label: "Background video",
      required: true,
      description: "An MP4 or MOV over https, at most 100 MB; its first 60 seconds are used, scaled and cropped to each format.",
    }),
  ],
  layouts: { "1:1": videoLayout(1080, 80), "4:5": videoLayout(1350, 88), "9:16": videoLayout(1920, 96) },
  highlight: { backgroundColor: "#facc15", color: "#111827", paddingX: 10 },
};

export const DEMO_TEMPLATES: readonly TemplateSeed[] = [SALE_BANNER, QUOTE_CARD, VIDEO_PROMO];
