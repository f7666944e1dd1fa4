import { z } from "@hono/zod-openapi";
import { adTemplateParamTypes, videoRenderStatuses } from "../../db/schema/index";

const templateId = "6b1f0c3e-2d4a-4e5b-9c6d-7e8f9a0b1c2d";
const previewUrl = (ratio: string) =>
  `https://ads.example.com/ads/v1/templates/${templateId}/preview.png?c=3f0e8a52-6f1e-4c1d-9a43-0d2f1b7c5e11&k=Qm9vLXByZXZpZXctdG9rZW4tZXhhbXBsZQ&ratio=${ratio}`;

const RatioUrls = z
  .object({
    "1:1": z.url().openapi({ description: "1080×1080.", example: previewUrl("1:1") }),
    "4:5": z.url().openapi({ description: "1080×1350.", example: previewUrl("4:5") }),
    "9:16": z.url().openapi({ description: "1080×1920.", example: previewUrl("9:16") }),
  })
  .openapi("RatioUrls");

export const TemplateListItem = z
  .object({
    id: z.uuid().openapi({ description: "Template id (UUID).", example: templateId }),
    name: z.string().openapi({ description: "Template name.", example: "Sale banner" }),
    description: z
      .string()
      .openapi({ description: "What the template shows.", example: "Headline with a highlighted word, price, call to action and an optional product image." }),
    type: z
      .enum(["image", "video"])
      .openapi({ description: "`image`: POST /v1/templates/render answers 200; `video`: 202 and a render to poll.", example: "image" }),
    has_params: z.boolean().openapi({ description: "Whether the template takes parameters.", example: true }),
    preview_urls: RatioUrls.openapi({
      description: "Public preview images (no key needed; signed, stable, never expire), rendered with the stored preview values or the examples.",
    }),
  })
  .openapi("TemplateListItem");

const TemplateParam = z
  .object({
    name: z.string().openapi({ description: "Key in `params` of POST /v1/templates/render.", example: "headline" }),
    type: z
      .enum(adTemplateParamTypes)
      .openapi({ description: "`text`: a string; `color`: `#rrggbb`; `image`: an https URL of a JPG, PNG or WebP (at most 30 MB).", example: "text" }),
    required: z.boolean().openapi({ description: "Whether a render needs a value.", example: true }),
    label: z.string().openapi({ description: "Label for a form field.", example: "Headline" }),
    description: z.string().openapi({ description: "Help text for a form field.", example: "Mark a word with [[…]] to highlight it." }),
    min_chars: z.int().nullable().openapi({ description: "Minimum visible characters (highlight brackets not counted), or null.", example: 3 }),
    max_chars: z.int().nullable().openapi({ description: "Maximum visible characters, or null.", example: 60 }),
    example: z.string().nullable().openapi({ description: "Used for previews when no value is stored.", example: "Spring [[Sale]] on all shoes" }),
    supports_highlight: z.boolean().openapi({ description: "Whether `[[word]]` highlights the word; elsewhere brackets show as typed.", example: true }),
  })
  .openapi("TemplateParam");

export const TemplateDetail = TemplateListItem.extend({ params: z.array(TemplateParam).openapi({ description: "The parameter schema." }) }).openapi(
  "TemplateDetail",
);

export const TemplatePreview = z
  .object({
    template: z.uuid().openapi({ description: "Template id.", example: templateId }),
    params: z.record(z.string(), z.string()).openapi({
      description: "The stored preview values; `{}` when none (the previews then use the examples).",
      example: { headline: "Winter [[Sale]]", brand_color: "#1d4ed8" },
    }),
    preview_urls: RatioUrls,
  })
  .openapi("TemplatePreview");

export const RenderTemplate = z
  .strictObject({
    template: z.uuid().openapi({ description: "An active template assigned to this account.", example: templateId }),
    params: z.record(z.string(), z.string().max(2000)).openapi({
      description: "Values by parameter name (see GET /v1/templates/{id}).",
      example: { headline: "Spring [[Sale]] on all shoes", price: "€ 49.90", brand_color: "#0f766e" },
    }),
    name: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .openapi({ description: "Creative name, 1–200 characters; default the template's name.", example: "Spring sale" }),
  })
  .openapi("RenderTemplate");

