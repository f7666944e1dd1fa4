import { and, desc, eq } from "drizzle-orm";
import type { Database } from "../../db/client";
import { adsVideos } from "../../db/schema";
import { NotFoundError, ValidationError } from "../../core/errors";
import { OutboundError, assertOutboundUrl } from "../../core/outbound/safe-fetch";
import type { AdsDeps } from "../deps";
import { connectAdAccount } from "../onboarding/service";
import type { AdVideo, GraphSession } from "../platform";
import { closeCompensations, compensateOnFailure, openCompensation } from "../compensations";
import { upstream } from "../upstream";
import { isoFromGraph } from "./images";
import type { z } from "zod";
import type { MediaVideo, MediaVideoItem } from "./schema";

type VideoStatus = (typeof adsVideos.$inferSelect)["status"];
/** The API's `MediaVideo` and `MediaVideoItem` schemas (one schema per resource). */
export type VideoView = z.infer<typeof MediaVideo>;
export type VideoListItem = z.infer<typeof MediaVideoItem>;

type Row = typeof adsVideos.$inferSelect;

/** Graph's `status.video_status`; `expired` (an upload session that ran out) is a failure too. */
function videoStatusOf(video: Pick<AdVideo, "status">): VideoStatus {
  const status = video.status.video_status;
  if (status === "ready") return "READY";
  if (status === "error" || status === "expired") return "FAILED";
  return "PROCESSING";
}

function toVideoView(row: Row): VideoView {
  return {
    id: row.id,
    video_id: row.platformVideoId,
    status: row.status,
    title: row.title,
    processed_at: row.processedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
  };
}

/** A title from the URL's file name, never from its query (signed URLs carry tokens there). */
function titleFrom(url: URL): string {
  const last = url.pathname.split("/").filter(Boolean).pop() ?? "video";
  try {
    return decodeURIComponent(last).slice(0, 200);
  } catch {
    return last.slice(0, 200);
  }
}

/**
 * Records a video just created upstream (an existing record of the same platform video is kept); if the
 * write fails, the platform's video is deleted again, so no video is left upstream that we do not list.
 */
export async function recordVideo(deps: AdsDeps, session: GraphSession, values: typeof adsVideos.$inferInsert): Promise<Row> {
  const pending = await openCompensation(deps, session, { customerId: values.customerId, kind: "video", platformId: values.platformVideoId });
  return compensateOnFailure(deps, session, [pending], () =>
    deps.db.transaction(async (tx) => {
      const [inserted] = await tx
        .insert(adsVideos)
        .values(values)
        .onConflictDoNothing({ target: [adsVideos.customerId, adsVideos.platformVideoId] })
        .returning();
      const row =
        inserted ??
        (
          await tx
            .select()
            .from(adsVideos)
            .where(and(eq(adsVideos.customerId, values.customerId), eq(adsVideos.platformVideoId, values.platformVideoId)))
        )[0];
      if (!row) throw new Error("video insert returned nothing");
      await closeCompensations(tx, [pending]);
      return row;
    }),
  );
}

/**
 * The platform fetches the file itself; we only check that the URL is https and not an internal target
 * (there is nothing to fetch here, so no DNS is asked). The video starts PROCESSING.
 */
export async function createVideo(deps: AdsDeps, customerId: string, url: string): Promise<VideoView> {
  try {
    assertOutboundUrl(url, { allowLoopbackForTests: deps.allowLoopbackOutbound });
  } catch (error) {
    if (error instanceof OutboundError) throw new ValidationError("The video URL cannot be used; see details.", [{ path: "url", message: error.message }]);
    throw error;
  }
  const account = await connectAdAccount(deps, customerId);
  const title = titleFrom(new URL(url));
  const created = await upstream({ logger: deps.logger, customerId, action: "create video" }, () =>
    account.session.createVideo(account.adAccountId, url, { title }),
  );
  const row = await recordVideo(deps, account.session, { customerId, platformVideoId: created.id, status: "PROCESSING", title, createdAt: deps.clock.now() });
  return toVideoView(row);
}

async function findVideo(db: Database, customerId: string, id: string): Promise<Row | undefined> {
  const [row] = await db
    .select()
    .from(adsVideos)
    .where(and(eq(adsVideos.customerId, customerId), eq(adsVideos.id, id)));
  return row;
}

export async function findVideoByPlatformId(db: Database, customerId: string, videoId: string): Promise<Row | undefined> {
  const [row] = await db
    .select()
    .from(adsVideos)
    .where(and(eq(adsVideos.customerId, customerId), eq(adsVideos.platformVideoId, videoId)));
  return row;
}

/**
 * Records a final state once: the update only applies while the row is still PROCESSING, and
 * `processed_at` is when we first saw the platform report it (Graph gives no completion time).
 */
async function settle(deps: AdsDeps, row: Row, status: VideoStatus): Promise<Row> {
  if (row.status !== "PROCESSING" || status === "PROCESSING") return row;
  const [updated] = await deps.db
    .update(adsVideos)
    .set({ status, processedAt: deps.clock.now() })
    .where(and(eq(adsVideos.id, row.id), eq(adsVideos.customerId, row.customerId), eq(adsVideos.status, "PROCESSING")))
    .returning();
  return updated ?? (await findVideo(deps.db, row.customerId, row.id)) ?? row;
}

/** A PROCESSING video is asked upstream; READY and FAILED are final and answered from our record. */
export async function refreshVideo(deps: AdsDeps, row: Row, session?: GraphSession): Promise<Row> {
  if (row.status !== "PROCESSING") return row;
  const connected = session ?? (await connectAdAccount(deps, row.customerId)).session;
  const video = await upstream({ logger: deps.logger, customerId: row.customerId, action: "read video" }, () => connected.getVideo(row.platformVideoId));
  return settle(deps, row, videoStatusOf(video));
}

export async function getVideo(deps: AdsDeps, customerId: string, id: string): Promise<VideoView> {
  const row = await findVideo(deps.db, customerId, id);
  if (!row) throw new NotFoundError("Video");
  return toVideoView(await refreshVideo(deps, row));
}

/** Live from the ad account, joined with our ids (null for videos not created through this API). */
export async function listVideos(deps: AdsDeps, customerId: string): Promise<VideoListItem[]> {
  const account = await connectAdAccount(deps, customerId);
  const videos = await upstream({ logger: deps.logger, customerId, action: "list videos" }, () => account.session.listVideos(account.adAccountId));
  const rows = await deps.db.select().from(adsVideos).where(eq(adsVideos.customerId, customerId)).orderBy(desc(adsVideos.createdAt));
  const byVideoId = new Map(rows.map((row) => [row.platformVideoId, row]));
  const items: VideoListItem[] = [];
  for (const video of videos) {
    const status = videoStatusOf(video);
    const row = byVideoId.get(video.id);
    if (row) await settle(deps, row, status);
    items.push({
      id: row?.id ?? null,
      video_id: video.id,
      title: video.title ?? row?.title ?? "",
      status,
      length: Math.round(video.length ?? 0),
      created_time: isoFromGraph(video.created_time),
    });
  }
  return items;
}
