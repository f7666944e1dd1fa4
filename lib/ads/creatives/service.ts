import { and, desc, eq } from "drizzle-orm";
import type { Database, Tx } from "../../db/client";
import { adsCreatives, type RatioMediaRecord } from "../../db/schema";
import { ConflictError, NotFoundError, ValidationError } from "../../core/errors";
import type { AdsDeps } from "../deps";
import { findImage } from "../media/images";
import { findVideoByPlatformId, refreshVideo } from "../media/videos";
import type { GraphSession } from "../platform";
import type { z } from "zod";
import type { CreateCreative, Creative } from "./schema";

type Row = typeof adsCreatives.$inferSelect;
export type CreativeRow = Row;
export type CreativeType = Row["type"];
type CreativeStatus = Row["status"];
/** The filter accepts the spec's values; creatives themselves are never paused (ads are). */
export type CreativeStatusFilter = CreativeStatus | "PAUSED";

/** The API's `Creative` schema (one schema per resource). */
export type CreativeView = z.infer<typeof Creative>;

/** The API's `CreateCreative` request. */
type CreateCreativeInput = z.infer<typeof CreateCreative>;

function toCreativeView(row: Row): CreativeView {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    status: row.status,
    image_hash: row.imageHashes?.["1:1"] ?? null,
    video_id: row.videoIds?.["1:1"] ?? null,
    thumbnail_hash: row.thumbnailHashes?.["1:1"] ?? null,
    platform_creative_id: row.platformCreativeId,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** One medium for every placement ratio. */
function sameForAllRatios(value: string): RatioMediaRecord {
  return { "1:1": value, "4:5": value, "9:16": value };
}

/**
 * Inserts a draft. Also the entry point for drafts made elsewhere (template renders give one medium per
 * ratio); no platform object exists until an ad is built from it.
 */
export async function insertCreativeDraft(
  db: Database | Tx,
  customerId: string,
  draft: {
    name: string;
    type: CreativeType;
    imageHashes?: RatioMediaRecord;
    videoIds?: RatioMediaRecord;
    thumbnailHashes?: Partial<RatioMediaRecord>;
    templateId?: string;
    formats?: RatioMediaRecord;
  },
  now: Date,
): Promise<Row> {
  const [row] = await db
    .insert(adsCreatives)
    .values({
      customerId,
      name: draft.name,
      type: draft.type,
      status: "DRAFT",
      imageHashes: draft.imageHashes ?? null,
      videoIds: draft.videoIds ?? null,
      thumbnailHashes: draft.thumbnailHashes ?? null,
      templateId: draft.templateId ?? null,
      formats: draft.formats ?? null,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!row) throw new Error("creative insert returned nothing");
  return row;
}

/**
 * A video creative needs a READY video unless a thumbnail is given (the platform's generated thumbnail
 * exists only once processing is done). Still processing is a 409 the caller can retry; failed is a 422.
 */
export async function assertVideoUsable(deps: AdsDeps, customerId: string, videoId: string, requireReady: boolean, session?: GraphSession): Promise<void> {
  const row = await findVideoByPlatformId(deps.db, customerId, videoId);
  if (!row) throw new ValidationError("Unknown video.", [{ path: "video_id", message: "No video with this id was uploaded through POST /v1/media/videos." }]);
  const video = await refreshVideo(deps, row, session);
  if (video.status === "FAILED")
    throw new ValidationError("The video failed processing.", [{ path: "video_id", message: "The platform could not process this video; upload it again." }]);
  if (requireReady && video.status !== "READY") {
    throw new ConflictError("The video is still processing; poll GET /v1/media/videos/{id} until READY, or give thumbnail_hash.", {
      reason: "video_processing",
      video_id: videoId,
    });
  }
}

async function assertImageKnown(db: Database, customerId: string, hash: string, field: string): Promise<void> {
  if (!(await findImage(db, customerId, hash))) {
    throw new ValidationError("Unknown image.", [{ path: field, message: "No image with this hash was uploaded through POST /v1/media/images." }]);
  }
}

export async function createCreative(deps: AdsDeps, customerId: string, input: CreateCreativeInput): Promise<CreativeView> {
  const hasImage = input.image_hash !== undefined;
  const hasVideo = input.video_id !== undefined;
  if (hasImage === hasVideo) {
    const issue = hasImage ? "Give exactly one of image_hash and video_id, not both." : "Give exactly one of image_hash and video_id.";
    throw new ValidationError("A creative has exactly one medium.", [
      { path: "image_hash", message: issue },
      { path: "video_id", message: issue },
    ]);
  }
  if (input.thumbnail_hash !== undefined && !hasVideo) {
    throw new ValidationError("thumbnail_hash belongs to videos.", [{ path: "thumbnail_hash", message: "Only allowed together with video_id." }]);
  }
  const now = deps.clock.now();
  if (input.image_hash !== undefined) {
    await assertImageKnown(deps.db, customerId, input.image_hash, "image_hash");
    const row = await insertCreativeDraft(
      deps.db,
      customerId,
      { name: input.name ?? `Image ${input.image_hash.slice(0, 8)}`, type: "IMAGE", imageHashes: sameForAllRatios(input.image_hash) },
      now,
    );
    return toCreativeView(row);
  }
  const videoId = input.video_id ?? "";
  if (input.thumbnail_hash !== undefined) await assertImageKnown(deps.db, customerId, input.thumbnail_hash, "thumbnail_hash");
  await assertVideoUsable(deps, customerId, videoId, input.thumbnail_hash === undefined);
  const row = await insertCreativeDraft(
    deps.db,
    customerId,
    {
      name: input.name ?? `Video ${videoId}`,
      type: "VIDEO",
      videoIds: sameForAllRatios(videoId),
      ...(input.thumbnail_hash !== undefined && { thumbnailHashes: sameForAllRatios(input.thumbnail_hash) }),
    },
    now,
  );
  return toCreativeView(row);
}

export async function findCreative(db: Database | Tx, customerId: string, id: string): Promise<Row | undefined> {
  const [row] = await db
    .select()
    .from(adsCreatives)
    .where(and(eq(adsCreatives.customerId, customerId), eq(adsCreatives.id, id)));
  return row;
}

export async function listCreatives(
  db: Database,
  customerId: string,
  query: { status?: CreativeStatusFilter; limit: number; offset: number },
): Promise<CreativeView[]> {
  if (query.status === "PAUSED") return [];
  const rows = await db
    .select()
    .from(adsCreatives)
    .where(and(eq(adsCreatives.customerId, customerId), query.status !== undefined ? eq(adsCreatives.status, query.status) : undefined))
    .orderBy(desc(adsCreatives.createdAt), desc(adsCreatives.id))
    .limit(query.limit)
    .offset(query.offset);
  return rows.map(toCreativeView);
}

/** Only the name changes, and only here: the platform creative keeps the name it was built with. */
export async function renameCreative(db: Database, customerId: string, id: string, name: string, now: Date): Promise<CreativeView> {
  const [row] = await db
    .update(adsCreatives)
    .set({ name, updatedAt: now })
    .where(and(eq(adsCreatives.customerId, customerId), eq(adsCreatives.id, id)))
    .returning();
  if (!row) throw new NotFoundError("Creative");
  return toCreativeView(row);
}

/** Archived here only (the platform creative stays, ads built from it keep running); repeating is harmless. */
export async function archiveCreative(db: Database, customerId: string, id: string, now: Date): Promise<CreativeView> {
  const [row] = await db
    .update(adsCreatives)
    .set({ status: "ARCHIVED", updatedAt: now })
    .where(and(eq(adsCreatives.customerId, customerId), eq(adsCreatives.id, id)))
    .returning();
  if (!row) throw new NotFoundError("Creative");
  return toCreativeView(row);
}
