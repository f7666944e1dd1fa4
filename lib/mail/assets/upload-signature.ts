import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import type { UploadTargetRequest } from "../../adapters/blob";
import { systemClock, type Clock } from "../../base/clock";
import { imageTypes } from "../../db/schema/index";

/**
 * Signed upload URLs of the embedded mode: the local stand-in for a Vercel Blob client token. The customer
 * PUTs raw bytes to `${uploadsBaseUrl}/<assetId>?token=<token>` without an API key; the token carries the
 * grant (asset, pathname, content type, size cap, expiry) and an HMAC-SHA256 over it.
 *
 * Verification is pure: it proves the grant was issued by us, is unexpired and matches the request. That a
 * grant is used once is enforced by the caller with the asset's database state (accept the PUT only while
 * the asset is `pending` and not yet uploaded, with a conditional update), so nothing here keeps state.
 */

/** Largest raw upload we accept; it goes straight to the store, so our 4.5 MB request cap does not apply. */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;

export const ACCEPTED_UPLOAD_CONTENT_TYPES = imageTypes;
export type AcceptedUploadContentType = (typeof ACCEPTED_UPLOAD_CONTENT_TYPES)[number];

/** The query parameter of the signed upload URL that carries the token. */
export const UPLOAD_TOKEN_PARAM = "token";

/** Where raw uploads live; the cleanup cron sweeps this prefix. */
export const RAW_UPLOAD_PREFIX = "uploads/";

/**
 * Where a raw upload lands before `complete`: `uploads/<assetId>-<128 random bits>`, a fresh name per
 * announcement, stored with the asset and signed into its upload grant (embedded) or client token (Vercel).
 * The store is public, and the asset id alone appears in API answers and logs, so the suffix is what keeps
 * a raw upload (still carrying its EXIF and GPS data) unreadable to anyone but the uploader until the
 * service deletes it.
 */
export function newUploadPathname(assetId: string): string {
  return `${RAW_UPLOAD_PREFIX}${assetId}-${randomBytes(16).toString("hex")}`;
}

/** The asset a raw upload's pathname names, or null for a name we never hand out. */
export function assetIdOfUploadPathname(pathname: string): string | null {
  return /^uploads\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:-[0-9a-f]{32})?$/.exec(pathname)?.[1] ?? null;
}

function isAcceptedUploadContentType(value: string): value is AcceptedUploadContentType {
  return (ACCEPTED_UPLOAD_CONTENT_TYPES as readonly string[]).includes(value);
}

export type UploadGrant = {
  assetId: string;
  customerId?: string;
  /** Where the bytes are stored; signed so the upload route needs no naming convention of its own. */
  pathname: string;
  contentType: AcceptedUploadContentType;
  maxBytes: number;
  expiresAt: Date;
};

export type UploadRejection = "malformed" | "bad_signature" | "expired" | "asset_mismatch" | "content_type_mismatch" | "too_large";

export type UploadVerification = { ok: true; grant: UploadGrant } | { ok: false; reason: UploadRejection };

/** What the upload route knows about the incoming PUT. */
export type UploadRequest = {
  /** From the URL path. */
  assetId: string;
  /** The `Content-Type` header as sent. */
  contentType: string | null | undefined;
  /** The `Content-Length` header, when sent; the route must still cap the bytes it actually reads. */
  contentLength?: number | null;
};

const grantPayloadSchema = z.object({
  v: z.literal(1),
  asset: z.string().min(1),
  customer: z.string().min(1).optional(),
  pathname: z.string().min(1),
  type: z.enum(ACCEPTED_UPLOAD_CONTENT_TYPES),
  max: z.number().int().positive(),
  exp: z.number().int(),
});
type GrantPayload = z.infer<typeof grantPayloadSchema>;

// Domain separation: the secret may be shared with other signers, so the MAC input says what it signs.
const MAC_CONTEXT = "mail.asset-upload.v1:";

function mac(secret: string, encodedPayload: string): Buffer {
  // A misconfigured (empty or short) secret would make every upload URL forgeable; fail loudly instead.
  if (secret.length < 16) throw new Error("The upload signing secret must be at least 16 characters");
  return createHmac("sha256", secret).update(MAC_CONTEXT).update(encodedPayload).digest();
}

