import { and, eq, isNull, lt, or } from "drizzle-orm";
import { UploadTooLargeError } from "../../adapters/blob";
import { ApiError, ConflictError, NotFoundError, statusOf, ValidationError } from "../../core/errors";
import { OutboundError } from "../../core/outbound/safe-fetch";
import { sha256Hex } from "../../core/secrets";
import { adsCreatives, adsTemplates, adsVideoRenders } from "../../db/schema";
import { recordVideo } from "../media/videos";
import { insertCreativeDraft } from "../creatives/service";
import type { AdsDeps } from "../deps";
import { connectAdAccount } from "../onboarding/service";
import { CREATIVE_RATIOS, type CreativeRatio } from "../platform/placement-creative";
import { upstream } from "../upstream";
import { definitionOf } from "./layout";
import { checkValues, drawOverlay, layoutElement, resolveValues, valueUrlPolicy, type TemplateDefinition } from "./render";
import { composeVideo, VideoCompositionError } from "./video";
import type { z } from "zod";
import type { VideoRender, VideoRenderStarted as VideoRenderStartedSchema } from "./customer-schema";

/*
 * Video template renders run as queued jobs (the in-process queue embedded, QStash in production): the
 * request checks the values and answers 202; the job fetches the background video, composes the three
 * formats, publishes them, hands each to the ad account as a video (`file_url`) and stores their ids on
 * the creative draft. `GET /v1/templates/render/{id}` shows PROCESSING → READY or FAILED with a reason.
 */

export const VIDEO_RENDER_TOPIC = "ads-video-render";
/** Background videos for templates: fetched whole into memory by the job, so bounded well below the 4 GB uploads. */
const MAX_TEMPLATE_VIDEO_BYTES = 100 * 1024 * 1024;
/**
 * How long a job holds a render: three compositions of up to `FFMPEG_TIMEOUT_MS` each, the uploads and the
 * platform calls fit in it. A job that dies leaves the lease to expire; the sweep then publishes it again.
 */
const LEASE_MS = 20 * 60_000;
/** A render no job has taken for this long lost its queue message (a crash between insert and publish). */
const UNCLAIMED_MS = 2 * 60_000;

/** The API's `VideoRenderStarted` schema. */
export type VideoRenderStarted = z.infer<typeof VideoRenderStartedSchema>;
/** The API's `VideoRender` schema (one schema per resource). */
export type VideoRenderView = z.infer<typeof VideoRender>;

export async function startVideoRender(
  deps: AdsDeps,
  customerId: string,
  template: { id: string; name: string },
  definition: TemplateDefinition,
  params: Record<string, unknown>,
  name: string | undefined,
): Promise<VideoRenderStarted> {
  checkValues(definition, params, { useExamples: false, urls: valueUrlPolicy(deps) });
  // The job needs the ad account; an incomplete onboarding is the caller's 422 now, not a failed job later.
  await connectAdAccount(deps, customerId);
  const now = deps.clock.now();
  const creative = await deps.db.transaction(async (tx) => {
    const draft = await insertCreativeDraft(tx, customerId, { name: name ?? template.name, type: "VIDEO", templateId: template.id }, now);
    await tx.insert(adsVideoRenders).values({
      creativeId: draft.id,
      customerId,
      templateId: template.id,
      status: "PROCESSING",
      params: params as Record<string, string>,
      createdAt: now,
      updatedAt: now,
    });
    return draft;
  });
  await deps.queue.publish(VIDEO_RENDER_TOPIC, { creative_id: creative.id });
  return { id: creative.id, template: template.id, type: "VIDEO", status: "PROCESSING" };
}

function isVideoContainer(bytes: Uint8Array): boolean {
  // MP4 and MOV: an ISO base media file starts with a box whose type is `ftyp` (or an old `moov`/`mdat`/`wide`).
  const type = Buffer.from(bytes.subarray(4, 8)).toString("latin1");
  return ["ftyp", "moov", "mdat", "wide", "free"].includes(type);
}

async function fail(deps: Pick<AdsDeps, "db" | "clock">, creativeId: string, reason: string): Promise<void> {
  await deps.db
    .update(adsVideoRenders)
    .set({ status: "FAILED", reason, leasedUntil: null, updatedAt: deps.clock.now() })
    .where(and(eq(adsVideoRenders.creativeId, creativeId), eq(adsVideoRenders.status, "PROCESSING")));
}