export const RenderedCreative = z
  .object({
    id: z.uuid().openapi({ description: "The creative draft's id: the `creative_id` of POST /v1/ads.", example: "3c2b1a09-8f7e-4d6c-9b5a-4f3e2d1c0b9a" }),
    template: z.uuid().openapi({ description: "Template id.", example: templateId }),
    type: z.literal("IMAGE").openapi({ description: "Always `IMAGE` for image templates.", example: "IMAGE" }),
    formats: z
      .object({
        "1:1": z.url().openapi({ description: "1080×1080.", example: "https://ads.example.com/files/creatives/2f1c9a7e4b3d.jpg" }),
        "4:5": z.url().openapi({ description: "1080×1350.", example: "https://ads.example.com/files/creatives/7a9b5c1d8e2f.jpg" }),
        "9:16": z.url().openapi({ description: "1080×1920.", example: "https://ads.example.com/files/creatives/c3d4e6f0a1b9.jpg" }),
      })
      .openapi({ description: "Permanent, content-addressed URLs of the three formats (JPEG, sRGB)." }),
  })
  .openapi("RenderedCreative");

export const VideoRenderStarted = z
  .object({
    id: z
      .uuid()
      .openapi({ description: "The render's id, also the `creative_id` of POST /v1/ads once READY.", example: "3c2b1a09-8f7e-4d6c-9b5a-4f3e2d1c0b9a" }),
    template: z.uuid().openapi({ description: "Template id.", example: templateId }),
    type: z.literal("VIDEO").openapi({ description: "Always `VIDEO` for video templates.", example: "VIDEO" }),
    status: z.literal("PROCESSING").openapi({ description: "Poll GET /v1/templates/render/{id}.", example: "PROCESSING" }),
  })
  .openapi("VideoRenderStarted");

const videoFormat = (ratio: string) =>
  z.object({
    video_id: z.string().openapi({ description: "The platform's video id.", example: "120210000000000123" }),
    output_url: z.url().openapi({ description: `Permanent URL of the ${ratio} MP4.`, example: "https://ads.example.com/files/creatives/9e8d7c6b5a41.mp4" }),
  });

export const VideoRender = z
  .object({
    id: z.uuid().openapi({ description: "The render's (and creative's) id.", example: "3c2b1a09-8f7e-4d6c-9b5a-4f3e2d1c0b9a" }),
    template: z.uuid().openapi({ description: "Template id.", example: templateId }),
    status: z.enum(videoRenderStatuses).openapi({ description: "`READY`: the creative can be used for an ad; `FAILED`: see `reason`.", example: "READY" }),
    reason: z.string().nullable().openapi({ description: "Why it failed (the parameter it concerns first), else null.", example: null }),
    video_id: z.string().nullable().openapi({ description: "The 1:1 video's platform id once READY.", example: "120210000000000123" }),
    output_url: z.url().nullable().openapi({ description: "The 1:1 MP4 once READY.", example: "https://ads.example.com/files/creatives/9e8d7c6b5a41.mp4" }),
    formats: z
      .object({
        "1:1": videoFormat("1:1").openapi({ description: "1080×1080, the default for every placement not named below." }),
        "4:5": videoFormat("4:5").openapi({ description: "1080×1350, for the Facebook and Instagram feeds." }),
        "9:16": videoFormat("9:16").openapi({ description: "1080×1920, for stories and reels." }),
      })
      .nullable()
      .openapi({ description: "All three formats once READY (H.264 + AAC MP4, 1080×1080/1350/1920)." }),
    platform_creative_id: z.string().nullable().openapi({ description: "The platform's creative id once an ad was built from it.", example: null }),
  })
  .openapi("VideoRender");
