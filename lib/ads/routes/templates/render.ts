import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { AdsDeps } from "../../deps";
import { renderCreative } from "../../templates/service";
import { json, openapiWithAlias, type AdsRouter } from "../shared";
import { RenderedCreative, RenderTemplate } from "./schema";

export function registerRenderTemplate(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "post",
    path: "/v1/templates/render",
    tags: ["Templates"],
    summary: "Render a template into a creative draft",
    description:
      "Renders an active template assigned to this account in 1:1 (1080×1080), 4:5 (1080×1350) and 9:16 (1080×1920), uploads the three images to the ad account and stores a creative draft (type IMAGE) holding them; its `id` is the `creative_id` of POST /v1/ads, which builds one placement-customised creative (1:1 default, 4:5 feed, 9:16 stories and reels). No `platform_creative_id` yet. In text values `[[word]]` highlights the word where the parameter has `supports_highlight`; elsewhere the brackets show as typed. Problems answer 422 naming the field (`params.<name>`): unknown parameter, a required one missing, text shorter or longer than `min_chars`/`max_chars` (visible characters), text too long for its box even at the layout's smallest size (it is never cut off), a colour that is not `#rrggbb`, an image URL that is not https, not public, unreachable, not a JPG/PNG/WebP by content or over 30 MB. A template that is not active or not assigned → 422 on `template`. Video templates are not available yet (422). Incomplete onboarding → 422 `details.missing`. With an `Idempotency-Key` a repeat gives the same creative and uploads nothing again.",
    request: { body: { required: true, content: json(RenderTemplate) } },
    responses: { 200: { description: "The rendered creative draft.", content: json(envelope(RenderedCreative)) }, ...errorResponses("ads", [400, 401, 402, 403, 409, 422, 429, 500]) },
  });
  openapiWithAlias(router, route, async (c) => {
    const rendered = await renderCreative(deps, c.get("principal").customerId, c.req.valid("json"));
    return c.json({ data: rendered, request_id: c.get("requestId") }, 200);
  });
}