/**
 * The job. It first takes the render's lease (a conditional update): a render that is done, or held by
 * another delivery of the same message, is left alone, so the three videos are composed and handed to the
 * platform once. An unexpected error gives the lease back and is thrown, for the queue to retry.
 */
async function runVideoRender(deps: AdsDeps, creativeId: string): Promise<void> {
  const now = deps.clock.now();
  const [render] = await deps.db
    .update(adsVideoRenders)
    .set({ leasedUntil: new Date(now.getTime() + LEASE_MS), updatedAt: now })
    .where(
      and(
        eq(adsVideoRenders.creativeId, creativeId),
        eq(adsVideoRenders.status, "PROCESSING"),
        or(isNull(adsVideoRenders.leasedUntil), lt(adsVideoRenders.leasedUntil, now)),
      ),
    )
    .returning();
  if (!render) return;
  try {
    await compose(deps, render);
  } catch (error) {
    await deps.db
      .update(adsVideoRenders)
      .set({ leasedUntil: null })
      .where(and(eq(adsVideoRenders.creativeId, creativeId), eq(adsVideoRenders.status, "PROCESSING")));
    throw error;
  }
}

async function compose(deps: AdsDeps, render: typeof adsVideoRenders.$inferSelect): Promise<void> {
  const { creativeId } = render;
  const [template] = await deps.db.select().from(adsTemplates).where(eq(adsTemplates.id, render.templateId));
  if (!template) return fail(deps, creativeId, "The template no longer exists.");
  const definition = definitionOf(template);
  try {
    const values = await resolveValues(deps, definition, render.params, { useExamples: false });
    const [videoParam, videoUrl] = [...checkValues(definition, render.params, { useExamples: false }).videoUrls][0] ?? [];
    if (!videoParam || !videoUrl) return fail(deps, creativeId, "No background video.");
    let background: Uint8Array;
    try {
      // A file we published ourselves (a rendered video, the Demo's sample) is read from the store.
      const own = await deps.blobs.readPublished(videoUrl, MAX_TEMPLATE_VIDEO_BYTES);
      if (own) background = own;
      else {
        const response = await deps.safeFetch(videoUrl, {
          maxBytes: MAX_TEMPLATE_VIDEO_BYTES,
          timeoutMs: 120_000,
          headers: { accept: "video/mp4, video/quicktime" },
        });
        if (response.status !== 200) return fail(deps, creativeId, `params.${videoParam}: the URL answered HTTP ${response.status}, not 200.`);
        background = response.body;
      }
    } catch (error) {
      const tooLarge = error instanceof UploadTooLargeError || (error instanceof OutboundError && error.reason === "too_large");
      if (tooLarge) return fail(deps, creativeId, `params.${videoParam}: the file exceeds ${MAX_TEMPLATE_VIDEO_BYTES / 1024 / 1024} MB.`);
      if (error instanceof OutboundError) return fail(deps, creativeId, `params.${videoParam}: ${error.message}.`);
      throw error;
    }
    if (!isVideoContainer(background)) return fail(deps, creativeId, `params.${videoParam}: the file is not an MP4 or MOV video (checked by its content).`);
    const account = await connectAdAccount(deps, render.customerId);
    const outputs = {} as Record<CreativeRatio, string>;
    const videoIds = {} as Record<CreativeRatio, string>;
    for (const ratio of CREATIVE_RATIOS) {
      const overlay = await drawOverlay(layoutElement(definition, values, ratio), ratio);
      const video = await composeVideo(background, overlay, ratio);
      const { url } = await deps.blobs.put(`creatives/${sha256Hex(video)}.mp4`, video, { contentType: "video/mp4", cacheControlMaxAge: 31_536_000 });
      const created = await upstream({ logger: deps.logger, customerId: render.customerId, action: "create video" }, () =>
        account.session.createVideo(account.adAccountId, url, { title: `template-${ratio.replace(":", "x")}.mp4` }),
      );
      await recordVideo(deps, account.session, {
        customerId: render.customerId,
        platformVideoId: created.id,
        status: "PROCESSING",
        title: `template-${ratio.replace(":", "x")}.mp4`,
        createdAt: deps.clock.now(),
      });
      outputs[ratio] = url;
      videoIds[ratio] = created.id;
    }
    const now = deps.clock.now();
    await deps.db.transaction(async (tx) => {
      await tx.update(adsCreatives).set({ videoIds, formats: outputs, updatedAt: now }).where(eq(adsCreatives.id, creativeId));
      await tx
        .update(adsVideoRenders)
        .set({ status: "READY", outputUrls: outputs, videoIds, reason: null, leasedUntil: null, updatedAt: now })
        .where(eq(adsVideoRenders.creativeId, creativeId));
    });
  } catch (error) {
    if (error instanceof ValidationError) {
      const detail = Array.isArray(error.details) ? error.details.map((d) => ("path" in d ? `${d.path}: ${d.message}` : "")).join("; ") : "";
      return fail(deps, creativeId, detail || error.message);
    }
    if (error instanceof VideoCompositionError) return fail(deps, creativeId, `The background video could not be composed: ${error.message}`);
    // The platform refused for good (credentials, permissions, a rule): a retry would be refused again.
    const status = error instanceof ApiError ? statusOf(error.code, "ads") : 500;
    if (status < 500 && status !== 429) return fail(deps, creativeId, `The ad platform refused the video: ${(error as ApiError).message}`);
    throw error;
  }
}

