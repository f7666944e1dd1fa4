import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { AdsDeps } from "../../deps";
import { renderCreative } from "../../templates/service";
import { getVideoRender } from "../../templates/video-render";
import { idParam, openapiWithAlias, type AdsRouter } from "../shared";
import { RenderedCreative, RenderTemplate, VideoRender, VideoRenderStarted } from "../../templates/customer-schema";
import { json } from "../../../core/json";

export function registerRenderTemplate(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "post",
    path: "/v1/templates/render",
    operationId: "renderAdTemplate",
    tags: ["Templates"],
    summary: "Render a template into a creative draft",
    description:
      "Renders an active template assigned to this account in 1:1 (1080×1080), 4:5 (1080×1350) and 9:16 (1080×1920), uploads the three images to the ad account and stores a creative draft (type IMAGE) holding them; its `id` is the `creative_id` of POST /v1/ads, which builds one placement-customised creative (1:1 default, 4:5 feed, 9:16 stories and reels). No `platform_creative_id` yet. In text values `[[word]]` highlights the word where the parameter has `supports_highlight`; elsewhere the brackets show as typed. Problems answer 422 naming the field (`params.<name>`): unknown parameter, a required one missing, text shorter or longer than `min_chars`/`max_chars` (visible characters), text too long for its box even at the layout's smallest size (it is never cut off), a colour that is not `#rrggbb`, an image URL that is not https, not public, unreachable, not a JPG/PNG/WebP by content or over 30 MB. A template that is not active or not assigned → 422 on `template`. A video template answers 202 `{ id, type: VIDEO, status: PROCESSING }`: a queued job composes the layout onto the background video (the template's video parameter: an https MP4/MOV of at most 100 MB) in the three formats, hands them to the ad account as videos, and GET /v1/templates/render/{id} shows PROCESSING → READY or FAILED with a reason (a bad video is a FAILED render, not a 422, as it is fetched by the job). Incomplete onboarding → 422 `details.missing`. With an `Idempotency-Key` a repeat gives the same creative and uploads nothing again.",
    request: { body: { required: true, content: json(RenderTemplate) } },
    responses: {
      200: { description: "The rendered creative draft (image templates).", content: json(envelope(RenderedCreative)) },
      202: { description: "The video render started (video templates).", content: json(envelope(VideoRenderStarted)) },
      ...errorResponses("ads", [400, 401, 402, 403, 409, 422, 429, 500]),
    },
  });
  openapiWithAlias(router, route, async (c) => {
    const rendered = await renderCreative(deps, c.get("principal").customerId, c.req.valid("json"));
    if (rendered.type === "VIDEO") return c.json({ data: rendered, request_id: c.get("requestId") }, 202);
    return c.json({ data: rendered, request_id: c.get("requestId") }, 200);
  });
}

export function registerGetVideoRender(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "read", {
    method: "get",
    path: "/v1/templates/render/{id}",
    operationId: "getVideoRender",
    tags: ["Templates"],
    summary: "Status of a video render",
    description:
      "PROCESSING until the job has composed and handed over the three formats, then READY (with `video_id`, `output_url` and all `formats`) or FAILED with `reason`. Another account's id → 404. Reporting scope suffices.",
    request: { params: idParam("render") },
    responses: { 200: { description: "The render.", content: json(envelope(VideoRender)) }, ...errorResponses("ads", [401, 402, 404, 422, 429, 500]) },
  });
  openapiWithAlias(router, route, async (c) => {
    const render = await getVideoRender(deps, c.get("principal").customerId, c.req.valid("param").id);
    return c.json({ data: render, request_id: c.get("requestId") }, 200);
  });
}
