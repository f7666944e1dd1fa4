import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { envelope, errorResponses } from "../../../core/openapi";
import { serviceRoute } from "../../../core/route";
import { announceAsset } from "../../assets/service";
import type { AssetRouteDeps } from "./deps";
import { AnnouncedAsset, CreateAsset } from "../../assets/schema";
import { json } from "../../../core/json";

export function registerCreateAsset(router: OpenAPIHono<AppEnv>, deps: AssetRouteDeps): void {
  const route = serviceRoute(deps, "write", {
    method: "post",
    path: "/v1/assets",
    operationId: "createAsset",
    tags: ["Assets"],
    summary: "Announce an image upload (step 1 of 3)",
    description: `Creates a \`pending\` asset and returns where to upload its raw file. Three steps, because one API call accepts at most 4.5 MB:

1. \`POST /v1/assets\` → \`{ id, upload: { url, headers } }\`.
2. \`PUT upload.url\` with the raw bytes and exactly \`upload.headers\`, **without** an API key. In production the file goes straight to Vercel Blob with a client token scoped to this one upload's path, content type and size; in the embedded mode (\`npm start\`) to \`PUT /v1/uploads/{id}\` of this service, signed with HMAC.
3. \`POST /v1/assets/{id}/complete\` optimises and publishes the image.

Accepted: \`image/jpeg\`, \`image/png\`, \`image/webp\`, \`image/gif\` (first frame), up to 20 MiB (\`upload.max_bytes\`). The upload URL is valid for 15 minutes (\`upload.expires_at\`) and for one file; after that, announce again. It may be used from a browser (CORS), so the file need not pass through your server. Complete within 24 hours: an asset still \`pending\` a day after its announcement is deleted with its upload (GET then answers 404). The raw upload lives under a random, unguessable name and is deleted once the asset is completed, failed or deleted. The file name is a label only (422 if it contains slashes or control characters); the type is checked against the bytes at \`complete\`. Idempotent with \`Idempotency-Key\`: a retry returns the same asset and upload URL.`,
    request: { body: { required: true, content: json(CreateAsset) } },
    responses: {
      201: { description: "The pending asset and its signed upload.", content: json(envelope(AnnouncedAsset)) },
      ...errorResponses("mail", [400, 401, 403, 409, 422, 429, 500]),
    },
  });
  router.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const announced = await announceAsset(deps, c.get("principal").customerId, { filename: body.filename, contentType: body.content_type });
    return c.json({ data: announced, request_id: c.get("requestId") }, 201);
  });
}