export function registerVideoRenderWorker(deps: AdsDeps): void {
  deps.queue.register(VIDEO_RENDER_TOPIC, async (body) => {
    const id = (body as { creative_id?: unknown }).creative_id;
    if (typeof id === "string") await runVideoRender(deps, id);
  });
}

/**
 * Renders whose queue message was lost (a restart of the in-process queue, a crash between insert and
 * publish, a job that died holding its lease) are published again; run at start-up and by a cron.
 */
export async function resumeVideoRenders(deps: AdsDeps): Promise<number> {
  const now = deps.clock.now();
  const stale = await deps.db
    .select({ id: adsVideoRenders.creativeId })
    .from(adsVideoRenders)
    .where(
      and(
        eq(adsVideoRenders.status, "PROCESSING"),
        or(
          and(isNull(adsVideoRenders.leasedUntil), lt(adsVideoRenders.createdAt, new Date(now.getTime() - UNCLAIMED_MS))),
          lt(adsVideoRenders.leasedUntil, now),
        ),
      ),
    );
  for (const { id } of stale) await deps.queue.publish(VIDEO_RENDER_TOPIC, { creative_id: id });
  return stale.length;
}

export async function getVideoRender(deps: Pick<AdsDeps, "db">, customerId: string, id: string): Promise<VideoRenderView> {
  const [row] = await deps.db
    .select({ render: adsVideoRenders, platformCreativeId: adsCreatives.platformCreativeId })
    .from(adsVideoRenders)
    .innerJoin(adsCreatives, eq(adsCreatives.id, adsVideoRenders.creativeId))
    .where(and(eq(adsVideoRenders.creativeId, id), eq(adsVideoRenders.customerId, customerId)));
  if (!row) throw new NotFoundError("Render");
  const { render } = row;
  const formats =
    render.outputUrls && render.videoIds
      ? (Object.fromEntries(
          CREATIVE_RATIOS.map((ratio) => [ratio, { video_id: render.videoIds?.[ratio] ?? "", output_url: render.outputUrls?.[ratio] ?? "" }]),
        ) as VideoRenderView["formats"])
      : null;
  return {
    id: render.creativeId,
    template: render.templateId,
    status: render.status,
    reason: render.reason,
    video_id: render.videoIds?.["1:1"] ?? null,
    output_url: render.outputUrls?.["1:1"] ?? null,
    formats,
    platform_creative_id: row.platformCreativeId,
  };
}

/** Why an ad cannot use a video render's creative yet: 409 while PROCESSING, 422 once FAILED. */
export async function renderNotReady(deps: Pick<AdsDeps, "db">, customerId: string, creativeId: string): Promise<Error> {
  const render = await getVideoRender(deps, customerId, creativeId);
  if (render.status === "FAILED") {
    return new ValidationError("The video render failed; render the template again.", [
      { path: "creative_id", message: `The render of this creative failed: ${render.reason ?? "no reason given"}` },
    ]);
  }
  return new ConflictError("The video render is still processing; poll GET /v1/templates/render/{id} until READY.", {
    reason: "render_processing",
    render_id: creativeId,
  });
}
