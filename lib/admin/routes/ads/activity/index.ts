import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../../core/context";
import type { AdsDeps } from "../../../../ads/deps";
import { previewTemplateDraft, TemplateDraft } from "../../../../ads/templates/draft-preview";
import { validationFailure } from "../../../../core/app";
import { envelope, errorResponses } from "../../../../core/openapi";
import { queryInsights } from "../../../../ads/insights/query";
import { getPlanUsage } from "../../../../ads/plan/service";
import { InsightRow, InsightsQuery, insightsQueryOf } from "../../../../ads/routes/insights/schema";
import { PlanUsage } from "../../../../ads/routes/plan/schema";
import { TemplatePreview } from "../../../../ads/routes/templates/schema";
import { getTemplatePreview } from "../../../../ads/templates/service";
import { requireCustomer } from "../../../customers";
import { json } from "../../../../core/json";
import { security } from "../../shared";
import { CustomerIdParam } from "../../customers/schema";

const tags = ["Ads activity"];

const DraftPreviewRequest = z
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
const DraftBody = z.object({ template: TemplateDraft });

const DraftPreview = z
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

const TemplateParams = CustomerIdParam.extend({
  template_id: z.uuid().openapi({ param: { name: "template_id", in: "path" }, description: "Template id.", example: "6b1f0c3e-2d4a-4e5b-9c6d-7e8f9a0b1c2d" }),
});

/**
 * What a customer sees of its own ads, read by the operator: plan usage, insights and the template previews
 * (the same services and schemas as the ads service's routes); and the live preview of a template draft.
 */
export function registerAdsActivityRoutes(router: OpenAPIHono<AppEnv>, deps: AdsDeps): void {
  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/customers/{id}/ads/plan/usage",
      operationId: "getCustomerAdsPlanUsage",
      tags,
      summary: "A customer's ads plan and usage of the running cycle",
      description:
        "As `GET /ads/v1/plan/usage` for that customer: stage, published ads against the included ads, spend and its projection, fee so far and expected fee (EUR cents).",
      security,
      request: { params: CustomerIdParam },
      responses: { 200: { description: "The usage.", content: json(envelope(PlanUsage)) }, ...errorResponses("admin", [401, 404, 422]) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      return c.json({ data: await getPlanUsage(deps, id), request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/customers/{id}/ads/insights",
      operationId: "getCustomerAdsInsights",
      tags,
      summary: "A customer's insights",
      description:
        "As `GET /ads/v1/insights` for that customer (same query parameters, same rows, from the daily snapshots). An unknown name in `fields` or `breakdowns` answers 422 naming it.",
      security,
      request: { params: CustomerIdParam, query: InsightsQuery },
      responses: { 200: { description: "The rows.", content: json(envelope(z.array(InsightRow))) }, ...errorResponses("admin", [400, 401, 404, 422]) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const query = c.req.valid("query");
      await requireCustomer(deps.db, id);
      const rows = await queryInsights(deps, id, insightsQueryOf(query));
      return c.json({ data: rows, request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/customers/{id}/ads/templates/{template_id}/preview",
      operationId: "getCustomerAdTemplatePreview",
      tags,
      summary: "A customer's preview of an assigned template",
      description:
        "As `GET /ads/v1/templates/{id}/preview` for that customer: the stored preview values and the three `preview.png` URLs (1:1, 4:5, 9:16). The URLs are stable; each answers `no-cache` with a 302 to the image of the template's current revision and values (rendered on first request). A template not assigned to the customer, or inactive, answers 404.",
      security,
      request: { params: TemplateParams },
      responses: { 200: { description: "The preview.", content: json(envelope(TemplatePreview)) }, ...errorResponses("admin", [401, 404, 422]) },
    }),
    async (c) => {
      const { id, template_id } = c.req.valid("param");
      await requireCustomer(deps.db, id);
      return c.json({ data: await getTemplatePreview(deps, id, template_id), request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "post",
      path: "/v1/ads/templates/preview",
      operationId: "previewAdTemplateDraft",
      tags: ["Ads templates"],
      summary: "Preview a template draft in the three ratios",
      description:
        "Draws an unsaved template (`type`, `params`, `layouts`, `highlight`, as in `POST /v1/ads/templates`) with `values` (each parameter's example where a value is missing) in 1:1, 4:5 and 9:16 with the engine that renders creatives, and answers the three images scaled to 360 px wide as JPEG data URLs. Stores nothing; meant for a live preview while editing a layout. Layout problems answer 422 with `details` paths under `template.`, value problems under `params.<name>`; image values are fetched like render values (https, public hosts).",
      security,
      request: { body: { required: true, content: json(DraftPreviewRequest) } },
      responses: { 200: { description: "The three images.", content: json(envelope(DraftPreview)) }, ...errorResponses("admin", [400, 401, 422]) },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const { name: _name, description: _description, ...drawable } = body.template;
      const parsed = DraftBody.safeParse({ template: drawable });
      if (!parsed.success) throw validationFailure(parsed.error, body, "template");
      return c.json({ data: { images: await previewTemplateDraft(deps, parsed.data.template, body.values) }, request_id: c.get("requestId") }, 200);
    },
  );
}
