import { createRoute, z } from "@hono/zod-openapi";
import { NotFoundError } from "../../../core/errors";
import { errorResponses } from "../../../core/openapi";
import { declaredRoute } from "../../../core/route-declaration";
import type { AdsDeps } from "../../deps";
import { previewImageUrl } from "../../templates/service";
import { openapiWithAlias, type AdsRouter } from "../shared";

export function registerGetTemplatePreviewImage(router: AdsRouter, deps: AdsDeps): void {
  const route = createRoute({
    method: "get",
    path: "/v1/templates/{id}/preview.png",
    operationId: "getAdTemplatePreviewImage",
    tags: ["Templates"],
    summary: "Open a template's preview image (public)",
    description:
      "No API key: the URL itself is the credential. `c` is the account, `k` its signed read token (from `preview_urls`; stable, never expires). A wrong or missing `c` or `k`, an unknown `ratio`, or a template no longer assigned or active answers 404. Answers 302 to the permanent image URL (content-addressed: rendered on the first request with the stored preview values, or the examples, and reused until the template or the values change, which changes the address). The target is a JPEG despite the name.",
    security: [],
    request: {
      params: z.object({
        id: z.string().openapi({ param: { name: "id", in: "path" }, description: "Template id (UUID).", example: "6b1f0c3e-2d4a-4e5b-9c6d-7e8f9a0b1c2d" }),
      }),
      query: z.object({
        c: z.string().optional().openapi({ description: "Account id from the preview URL.", example: "3f0e8a52-6f1e-4c1d-9a43-0d2f1b7c5e11" }),
        k: z.string().optional().openapi({ description: "Signed read token from the preview URL.", example: "Qm9vLXByZXZpZXctdG9rZW4tZXhhbXBsZQ" }),
        ratio: z.string().optional().openapi({ description: "`1:1` (default), `4:5` or `9:16`.", example: "1:1" }),
      }),
    },
    responses: {
      302: {
        description: "Redirect to the permanent image URL.",
        headers: {
          Location: {
            description: "Permanent, content-addressed URL of the JPEG.",
            required: true,
            schema: { type: "string", format: "uri", example: "https://ads.example.com/files/previews/4e5f6a7b8c9d.jpg" },
          },
        },
      },
      ...errorResponses("ads", [404, 422, 500]),
    },
  });
  // Public on every method (a wrong one is 405, not 401): the URL is the credential.
  for (const path of ["/v1/templates/:id/preview.png", "/v1/platform/templates/:id/preview.png"]) router.use(path, declaredRoute({ public: true }));
  openapiWithAlias(router, route, async (c) => {
    const query = c.req.valid("query");
    const id = c.req.valid("param").id;
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
    const url =
      uuid.test(id) && query.c && uuid.test(query.c)
        ? await previewImageUrl(deps, { templateId: id.toLowerCase(), customerId: query.c.toLowerCase(), token: query.k, ratio: query.ratio ?? "1:1" })
        : null;
    if (!url) throw new NotFoundError("Preview");
    c.header("Cache-Control", "no-cache");
    return c.redirect(url, 302);
  });
}
