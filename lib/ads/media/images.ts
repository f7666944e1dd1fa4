import { and, eq } from "drizzle-orm";
import type { Database } from "../../db/client";
import { adsImages } from "../../db/schema";
import { ValidationError } from "../../core/errors";
import { OutboundError, type SafeFetch } from "../../core/outbound/safe-fetch";
import type { AdsDeps } from "../deps";
import { connectAdAccount } from "../onboarding/service";
import { upstream } from "../upstream";
import type { z } from "zod";
import type { MediaImage, MediaImageItem } from "./schema";
// sharp is loaded on first use: only the Vercel functions that process images ship libvips (vercel.json, lib/commands/build.ts).
import { loadSharp } from "../../core/sharp";

const MAX_IMAGE_BYTES = 30 * 1024 * 1024;
/** Relative deviation accepted around each ratio (Meta's ad specs allow 3 %). */
const RATIO_TOLERANCE = 0.03;
const IMAGE_RATIOS = [
  { label: "1:1", value: 1 },
  { label: "4:5", value: 4 / 5 },
  { label: "9:16", value: 9 / 16 },
  { label: "1.91:1", value: 1.91 },
] as const;
type ImageRatio = (typeof IMAGE_RATIOS)[number]["label"];
export type ImageFormat = "jpeg" | "png" | "webp";

/** The API's `MediaImage` and `MediaImageItem` schemas (one schema per resource). */
export type UploadedImageView = z.infer<typeof MediaImage>;
export type ImageListItem = z.infer<typeof MediaImageItem>;

/** The type by content, never by name or Content-Type header: JPEG `FF D8 FF`, PNG signature, `RIFF…WEBP`. */
function sniffImageFormat(bytes: Uint8Array): ImageFormat | null {
  const startsWith = (signature: number[], offset = 0) => signature.every((byte, i) => bytes[offset + i] === byte);
  if (startsWith([0xff, 0xd8, 0xff])) return "jpeg";
  if (startsWith([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "png";
  if (startsWith([0x52, 0x49, 0x46, 0x46]) && startsWith([0x57, 0x45, 0x42, 0x50], 8)) return "webp";
  return null;
}

function matchRatio(width: number, height: number): ImageRatio | null {
  if (width <= 0 || height <= 0) return null;
  const ratio = width / height;
  return IMAGE_RATIOS.find((candidate) => Math.abs(ratio - candidate.value) / candidate.value <= RATIO_TOLERANCE)?.label ?? null;
}

const urlProblem = (field: string, message: string) => new ValidationError("The image URL cannot be used; see details.", [{ path: field, message }]);

function fetchProblem(error: OutboundError): string {
  switch (error.reason) {
    case "scheme_not_allowed":
      return "Only https URLs are accepted.";
    case "blocked_address":
      return `Not a public address: ${error.message}`;
    case "redirect_not_allowed":
      return `The URL answered with a redirect (HTTP ${error.status ?? "3xx"}); redirects are not followed, give the final URL.`;
    case "too_large":
      return `The file exceeds ${MAX_IMAGE_BYTES / 1024 / 1024} MB.`;
    default:
      return `The file could not be fetched: ${error.message}`;
  }
}

/**
 * Fetches through the SSRF-safe client and checks what the spec asks (JPG/PNG/WebP by content, at most
 * 30 MB, decodable; for ad images one of the ad ratios), before anything goes upstream. Problems are 422
 * on `field`. Also the one way template image parameters are fetched.
 */
export async function fetchImage(
  deps: Pick<AdsDeps, "safeFetch">,
  url: string,
  options: { field?: string; anyRatio?: boolean } = {},
): Promise<{ bytes: Buffer; format: ImageFormat; width: number; height: number }> {
  const field = options.field ?? "url";
  let response: Awaited<ReturnType<SafeFetch>>;
  try {
    response = await deps.safeFetch(url, { maxBytes: MAX_IMAGE_BYTES, timeoutMs: 30_000, headers: { accept: "image/jpeg, image/png, image/webp" } });
  } catch (error) {
    if (error instanceof OutboundError) throw urlProblem(field, fetchProblem(error));
    throw error;
  }
  if (response.status !== 200) throw urlProblem(field, `The URL answered HTTP ${response.status}, not 200.`);
  const bytes = response.body;
  const format = sniffImageFormat(bytes);
  if (!format) throw urlProblem(field, "The file is not a JPG, PNG or WebP image (checked by its content).");
  const sharp = await loadSharp();
  const meta = await sharp(bytes)
    .metadata()
    .catch(() => undefined);
  // EXIF orientation decides what the platform shows, so the ratio is checked on the oriented size.
  const width = meta?.autoOrient.width ?? meta?.width;
  const height = meta?.autoOrient.height ?? meta?.height;
  if (!meta || !width || !height) throw urlProblem(field, `The ${format.toUpperCase()} file cannot be decoded.`);
  if (!options.anyRatio && !matchRatio(width, height)) {
    throw urlProblem(field, `The image is ${width}×${height} (ratio ${(width / height).toFixed(3)}); allowed ratios are 1:1, 4:5, 9:16 and 1.91:1 (±3 %).`);
  }
  return { bytes, format, width, height };
}

/**
 * Media upload by URL: fetched once, checked, and the same bytes forwarded to the ad account. The hash is
 * the image's identity there, so uploading the same file again returns the same record.
 */
export async function uploadImageFromUrl(deps: AdsDeps, customerId: string, url: string): Promise<UploadedImageView> {
  const account = await connectAdAccount(deps, customerId);
  const image = await fetchImage(deps, url);
  const uploaded = await upstream({ logger: deps.logger, customerId, action: "upload image" }, () =>
    account.session.uploadImage(account.adAccountId, image.bytes),
  );
  const values = { url: uploaded.url, width: image.width, height: image.height, bytes: image.bytes.length, format: image.format };
  const [row] = await deps.db
    .insert(adsImages)
    .values({ customerId, imageHash: uploaded.hash, ...values, createdAt: deps.clock.now() })
    .onConflictDoUpdate({ target: [adsImages.customerId, adsImages.imageHash], set: values })
    .returning();
  if (!row) throw new Error("image insert returned nothing");
  return { id: row.id, image_hash: row.imageHash, url: row.url };
}

/** Graph writes `2026-01-15T10:00:00+0000`; we answer the extended form `+00:00` (null: Graph left it out). */
export function isoFromGraph(time: string | null): string | null {
  return time === null ? null : time.replace(/([+-]\d{2})(\d{2})$/, "$1:$2");
}

/** Live from the ad account, as the spec asks (not from our table). */
export async function listImages(deps: AdsDeps, customerId: string, hash: string | undefined): Promise<ImageListItem[]> {
  const account = await connectAdAccount(deps, customerId);
  const images = await upstream({ logger: deps.logger, customerId, action: "list images" }, () =>
    account.session.listImages(account.adAccountId, hash ? { hashes: [hash] } : {}),
  );
  return images.map((image) => ({
    image_hash: image.hash,
    url: image.url,
    width: image.width,
    height: image.height,
    name: image.name,
    created_time: isoFromGraph(image.created_time),
  }));
}

export async function findImage(db: Database, customerId: string, imageHash: string) {
  const [row] = await db
    .select()
    .from(adsImages)
    .where(and(eq(adsImages.customerId, customerId), eq(adsImages.imageHash, imageHash)));
  return row;
}
