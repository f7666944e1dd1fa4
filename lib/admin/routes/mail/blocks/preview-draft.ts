import { adminRoute } from "../../../access";
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, CoreDeps } from "../../../../core/context";
import { envelope, errorResponses } from "../../../../core/openapi";
import { previewDraftBlock } from "../../../previews";
import { requireCustomer } from "../../../customers";
import { RenderError } from "../../../../mail";
import { json } from "../../../../core/json";
import { CreateMailBlock } from "../../../mail/blocks/schema";

const BlockDraftPreviewRequest = z
  .object({
    mjml: CreateMailBlock.shape.mjml,
    params: CreateMailBlock.shape.params,
    customer_id: z.uuid().optional().openapi({
      description: "Render in this customer's design rules and brand; default: the default design and brand.",
      example: "3f0e8a52-6f1e-4c1d-9a43-0d2f1b7c5e11",
    }),
  })
  .strict()
  .openapi("BlockDraftPreviewRequest");

const BlockDraftPreview = z
  .object({
    html: z.string().nullable().openapi({
      description: "A complete HTML document for an iframe `srcdoc`; null when the draft cannot render (see `errors`).",
      example: "<!doctype html><html>…</html>",
    }),
    errors: z.array(RenderError).openapi({ description: "MJML findings and placeholder problems; empty when the draft is clean." }),
  })
  .openapi("BlockDraftPreview");

/** The console's live preview of a block being edited: nothing is stored. */
export function registerMailBlockPreviewRoute(router: OpenAPIHono<AppEnv>, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "support",
      {
        method: "post",
        path: "/v1/mail/blocks/preview",
        operationId: "previewMailBlockDraft",
        tags: ["Mail blocks"],
        summary: "Preview a block draft as a tile",
        description:
          "Renders unsaved MJML with its parameters' example values exactly as a customer's tile (`GET /mail/v1/blocks/{id}/tile`) is rendered: the same pipeline, without frame or footer. Stores nothing; meant for a live preview while editing. A draft that cannot render answers 200 with `html: null` and its findings in `errors` (a preview shows problems rather than failing); a body outside the block schema answers 422, an unknown `customer_id` 404.",
        request: { body: { required: true, content: json(BlockDraftPreviewRequest) } },
        responses: {
          200: { description: "The tile of the draft.", content: json(envelope(BlockDraftPreview)) },
          ...errorResponses("admin", [400, 401, 404, 422]),
        },
      },
      { reads: true },
    ),
    async (c) => {
      const body = c.req.valid("json");
      const customer = body.customer_id ? await requireCustomer(deps.db, body.customer_id) : null;
      const tile = await previewDraftBlock(deps.db, customer, { mjml: body.mjml, params: body.params });
      return c.json({ data: { html: tile.html, errors: tile.errors }, request_id: c.get("requestId") }, 200);
    },
  );
}
