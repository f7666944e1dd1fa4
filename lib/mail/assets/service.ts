import { randomUUID } from "node:crypto";
import { and, desc, eq, isNull, or, sql } from "drizzle-orm";
import { PUBLISHED_FILE_MAX_AGE_SECONDS, UploadTooLargeError } from "../../adapters/blob";
import type { CoreDeps } from "../../core/context";
import { ConflictError, NotFoundError, ValidationError } from "../../core/errors";
import { beforeCursor, toPage, type Cursor } from "../../core/pagination";
import type { Database, Tx } from "../../db/client";
import { mailAssets, mailTemplates } from "../../db/schema";
import { contentAddressedPathname, ImageRejectedError, optimiseImage } from "./optimise";
import type { AssetStorage } from "../deps";
import { MAX_UPLOAD_BYTES, newUploadPathname, type AcceptedUploadContentType } from "./upload-signature";
import type { z } from "@hono/zod-openapi";
import type { Asset as AssetSchema } from "./schema";
import type { PublishedAsset as PublishedAssetSchema } from "./schema";
import type { AnnouncedAsset as AnnouncedAssetSchema } from "./schema";

/** How long an upload URL stays valid; long enough for a 20 MiB PUT on a slow line, short enough to leak little. */
const UPLOAD_URL_LIFETIME_MS = 15 * 60 * 1000;

export type AssetDeps = Pick<CoreDeps, "db" | "clock" | "logger"> & { assets: AssetStorage };

type AssetRow = typeof mailAssets.$inferSelect;

/** An asset as the API shows it. */
export type Asset = z.infer<typeof AssetSchema>;

export type PublishedAsset = z.infer<typeof PublishedAssetSchema>;

export type AnnouncedAsset = z.infer<typeof AnnouncedAssetSchema>;

function toAssetView(row: AssetRow): Asset {
  return {
    id: row.id,
    filename: row.filename,
    content_type: row.contentType ?? row.uploadContentType,
    status: row.status,
    url: row.url,
    width: row.width,
    height: row.height,
    bytes: row.bytes,
    created_at: row.createdAt.toISOString(),
  };
}

/** Step 1: a pending asset and the signed PUT for its raw bytes (scoped to one pathname, type and size). */
export async function announceAsset(
  deps: AssetDeps,
  customerId: string,
  input: { filename: string; contentType: AcceptedUploadContentType },
): Promise<AnnouncedAsset> {
  const id = randomUUID();
  const uploadPathname = newUploadPathname(id);
  const expiresAt = new Date(deps.clock.now().getTime() + UPLOAD_URL_LIFETIME_MS);
  const target = await deps.assets.blobs.createUploadTarget({
    pathname: uploadPathname,
    contentType: input.contentType,
    maxBytes: MAX_UPLOAD_BYTES,
    expiresAt,
    assetId: id,
    customerId,
  });
  await deps.db.insert(mailAssets).values({
    id,
    customerId,
    filename: input.filename,
    uploadContentType: input.contentType,
    uploadPathname,
    uploadExpiresAt: expiresAt,
    createdAt: deps.clock.now(),
  });
  return { id, upload: { url: target.url, headers: target.headers, expires_at: expiresAt.toISOString(), max_bytes: MAX_UPLOAD_BYTES } };
}

async function findAsset(db: Database | Tx, customerId: string, id: string): Promise<AssetRow | null> {
  const [row] = await db
    .select()
    .from(mailAssets)
    .where(and(eq(mailAssets.id, id), eq(mailAssets.customerId, customerId)))
    .limit(1);
  return row ?? null;
}

export async function getAsset(db: Database, customerId: string, id: string): Promise<Asset> {
  const row = await findAsset(db, customerId, id);
  if (!row) throw new NotFoundError("Asset");
  return toAssetView(row);
}

/** Finished images only (pending and failed uploads are not images yet), newest first. */
export async function listAssets(db: Database, customerId: string, input: { limit: number; after: Cursor | null }) {
  const before = beforeCursor(mailAssets.createdAt, mailAssets.id, input.after);
  const rows = await db
    .select()
    .from(mailAssets)
    .where(and(eq(mailAssets.customerId, customerId), eq(mailAssets.status, "ready"), before))
    .orderBy(desc(mailAssets.createdAt), desc(mailAssets.id))
    .limit(input.limit + 1);
  return toPage(rows.map(toAssetView), input.limit, (asset) => ({ at: asset.created_at, id: asset.id }));
}

