import { z } from "@hono/zod-openapi";
import { TemplateDraft } from "../../../ads";
import { CustomerIdParam } from "../../customers/schema";

export const tags = ["Ads activity"];

export const DraftPreviewRequest = z
  .object({
    template: z.record(z.string(), z.unknown()).openapi({
      description:
        "The draft: `type`, `params`, `layouts` (all three ratios) and `highlight`, as in `CreateAdminAdTemplate` (name and description may be sent and are ignored).",
    }),
    values: z
      .record(z.string(), z.string().max(10_000))
      .default({})
      .openapi({ description: "Values per parameter name; missing ones use the parameter's example.", example: { headline: "Winter [[Sale]]" } }),
  })
  .openapi("AdTemplateDraftPreviewRequest");

/** Checked under `template` so that `details` paths name the field as sent. */
export const DraftBody = z.object({ template: TemplateDraft });

export const DraftPreview = z
  .object({
    images: z
      .object({
        "1:1": z.string().openapi({ description: "1:1 (1080×1080 scaled to 360×360), `data:image/jpeg;base64,…`.", example: "data:image/jpeg;base64,/9j/…" }),
        "4:5": z.string().openapi({ description: "4:5 (1080×1350 scaled to 360×450), `data:image/jpeg;base64,…`.", example: "data:image/jpeg;base64,/9j/…" }),
        "9:16": z.string().openapi({ description: "9:16 (1080×1920 scaled to 360×640), `data:image/jpeg;base64,…`.", example: "data:image/jpeg;base64,/9j/…" }),
      })
      .openapi({
        description: "Per ratio a `data:image/jpeg;base64,…` URL, 360 px wide.",
        example: { "1:1": "data:image/jpeg;base64,/9j/…", "4:5": "data:image/jpeg;base64,/9j/…", "9:16": "data:image/jpeg;base64,/9j/…" },
      }),
  })
  .openapi("AdTemplateDraftPreview");

export const TemplateParams = CustomerIdParam.extend({
  template_id: z.uuid().openapi({ param: { name: "template_id", in: "path" }, description: "Template id.", example: "6b1f0c3e-2d4a-4e5b-9c6d-7e8f9a0b1c2d" }),
});
