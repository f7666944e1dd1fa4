import { and, eq, inArray, lt } from "drizzle-orm";
import { mailAssets } from "../../db/schema";
import type { AssetDeps } from "./service";
import { assetIdOfUploadPathname, RAW_UPLOAD_PREFIX } from "./upload-signature";

/** An announcement not completed within a day is abandoned: its upload URL expired 15 minutes in. */
export const ABANDONED_ASSET_AFTER_MS = 24 * 60 * 60 * 1000;

export type AssetCleanupResult = { abandoned_assets: number; raw_uploads_deleted: number };

/**
 * Deletes pending assets announced more than 24 hours ago. Conditional on `pending`, so an asset that a
 * concurrent `complete` has just published stays; a `complete` that loses the race answers 404 and takes
 * its published file back (see `completeAsset`). Their raw uploads go in `sweepRawUploads`.
 */
async function deleteAbandonedAssets(deps: Pick<AssetDeps, "db" | "clock">): Promise<number> {
  const cutoff = new Date(deps.clock.now().getTime() - ABANDONED_ASSET_AFTER_MS);
  const deleted = await deps.db
    .delete(mailAssets)
    .where(and(eq(mailAssets.status, "pending"), lt(mailAssets.createdAt, cutoff)))
    .returning({ id: mailAssets.id });
  return deleted.length;
}

/**
 * Deletes every raw upload that is not the upload of a pending asset. The store, not the database, says
 * what exists, so this also finds files no row names any more: uploads of completed, failed, deleted or
 * abandoned assets whose removal failed, and a file that a second PUT to a Vercel Blob upload URL put back
 * after `complete` or `DELETE` had removed the first (a client token cannot be revoked before it expires,
 * 15 minutes after the announcement; the embedded upload URL refuses a second PUT itself).
 *
 * A pending asset's row exists before its upload URL is handed out, so a file being uploaded is never
 * taken for a leftover. A listing shifted by deletions may skip files; the next run finds them.
 */
export async function sweepRawUploads(deps: Pick<AssetDeps, "db" | "assets">): Promise<number> {
  let deleted = 0;
  for await (const page of deps.assets.blobs.listPathnames(RAW_UPLOAD_PREFIX)) {
    const ids = [...new Set(page.map(assetIdOfUploadPathname).filter((id) => id !== null))];
    const pending =
      ids.length === 0
        ? []
        : await deps.db
            .select({ uploadPathname: mailAssets.uploadPathname })
            .from(mailAssets)
            .where(and(inArray(mailAssets.id, ids), eq(mailAssets.status, "pending")));
    const kept = new Set(pending.map((row) => row.uploadPathname));
    const leftovers = page.filter((pathname) => !kept.has(pathname));
    await deps.assets.blobs.delete(leftovers);
    deleted += leftovers.length;
  }
  return deleted;
}

/** The `mail-assets-cleanup` cron: safe to run twice, and at any time next to uploads and completes. */
export async function cleanUpAssets(deps: Pick<AssetDeps, "db" | "clock" | "assets">): Promise<AssetCleanupResult> {
  // Rows first: their uploads then belong to no pending asset and go in the same run.
  const abandoned = await deleteAbandonedAssets(deps);
  return { abandoned_assets: abandoned, raw_uploads_deleted: await sweepRawUploads(deps) };
}