/** `<base64url JSON grant>.<base64url HMAC>`: URL-safe, self-contained, readable when debugging. */
export function signUpload(grant: UploadGrant, secret: string): string {
  if (!Number.isInteger(grant.maxBytes) || grant.maxBytes < 1 || grant.maxBytes > MAX_UPLOAD_BYTES) {
    throw new RangeError(`maxBytes must be between 1 and ${MAX_UPLOAD_BYTES}`);
  }
  const payload: GrantPayload = {
    v: 1,
    asset: grant.assetId,
    ...(grant.customerId === undefined ? {} : { customer: grant.customerId }),
    pathname: grant.pathname,
    type: grant.contentType,
    max: grant.maxBytes,
    exp: grant.expiresAt.getTime(),
  };
  const encodedPayload = Buffer.from(JSON.stringify(payload), "utf8").toString("base64url");
  return `${encodedPayload}.${mac(secret, encodedPayload).toString("base64url")}`;
}

/** The media type without parameters, lower-cased: `Image/JPEG; charset=binary` is `image/jpeg`. */
function mediaTypeOf(header: string | null | undefined): string | null {
  const mediaType = header?.split(";")[0]?.trim().toLowerCase();
  return mediaType ? mediaType : null;
}

/**
 * The signature is checked before anything inside the token is believed, so `expired` and the mismatch
 * reasons are only ever reported for a token we really issued.
 */
export function verifyUpload(token: string | null | undefined, request: UploadRequest, secret: string, clock: Clock = systemClock): UploadVerification {
  const [encodedPayload, encodedMac, ...rest] = (token ?? "").split(".");
  if (!encodedPayload || !encodedMac || rest.length > 0) return { ok: false, reason: "malformed" };

  const given = Buffer.from(encodedMac, "base64url");
  const expected = mac(secret, encodedPayload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: "bad_signature" };

  let payload: GrantPayload;
  try {
    payload = grantPayloadSchema.parse(JSON.parse(Buffer.from(encodedPayload, "base64url").toString("utf8")));
  } catch {
    // Only reachable with a token signed by us in another format, e.g. after a version change.
    return { ok: false, reason: "malformed" };
  }
  const grant: UploadGrant = {
    assetId: payload.asset,
    ...(payload.customer === undefined ? {} : { customerId: payload.customer }),
    pathname: payload.pathname,
    contentType: payload.type,
    maxBytes: payload.max,
    expiresAt: new Date(payload.exp),
  };

  if (clock.now().getTime() >= payload.exp) return { ok: false, reason: "expired" };
  if (request.assetId !== grant.assetId) return { ok: false, reason: "asset_mismatch" };
  if (mediaTypeOf(request.contentType) !== grant.contentType) return { ok: false, reason: "content_type_mismatch" };
  if (request.contentLength !== undefined && request.contentLength !== null && request.contentLength > grant.maxBytes) {
    return { ok: false, reason: "too_large" };
  }
  return { ok: true, grant };
}

/**
 * The `signUploadUrl` of the local blob store: `${uploadsBaseUrl}/<assetId>?token=…`, where the lead's
 * upload route (`PUT …/uploads/{assetId}`) calls `verifyUpload` and writes the bytes to `grant.pathname`.
 */
export function localUploadUrlSigner(options: { uploadsBaseUrl: string; secret: string }): (request: UploadTargetRequest) => string {
  const base = options.uploadsBaseUrl.replace(/\/+$/, "");
  return (request) => {
    if (!isAcceptedUploadContentType(request.contentType)) throw new RangeError(`Content type ${request.contentType} is not accepted`);
    const token = signUpload(
      {
        assetId: request.assetId,
        ...(request.customerId === undefined ? {} : { customerId: request.customerId }),
        pathname: request.pathname,
        contentType: request.contentType,
        maxBytes: request.maxBytes,
        expiresAt: request.expiresAt,
      },
      options.secret,
    );
    return `${base}/${encodeURIComponent(request.assetId)}?${new URLSearchParams({ [UPLOAD_TOKEN_PARAM]: token }).toString()}`;
  };
}
