import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { ZodError } from "zod";
import type { AdsDeps } from "../../ads/deps";
import { SALE_BANNER } from "../../ads/templates/demo";
import {
  assignAdTemplate,
  createAdTemplate,
  getAdTemplate,
  listAdTemplates,
  listAssignments,
  setPreviewValues,
  TemplateInput,
  unassignAdTemplate,
  updateAdTemplate,
} from "../../ads/templates/service";
import { validationFailure } from "../../core/app";
import type { AppEnv } from "../../core/context";
import { envelope, errorResponses } from "../../core/openapi";
import { requireCustomer } from "./ads-account";

const security = [{ adminToken: [] }];
const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });
const tags = ["Ads templates"];
const templateId = "6b1f0c3e-2d4a-4e5b-9c6d-7e8f9a0b1c2d";

const LAYOUT_RULES =
  "A layout is an element tree per ratio (`1:1` 1080×1080, `4:5` 1080×1350, `9:16` 1080×1920): `{ type: \"box\", style, children }`, `{ type: \"text\", param | text, style, min_font_size?, max_lines? }` (a text with a pixel `width` and `min_font_size` shrinks to fit its `height`/`max_lines` and is refused past the minimum), `{ type: \"image\", param, style }` (needs `width` and `height`). Styles are a fixed list of flex properties (width, height, padding*, margin*, gap, flexDirection, justifyContent, alignItems, flexGrow, flexShrink, flexWrap, position, top/right/bottom/left, backgroundColor, color, borderRadius, borderWidth, borderColor, opacity, fontFamily `Inter`, fontSize, fontWeight 400/700/800, lineHeight, letterSpacing, textAlign, textTransform, objectFit); a colour is `#rrggbb`, `transparent` or `{ \"param\": \"<colour parameter>\" }`. `highlight` styles `[[word]]` in text parameters with `supports_highlight`. Checked on save: unknown keys, unknown or mistyped parameter references, a root of the wrong size, a missing highlight style → 422 with the path in `details`.";

const AdminAdTemplate = z
  .object({
    id: z.uuid().openapi({ description: "Template id.", example: templateId }),
    name: z.string().openapi({ description: "Name, 1–100 characters.", example: SALE_BANNER.name }),
    description: z.string().openapi({ description: "Description, at most 500 characters.", example: SALE_BANNER.description }),
    type: z.enum(["image", "video"]).openapi({ description: "`image` or `video` (video rendering is not available yet).", example: "image" }),
    status: z.enum(["active", "inactive"]).openapi({ description: "Inactive templates are hidden from customers (their GET answers 404).", example: "active" }),
    revision: z.int().openapi({ description: "Grows with every change; preview URLs change with it.", example: 1 }),
    params: z.array(z.record(z.string(), z.unknown())).openapi({ description: "Parameters `{ name, type, required, label, description, min_chars, max_chars, example, supports_highlight }`.", example: SALE_BANNER.params as never }),
    layouts: z.record(z.string(), z.unknown()).openapi({ description: LAYOUT_RULES, example: SALE_BANNER.layouts as never }),
    highlight: z.record(z.string(), z.unknown()).nullable().openapi({ description: "`{ backgroundColor, color?, paddingX? }`, or null.", example: SALE_BANNER.highlight as never }),
    created_at: z.string().openapi({ description: "Creation time (ISO 8601).", example: "2026-03-01T10:00:00.000Z" }),
    updated_at: z.string().openapi({ description: "Last change (ISO 8601).", example: "2026-03-01T10:00:00.000Z" }),
  })
  .openapi("AdminAdTemplate");

const templateBody = (partial: boolean) =>
  z
    .record(z.string(), z.unknown())
    .openapi(partial ? "UpdateAdminAdTemplate" : "CreateAdminAdTemplate", {
      description: `${partial ? "Any of" : "All of"} \`name\` (1–100), \`description\` (≤ 500), \`type\` (\`image\`|\`video\`), \`params\` (≤ 30), \`layouts\` (all three ratios), \`highlight\`${partial ? ", `status` (`active`|`inactive`)" : ""}. ${LAYOUT_RULES}`,
      example: partial ? { status: "inactive" } : { name: SALE_BANNER.name, description: SALE_BANNER.description, type: "image", params: SALE_BANNER.params, layouts: SALE_BANNER.layouts, highlight: SALE_BANNER.highlight },
    });

const Assignment = z
  .object({
    template_id: z.uuid().openapi({ description: "Template id.", example: templateId }),
    customer_id: z.uuid().openapi({ description: "Customer id.", example: "3f0e8a52-6f1e-4c1d-9a43-0d2f1b7c5e11" }),
    preview_values: z.record(z.string(), z.string()).openapi({ description: "Preview values for this customer; `{}` = the examples.", example: { headline: "Winter [[Sale]]" } }),
    assigned_at: z.string().openapi({ description: "When the template was assigned (ISO 8601).", example: "2026-03-01T10:00:00.000Z" }),
  })
  .openapi("AdTemplateAssignment");

const TemplateIdParam = z.object({ template_id: z.uuid().openapi({ param: { name: "template_id", in: "path" }, description: "Template id.", example: templateId }) });
const AssignmentParams = z.object({
  id: z.uuid().openapi({ param: { name: "id", in: "path" }, description: "Customer id.", example: "3f0e8a52-6f1e-4c1d-9a43-0d2f1b7c5e11" }),
  template_id: z.uuid().openapi({ param: { name: "template_id", in: "path" }, description: "Template id.", example: templateId }),
});

function parse<T>(schema: { safeParse(input: unknown): { success: true; data: T } | { success: false; error: ZodError } }, input: unknown): T {
  const result = schema.safeParse(input);
  if (!result.success) throw validationFailure(result.error, input, "body");
  return result.data;
}

