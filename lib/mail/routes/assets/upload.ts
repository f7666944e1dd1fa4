import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { cors } from "hono/cors";
import { closeAfterAnswer } from "../../../core/body-limit";
import type { AppEnv } from "../../../core/context";
import { envelope, errorResponses } from "../../../core/openapi";
import { declaredRoute } from "../../../core/route-declaration";
import { receiveUpload } from "../../assets/upload";
import { ACCEPTED_UPLOAD_CONTENT_TYPES, UPLOAD_TOKEN_PARAM } from "../../assets/upload-signature";
import type { AssetRouteDeps } from "./deps";
import { AssetUploadReceipt } from "../../assets/schema";
import { json } from "../../../core/json";

/**
 * CORS for browsers that PUT the file themselves (the point of a signed URL: the file never passes the
 * server that holds the API key). Any origin: the URL is the credential, sent without cookies, so the
 * origin adds nothing to check. Only what `upload.headers` contains may be sent; the preflight is cached
 * briefly because the URL is short-lived anyway.
 */
const UPLOAD_CORS = {
  origin: "*",
  allowMethods: ["PUT"],
  allowHeaders: ["Content-Type"],
  exposeHeaders: ["X-Request-Id"],
  maxAge: 600,
};

const RawImage = z.string().openapi({ format: "binary", description: "The raw image file.", example: "<binary>" });
const rawImageContent = Object.fromEntries(ACCEPTED_UPLOAD_CONTENT_TYPES.map((type) => [type, { schema: RawImage }]));

export function registerUploadAsset(router: OpenAPIHono<AppEnv>, deps: AssetRouteDeps): void {
  // Not a `serviceRoute`: there is no API key (so no principal, scope or idempotency); the signed token in
  // the URL is the whole authorisation, and single use is enforced by the asset's state.
  const route = createRoute({
    method: "put",
    path: "/v1/uploads/{id}",
    operationId: "uploadAssetFile",
    tags: ["Assets"],
    summary: "Upload an asset's file to its signed URL (step 2 of 3, embedded mode)",
    description: `The address \`upload.url\` from \`POST /v1/assets\` points here in the embedded mode (\`npm start\`); in production it points at Vercel Blob, and this endpoint answers 404. Send the raw file as the body with \`upload.headers\` (its \`content-type\`) and **no** API key; use the URL unchanged.

The URL is signed (HMAC-SHA256 over asset, path, content type, size cap and expiry), valid for 15 minutes and for one file. Refusals store nothing: a wrong or tampered signature or an expired URL → 403 (\`details\` entry \`reason\`: \`bad_signature\` or \`expired\`); a content type other than the announced one → 400 (\`content_type_mismatch\`); more than 20 MiB → 413 (\`too_large\`, checked from \`Content-Length\` and while reading; the rest is not read and the connection is closed); an empty body → 400; a second upload to the same URL → 409 (\`upload_already_used\`), also after \`complete\`; a URL whose asset was deleted → 404. A refused upload does not use the URL up.

**From a browser.** The endpoint answers CORS for any origin (the signed URL is the credential; no cookies, no API key): a preflight \`OPTIONS\` gets 204 allowing \`PUT\` with \`Content-Type\` (the only header in \`upload.headers\`), cached for 10 minutes, and every answer to the PUT, refusals included, carries \`Access-Control-Allow-Origin: *\` and exposes \`X-Request-Id\`. So a portal's page can send the file straight here with \`fetch(upload.url, { method: "PUT", headers: upload.headers, body: file })\`. The authenticated endpoints answer no CORS: API keys belong on servers. In production the same call goes to Vercel Blob, whose client uploads are made for browsers (\`upload.headers\` are the headers \`@vercel/blob/client\` sends from a page).`,
    security: [],
    request: {
      params: z.object({
        id: z
          .string()
          .openapi({ param: { name: "id", in: "path" }, description: "Asset id, as in `upload.url`.", example: "3f6c2a9e-8b1d-4e7a-9c55-2d0f1b7e4a10" }),
      }),
      query: z.object({
        [UPLOAD_TOKEN_PARAM]: z
          .string()
          .openapi({ description: "Signed upload grant, as in `upload.url`.", example: "eyJ2IjoxLCJhc3NldCI6IjNmNmMyYTllIn0.kX2r…" }),
      }),
      body: { required: true, content: rawImageContent },
    },
    responses: {
      200: { description: "The file is stored; next, complete the asset.", content: json(envelope(AssetUploadReceipt)) },
      ...errorResponses("mail", [400, 403, 404, 409, 500]),
    },
  });
  // Public on every method (the preflight included: the signed URL is the credential) and raw-bodied: the
  // route streams the file into the store and caps it at its own limit.
  router.use("/v1/uploads/:id", declaredRoute({ public: true, rawBody: true }));
  router.use("/v1/uploads/:id", cors(UPLOAD_CORS));
  // A refusal leaves the body unread (it is checked before a byte is taken): the connection is closed
  // after the answer rather than kept to read the rest.
  router.use("/v1/uploads/:id", async (c, next) => {
    await next();
    if (c.res.status >= 400) closeAfterAnswer(c);
  });
  router.openapi(route, async (c) => {
    const length = c.req.header("content-length");
    const receipt = await receiveUpload(deps, {
      assetId: c.req.valid("param").id,
      token: c.req.valid("query")[UPLOAD_TOKEN_PARAM],
      contentType: c.req.header("content-type") ?? null,
      contentLength: length === undefined || !/^\d+$/.test(length) ? null : Number(length),
      body: c.req.raw.body,
    });
    return c.json({ data: receipt, request_id: c.get("requestId") }, 200);
  });
}
