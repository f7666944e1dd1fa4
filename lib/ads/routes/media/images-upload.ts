import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import type { AdsDeps } from "../../deps";
import { uploadImageFromUrl } from "../../media/images";
import { openapiWithAlias, type AdsRouter } from "../shared";
import { CreateMediaImage, MediaImage } from "../../media/schema";
import { json } from "../../../core/json";

export function registerUploadImage(router: AdsRouter, deps: AdsDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "post",
    path: "/v1/media/images",
    operationId: "uploadImage",
    tags: ["Media"],
    summary: "Upload an image by URL",
    description:
      "Fetches the file once through the SSRF-safe client (https only, no redirects, public addresses only, DNS pinned, 30 MB, 30 s), checks the type by its bytes (JPG, PNG, WebP) and the ratio (1:1, 4:5, 9:16, 1.91:1 within ±3 %, EXIF orientation applied), and forwards the bytes unchanged to the ad account. Synchronous. The same file uploaded again answers the same record (the hash is the image's identity). Needs the token and ad account of the onboarding (else 422 `details.missing`).",
    request: { body: { required: true, content: json(CreateMediaImage) } },
    responses: {
      201: { description: "The uploaded image.", content: json(envelope(MediaImage)) },
      ...errorResponses("ads", [400, 401, 402, 403, 409, 422, 429, 500]),
    },
  });
  openapiWithAlias(router, route, async (c) => {
    const image = await uploadImageFromUrl(deps, c.get("principal").customerId, c.req.valid("json").url);
    return c.json({ data: image, request_id: c.get("requestId") }, 201);
  });
}