const UpdateInput = TemplateInput.partial().extend({ status: z.enum(["active", "inactive"]).optional() });

export function registerAdsTemplateRoutes(router: OpenAPIHono<AppEnv>, deps: AdsDeps): void {
  router.openapi(
    createRoute({
      method: "post",
      path: "/v1/ads/templates",
      operationId: "createLibraryAdTemplate",
      tags,
      summary: "Create an ad template",
      description: `A template for every customer it is assigned to. ${LAYOUT_RULES}`,
      security,
      request: { body: { required: true, content: json(templateBody(false)) } },
      responses: { 201: { description: "The template.", content: json(envelope(AdminAdTemplate)) }, ...errorResponses("admin", [400, 401, 422]) },
    }),
    async (c) => c.json({ data: await createAdTemplate(deps, parse(TemplateInput, c.req.valid("json"))), request_id: c.get("requestId") }, 201),
  );

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/ads/templates",
      operationId: "listLibraryAdTemplates",
      tags,
      summary: "List ad templates",
      description: "All templates, active and inactive, by name.",
      security,
      responses: { 200: { description: "The templates.", content: json(envelope(z.array(AdminAdTemplate))) }, ...errorResponses("admin", [401]) },
    }),
    async (c) => c.json({ data: await listAdTemplates(deps.db), request_id: c.get("requestId") }, 200),
  );

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/ads/templates/{template_id}",
      operationId: "getLibraryAdTemplate",
      tags,
      summary: "Get an ad template",
      security,
      request: { params: TemplateIdParam },
      responses: { 200: { description: "The template.", content: json(envelope(AdminAdTemplate)) }, ...errorResponses("admin", [401, 404, 422]) },
    }),
    async (c) => c.json({ data: await getAdTemplate(deps.db, c.req.valid("param").template_id), request_id: c.get("requestId") }, 200),
  );

  router.openapi(
    createRoute({
      method: "patch",
      path: "/v1/ads/templates/{template_id}",
      operationId: "updateLibraryAdTemplate",
      tags,
      summary: "Change or deactivate an ad template",
      description: "Partial; the result is checked as a whole (422 with paths) and gets a new `revision`, so preview URLs render again. `status: inactive` hides the template from every customer (404 there) without removing assignments.",
      security,
      request: { params: TemplateIdParam, body: { required: true, content: json(templateBody(true)) } },
      responses: { 200: { description: "The template.", content: json(envelope(AdminAdTemplate)) }, ...errorResponses("admin", [400, 401, 404, 422]) },
    }),
    async (c) => c.json({ data: await updateAdTemplate(deps, c.req.valid("param").template_id, parse(UpdateInput, c.req.valid("json"))), request_id: c.get("requestId") }, 200),
  );

  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/customers/{id}/ads/templates",
      operationId: "listCustomerAdTemplates",
      tags,
      summary: "List a customer's template assignments",
      security,
      request: { params: AssignmentParams.pick({ id: true }) },
      responses: { 200: { description: "The assignments.", content: json(envelope(z.array(Assignment))) }, ...errorResponses("admin", [401, 404, 422]) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      await requireCustomer(deps, id);
      return c.json({ data: await listAssignments(deps.db, id), request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "put",
      path: "/v1/customers/{id}/ads/templates/{template_id}",
      operationId: "assignCustomerAdTemplate",
      tags,
      summary: "Assign a template to a customer",
      description: "Idempotent: assigning again keeps the stored preview values. Unknown customer or template → 404.",
      security,
      request: { params: AssignmentParams },
      responses: { 200: { description: "The assignment.", content: json(envelope(Assignment)) }, ...errorResponses("admin", [401, 404, 422]) },
    }),
    async (c) => {
      const { id, template_id } = c.req.valid("param");
      await requireCustomer(deps, id);
      return c.json({ data: await assignAdTemplate(deps, id, template_id), request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "delete",
      path: "/v1/customers/{id}/ads/templates/{template_id}",
      operationId: "unassignCustomerAdTemplate",
      tags,
      summary: "Remove a template from a customer",
      description: "The customer no longer sees it (404); creatives already rendered stay. Not assigned → 404.",
      security,
      request: { params: AssignmentParams },
      responses: { 204: { description: "Removed." }, ...errorResponses("admin", [401, 404, 422]) },
    }),
    async (c) => {
      const { id, template_id } = c.req.valid("param");
      await requireCustomer(deps, id);
      await unassignAdTemplate(deps.db, id, template_id);
      return c.body(null, 204);
    },
  );

  router.openapi(
    createRoute({
      method: "put",
      path: "/v1/customers/{id}/ads/templates/{template_id}/preview-values",
      operationId: "setCustomerAdTemplatePreviewValues",
      tags,
      summary: "Store a customer's preview values for a template",
      description: "Replaces the values the customer's previews use (`{}` = the examples). Checked like render values (422 naming `params.<name>`); image URLs are fetched when a preview renders.",
      security,
      request: {
        params: AssignmentParams,
        body: { required: true, content: json(z.object({ values: z.record(z.string(), z.string().max(2000)).openapi({ description: "Values by parameter name; `{}` = the examples.", example: { headline: "Winter [[Sale]]", brand_color: "#1d4ed8" } }) }).openapi("AdTemplatePreviewValues")) },
      },
      responses: { 200: { description: "The assignment.", content: json(envelope(Assignment)) }, ...errorResponses("admin", [400, 401, 404, 422]) },
    }),
    async (c) => {
      const { id, template_id } = c.req.valid("param");
      await requireCustomer(deps, id);
      const body = c.req.valid("json");
      return c.json({ data: await setPreviewValues(deps, id, template_id, body.values), request_id: c.get("requestId") }, 200);
    },
  );
}
