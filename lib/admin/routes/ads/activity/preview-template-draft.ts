import { adminRoute } from "../../../access";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../../core/context";
import { previewTemplateDraft } from "../../../../ads";
import { validationFailure } from "../../../../core/app";
import { envelope, errorResponses } from "../../../../core/openapi";
import { json } from "../../../../core/json";
import type { AdsDeps } from "../../../../ads";
import { DraftPreviewRequest, DraftBody, DraftPreview } from "../../../ads/activity/schema";

export function registerPreviewAdTemplateDraft(router: OpenAPIHono<AppEnv>, deps: AdsDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "post",
        path: "/v1/ads/templates/preview",
        operationId: "previewAdTemplateDraft",
        tags: ["Ads templates"],
        summary: "Preview a template draft in the three ratios",
        description:
          "Draws an unsaved template (`type`, `params`, `layouts`, `highlight`, as in `POST /v1/ads/templates`) with `values` (each parameter's example where a value is missing) in 1:1, 4:5 and 9:16 with the engine that renders creatives, and answers the three images scaled to 360 px wide as JPEG data URLs. Stores nothing; meant for a live preview while editing a layout. Layout problems answer 422 with `details` paths under `template.`, value problems under `params.<name>`; image values are fetched like render values (https, public hosts).",
        request: { body: { required: true, content: json(DraftPreviewRequest) } },
        responses: { 200: { description: "The three images.", content: json(envelope(DraftPreview)) }, ...errorResponses("admin", [400, 401, 422]) },
      },
      { reads: true },
    ),
    async (c) => {
      const body = c.req.valid("json");
      const { name: _name, description: _description, ...drawable } = body.template;
      const parsed = DraftBody.safeParse({ template: drawable });
      if (!parsed.success) throw validationFailure(parsed.error, body, "template");
      return c.json({ data: { images: await previewTemplateDraft(deps, parsed.data.template, body.values) }, request_id: c.get("requestId") }, 200);
    },
  );
}
