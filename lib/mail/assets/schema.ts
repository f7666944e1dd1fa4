import { z } from "@hono/zod-openapi";
import { MAX_OUTPUT_WIDTH } from "./optimise";
import { ACCEPTED_UPLOAD_CONTENT_TYPES, MAX_UPLOAD_BYTES } from "./upload-signature";
import { idPathParam } from "../../core/openapi";
import { assetStatuses } from "../../db/schema/index";

const ASSET_ID_EXAMPLE = "3f6c2a9e-8b1d-4e7a-9c55-2d0f1b7e4a10";
const URL_EXAMPLE = "https://store.public.blob.vercel-storage.com/assets/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.jpg";

export const AssetIdParam = idPathParam("Asset id.", ASSET_ID_EXAMPLE);

/** A name, not a path: it labels the asset and never becomes part of a URL or a file on disk. */
const filename = z
  .string()
  .min(1, { abort: true })
  .max(255)
  .refine((value) => !/[\\/\u0000-\u001f\u007f]/.test(value), "Must not contain slashes, backslashes or control characters.")
  .refine((value) => value.trim() !== "" && value !== "." && value !== "..", "Must be a file name.")
  .openapi({ description: "Original file name (1–255 characters, no slashes or control characters); a label only.", example: "summer-sale.jpg" });

export const Asset = z
  .object({
    id: z.uuid().openapi({ description: "Asset id.", example: ASSET_ID_EXAMPLE }),
    filename,
    content_type: z.enum(ACCEPTED_UPLOAD_CONTENT_TYPES).openapi({
      description:
        "Media type. While `pending` or `failed`: the type announced for the upload. Once `ready`: the published image's, `image/jpeg` or (where transparency matters) `image/png`.",
      example: "image/jpeg",
    }),
    status: z.enum(assetStatuses).openapi({
      description:
        "`pending` until `complete` succeeds (`ready`) or rejects the file (`failed`, terminal: announce it again). A `pending` asset is deleted 24 hours after its announcement.",
      example: "ready",
    }),
    url: z
      .url()
      .nullable()
      .openapi({ description: "Public immutable address of the optimised image once `ready`; put it into an image parameter.", example: URL_EXAMPLE }),
    width: z
      .number()
      .int()
      .nullable()
      .openapi({ description: `Width in pixels once \`ready\` (at most ${MAX_OUTPUT_WIDTH}).`, example: 1360 }),
    height: z.number().int().nullable().openapi({ description: "Height in pixels once `ready`.", example: 1020 }),
    bytes: z.number().int().nullable().openapi({ description: "Size of the published image in bytes once `ready` (under 400 KB).", example: 214_337 }),
    created_at: z.iso.datetime().openapi({ description: "When the asset was announced (ISO 8601).", example: "2026-03-01T12:00:00.000Z" }),
  })
  .openapi("Asset");

export const CreateAsset = Asset.pick({ filename: true, content_type: true }).openapi("CreateAsset");

const AssetUploadTarget = z
  .object({
    url: z.url().openapi({
      description: "Signed address to PUT the raw file to, without an API key. Valid for 15 minutes and for one file.",
      example: "https://vercel.com/api/blob/?pathname=uploads%2F3f6c2a9e-8b1d-4e7a-9c55-2d0f1b7e4a10-5d41402abc4b2a76b9719d911017c592",
    }),
    headers: z.record(z.string(), z.string()).openapi({
      description: "Headers to send with the PUT exactly as given (they carry the content type and, in production, the upload token).",
      example: { "x-content-type": "image/jpeg", authorization: "Bearer vercel_blob_client_…" },
    }),
    expires_at: z.iso.datetime().openapi({ description: "When `url` stops accepting the upload (ISO 8601).", example: "2026-03-01T12:15:00.000Z" }),
    max_bytes: z.number().int().openapi({ description: "Largest file the upload accepts (20 MiB).", example: MAX_UPLOAD_BYTES }),
  })
  .openapi("AssetUploadTarget");

export const AnnouncedAsset = z
  .object({
    id: z.uuid().openapi({ description: "Id of the new, `pending` asset.", example: ASSET_ID_EXAMPLE }),
    upload: AssetUploadTarget,
  })
  .openapi("AnnouncedAsset");

export const PublishedAsset = z
  .object({
    url: z.url().openapi({ description: "Public immutable address of the optimised image; put it into an image parameter.", example: URL_EXAMPLE }),
    width: z
      .number()
      .int()
      .openapi({ description: `Width in pixels (at most ${MAX_OUTPUT_WIDTH}).`, example: 1360 }),
    height: z.number().int().openapi({ description: "Height in pixels.", example: 1020 }),
  })
  .openapi("PublishedAsset");

export const DeletedAsset = z
  .object({
    id: z.uuid().openapi({ description: "Id of the deleted asset.", example: ASSET_ID_EXAMPLE }),
    deleted: z.literal(true).openapi({ description: "Always true.", example: true }),
  })
  .openapi("DeletedAsset");

export const AssetUploadReceipt = z
  .object({
    id: z.uuid().openapi({ description: "Asset the file was stored for.", example: ASSET_ID_EXAMPLE }),
    bytes: z.number().int().openapi({ description: "Bytes received.", example: 2_483_201 }),
  })
  .openapi("AssetUploadReceipt");
