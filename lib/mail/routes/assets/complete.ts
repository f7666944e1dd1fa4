import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { completeAsset } from "../../assets/service";
import type { AssetRouteDeps } from "./deps";
import { AssetIdParam, PublishedAsset } from "../../assets/schema";
import { json } from "../../../core/json";

export function registerCompleteAsset(router: OpenAPIHono<AppEnv>, deps: AssetRouteDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "post",
    path: "/v1/assets/{id}/complete",
    operationId: "completeAsset",
    tags: ["Assets"],
    summary: "Optimise and publish an uploaded image (step 3 of 3)",
    description: `Decodes the uploaded file (JPEG, PNG, WebP, or the first frame of a GIF; the bytes decide, not the announced type or file name), applies its orientation, scales it to at most 1360 px wide (never enlarges), strips all metadata (EXIF including GPS, XMP, IPTC, ICC: colours are converted to sRGB first) and writes a JPEG, or a PNG where real transparency matters, under 400 KB by stepping quality, then palette, then size. The result is published at a public, immutable, content-addressed URL (\`…/assets/<sha256>.jpg|png\`, cached for a year): identical images share one URL.

No body. Answers:
- 200 \`{ url, width, height }\`; calling it again returns the same answer (also for a concurrent call).
- 409 (\`details\` entry \`reason\`: \`not_uploaded\`) when nothing has been uploaded yet: PUT the file first.
- 404 for an asset announced more than 24 hours ago and never completed: such assets are deleted with their upload.
- 422 when the file is not a usable image (not one of the four formats, damaged or truncated, more than 50 megapixels or 16,384 px on a side, which guards against decompression bombs, or impossible to fit under 400 KB). The asset becomes \`failed\` and keeps answering the same 422; announce the file again.

The URL goes into image parameters of templates, blocks and sends. In the embedded mode it starts with \`PUBLIC_BASE_URL\` (default \`http://localhost:3000\`, so it is plain http there) and is served by this deployment under \`/files/\`; in production it is a Vercel Blob https URL.`,
    request: { params: AssetIdParam },
    responses: {
      200: { description: "The published image.", content: json(envelope(PublishedAsset)) },
      ...errorResponses("mail", [400, 401, 403, 404, 409, 422, 429, 500]),
    },
  });
  router.openapi(route, async (c) => {
    const published = await completeAsset(deps, c.get("principal").customerId, c.req.valid("param").id);
    return c.json({ data: published, request_id: c.get("requestId") }, 200);
  });
}