function rejection(message: string): ValidationError {
  return new ValidationError(message, [{ path: "file", message }]);
}

/**
 * The stored outcome of a finished asset: the published image, or the same 422 as the first `complete`
 * (the raw upload is gone, so the answer cannot change). Null while the asset is still pending.
 */
function settledOutcome(row: AssetRow): PublishedAsset | null {
  if (row.status === "failed") throw rejection(row.error ?? "The upload was rejected");
  if (row.status === "ready" && row.url !== null && row.width !== null && row.height !== null) {
    return { url: row.url, width: row.width, height: row.height };
  }
  return null;
}

/** Serialises publishing and deleting one content-addressed file, which rows of several assets may share. */
async function lockPathname(tx: Tx, pathname: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${pathname}, 0))`);
}

async function isPathnameReferenced(tx: Tx, pathname: string): Promise<boolean> {
  const [other] = await tx.select({ id: mailAssets.id }).from(mailAssets).where(eq(mailAssets.pathname, pathname)).limit(1);
  return other !== undefined;
}

/**
 * The raw upload is useless once the asset is settled. A failure to remove it must not fail the answer
 * (the asset is settled already); the leftover still has its EXIF data, so it is logged, and the cleanup
 * cron removes it on its next run (it belongs to no pending asset).
 */
async function removeRawUpload(deps: AssetDeps, row: Pick<AssetRow, "id" | "uploadPathname">): Promise<void> {
  try {
    await deps.assets.blobs.delete(row.uploadPathname);
  } catch (error) {
    deps.logger.warn("raw asset upload not deleted", { asset_id: row.id, error: error instanceof Error ? error.message : String(error) });
  }
}

/**
 * Step 3: decode, optimise and publish. Settled assets answer what they answered before; concurrent
 * completes publish the same bytes under the same name and the conditional update picks one winner.
 */
export async function completeAsset(deps: AssetDeps, customerId: string, id: string): Promise<PublishedAsset> {
  const row = await findAsset(deps.db, customerId, id);
  if (!row) throw new NotFoundError("Asset");
  const done = settledOutcome(row);
  if (done) return done;

  let upload: Awaited<ReturnType<AssetStorage["blobs"]["readUpload"]>>;
  try {
    upload = await deps.assets.blobs.readUpload({ pathname: row.uploadPathname, maxBytes: MAX_UPLOAD_BYTES });
  } catch (error) {
    if (!(error instanceof UploadTooLargeError)) throw error;
    return failAsset(deps, row, `The file is larger than ${MAX_UPLOAD_BYTES} bytes`);
  }
  if (!upload) {
    // A concurrent complete may have published and removed the upload in between.
    const latest = await findAsset(deps.db, customerId, id);
    const outcome = latest && settledOutcome(latest);
    if (outcome) return outcome;
    if (!latest) throw new NotFoundError("Asset");
    const expired = latest.uploadExpiresAt.getTime() <= deps.clock.now().getTime();
    throw new ConflictError(
      expired
        ? "Nothing was uploaded before the upload URL expired; announce the file again with POST /v1/assets."
        : "Nothing has been uploaded for this asset yet: PUT the file to `upload.url` first, then complete.",
      { reason: "not_uploaded" },
    );
  }

  let image: Awaited<ReturnType<typeof optimiseImage>>;
  try {
    image = await optimiseImage(upload.bytes);
  } catch (error) {
    if (!(error instanceof ImageRejectedError)) throw error;
    return failAsset(deps, row, error.message);
  }

  const pathname = contentAddressedPathname(image);
  const published = await deps.db.transaction(async (tx) => {
    await lockPathname(tx, pathname);
    const { url } = await deps.assets.blobs.put(pathname, image.bytes, {
      contentType: image.contentType,
      cacheControlMaxAge: PUBLISHED_FILE_MAX_AGE_SECONDS,
    });
    const [updated] = await tx
      .update(mailAssets)
      .set({
        status: "ready",
        contentType: image.contentType,
        pathname,
        url,
        width: image.width,
        height: image.height,
        bytes: image.bytes.byteLength,
        completedAt: deps.clock.now(),
      })
      .where(and(eq(mailAssets.id, id), eq(mailAssets.customerId, customerId), eq(mailAssets.status, "pending")))
      .returning();
    // Lost the race to a delete: the file we just wrote must not outlive every row that could name it.
    if (!updated && !(await isPathnameReferenced(tx, pathname))) await deps.assets.blobs.delete(url);
    return updated ? { url, width: image.width, height: image.height } : null;
  });
  await removeRawUpload(deps, row);
  return published ?? settle(deps.db, customerId, id);
}

/** Marks the asset failed (terminal: the raw upload is removed) and answers the stored 422. */
async function failAsset(deps: AssetDeps, row: AssetRow, message: string): Promise<PublishedAsset> {
  const { id, customerId } = row;
  await deps.db
    .update(mailAssets)
    .set({ status: "failed", error: message, completedAt: deps.clock.now() })
    .where(and(eq(mailAssets.id, id), eq(mailAssets.customerId, customerId), eq(mailAssets.status, "pending")));
  await removeRawUpload(deps, row);
  // Whichever complete settled the asset first decides the answer every later call gets.
  return settle(deps.db, customerId, id);
}

async function settle(db: Database, customerId: string, id: string): Promise<PublishedAsset> {
  const row = await findAsset(db, customerId, id);
  if (!row) throw new NotFoundError("Asset");
  const outcome = settledOutcome(row);
  if (!outcome) throw new Error(`asset ${id} is still pending after completion`);
  return outcome;
}

/**
 * The customer's live templates whose stored content (stack values, global values, parameter examples)
 * names the file. Matched on the content-addressed pathname, so a change of the public base URL does not
 * hide a reference.
 */
async function templatesReferencing(tx: Tx, customerId: string, pathname: string): Promise<string[]> {
  const names = (column: typeof mailTemplates.blocks | typeof mailTemplates.values | typeof mailTemplates.params) =>
    sql`strpos(coalesce(${column}::text, ''), ${pathname}) > 0`;
  const rows = await tx
    .select({ id: mailTemplates.id })
    .from(mailTemplates)
    .where(
      and(
        eq(mailTemplates.customerId, customerId),
        isNull(mailTemplates.deletedAt),
        or(names(mailTemplates.blocks), names(mailTemplates.values), names(mailTemplates.params)),
      ),
    )
    .orderBy(mailTemplates.id)
    .limit(20);
  return rows.map((r) => r.id);
}

/**
 * Removes the asset. The published file goes too unless another asset (of any customer) has the same
 * image; refused while one of the customer's templates still names the image.
 */
export async function deleteAsset(deps: AssetDeps, customerId: string, id: string): Promise<{ id: string; deleted: true }> {
  const deleted = await deps.db.transaction(async (tx) => {
    const row = await findAsset(tx, customerId, id);
    if (!row) throw new NotFoundError("Asset");
    if (row.pathname !== null) {
      const templateIds = await templatesReferencing(tx, customerId, row.pathname);
      if (templateIds.length > 0) {
        throw new ConflictError("The image is still used by templates; change them first, then delete the asset.", {
          reason: "asset_in_use",
          template_ids: templateIds,
        });
      }
      await lockPathname(tx, row.pathname);
    }
    const [removed] = await tx
      .delete(mailAssets)
      .where(and(eq(mailAssets.id, id), eq(mailAssets.customerId, customerId)))
      .returning();
    if (!removed) throw new NotFoundError("Asset");
    if (removed.pathname !== null && !(await isPathnameReferenced(tx, removed.pathname))) {
      // Inside the transaction: if the store refuses, the row comes back and the caller can retry.
      await deps.assets.blobs.delete(removed.url ?? removed.pathname);
    }
    return removed;
  });
  if (deleted.status === "pending") await removeRawUpload(deps, deleted);
  return { id, deleted: true };
}
