import { and, eq, isNull } from "drizzle-orm";
import { readCapped, UploadTooLargeError } from "../../adapters/blob";
import { ApiError, BadRequestError, ConflictError, ForbiddenError, NotFoundError } from "../../core/errors";
import { mailAssets } from "../../db/schema";
import type { AssetDeps } from "./service";
import { MAX_UPLOAD_BYTES, verifyUpload, type UploadRejection } from "./upload-signature";

/** Raw uploads are stored only until `complete` and never served, so no cache may keep them. */
const RAW_UPLOAD_MAX_AGE_SECONDS = 0;

/** What the embedded upload route knows about the incoming PUT. */
export type IncomingUpload = {
  assetId: string;
  token: string;
  contentType: string | null;
  contentLength: number | null;
  body: ReadableStream<Uint8Array> | null;
};

export type UploadReceipt = { id: string; bytes: number };

/**
 * Like S3 and GCS, a bad or expired signature is 403: the token is the credential of this call, and no
 * API key could fix it. A request that merely does not match its valid grant is 400.
 */
function rejectionError(reason: UploadRejection, expected: string | undefined): ApiError {
  switch (reason) {
    case "malformed":
    case "bad_signature":
    case "asset_mismatch":
      return new ForbiddenError("The upload URL's signature is invalid; use `upload.url` exactly as POST /v1/assets returned it.", { reason: "bad_signature" });
    case "expired":
      return new ForbiddenError("The upload URL has expired; announce the file again with POST /v1/assets.", { reason: "expired" });
    case "content_type_mismatch":
      return new BadRequestError(`Content-Type must be ${expected ?? "the type"} announced with POST /v1/assets; send \`upload.headers\` unchanged.`, {
        reason: "content_type_mismatch",
        expected,
      });
    case "too_large":
      return tooLarge(MAX_UPLOAD_BYTES);
  }
}

/** 413 like every body over its route's limit (see `lib/core/body-limit.ts`); the rest of the body is not read. */
function tooLarge(maxBytes: number): ApiError {
  return new ApiError("payload_too_large", `The file exceeds the upload limit of ${maxBytes} bytes.`, {
    details: { reason: "too_large", max_bytes: maxBytes },
  });
}

function asTooLarge(error: unknown): never {
  throw error instanceof UploadTooLargeError ? tooLarge(error.maxBytes) : error;
}

async function announcedContentType(deps: AssetDeps, assetId: string): Promise<string | undefined> {
  const [row] = await deps.db.select({ type: mailAssets.uploadContentType }).from(mailAssets).where(eq(mailAssets.id, assetId)).limit(1);
  return row?.type;
}

/**
 * Step 2 in the embedded mode: the unauthenticated PUT to the signed URL. The grant proves who may write
 * what until when; the asset row makes it single-use: a conditional update claims the upload before a
 * byte is read, and a failed upload gives the claim back, so nothing is stored by a refused request.
 */
export async function receiveUpload(deps: AssetDeps, upload: IncomingUpload): Promise<UploadReceipt> {
  const store = deps.assets.local;
  if (!store) throw new NotFoundError("Upload endpoint (files go straight to Vercel Blob in this deployment; use `upload.url`)");

  const verification = verifyUpload(
    upload.token,
    { assetId: upload.assetId, contentType: upload.contentType, contentLength: upload.contentLength },
    deps.assets.uploadSecret,
    deps.clock,
  );
  if (!verification.ok) {
    // Mismatches are only reported for a token whose signature verified, so the path's asset id is ours.
    const expected = verification.reason === "content_type_mismatch" ? await announcedContentType(deps, upload.assetId) : undefined;
    throw rejectionError(verification.reason, expected);
  }
  const { grant } = verification;
  if (grant.customerId === undefined) throw rejectionError("malformed", undefined);
  const owner = and(eq(mailAssets.id, grant.assetId), eq(mailAssets.customerId, grant.customerId));

  const [claimed] = await deps.db
    .update(mailAssets)
    .set({ uploadedAt: deps.clock.now() })
    .where(and(owner, eq(mailAssets.status, "pending"), isNull(mailAssets.uploadedAt)))
    .returning({ id: mailAssets.id });
  if (!claimed) {
    const [exists] = await deps.db.select({ id: mailAssets.id }).from(mailAssets).where(owner).limit(1);
    if (!exists) throw new NotFoundError("Asset");
    throw new ConflictError("This upload URL has already been used; each upload URL accepts one file.", { reason: "upload_already_used" });
  }

  try {
    const bytes = upload.body ? await readCapped(upload.body, grant.pathname, grant.maxBytes).catch(asTooLarge) : new Uint8Array();
    if (bytes.byteLength === 0) throw new BadRequestError("The upload is empty; send the file's bytes as the request body.", { reason: "empty" });
    await store.put(grant.pathname, bytes, { contentType: grant.contentType, cacheControlMaxAge: RAW_UPLOAD_MAX_AGE_SECONDS });
    return { id: grant.assetId, bytes: bytes.byteLength };
  } catch (error) {
    await deps.db
      .update(mailAssets)
      .set({ uploadedAt: null })
      .where(and(owner, eq(mailAssets.status, "pending")));
    throw error;
  }
}
