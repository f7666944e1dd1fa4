import { randomBytes } from "node:crypto";
import type { Clock } from "../../../base/clock";
import type { AdReviewFeedback, AssetFeedSpec, ConfiguredStatus, ObjectStorySpec, Targeting } from "../types";
import { SIM_DEFAULT_DISAPPROVAL, SIM_DISAPPROVE, SIM_IN_PROCESS, SIM_ISSUE, SIM_VIDEO_FAIL, SIM_WITH_ISSUES } from "./markers";

export type SimApp = { appId: string; appSecret: string };
export type SimToken = { app: SimApp; user: { id: string; name: string }; expiredSubcode?: number };
export type SimAdAccount = { id: string; name: string; currency: string; timezoneName: string; accountStatus: number; pageIds: ReadonlySet<string> | null };
export type SimImage = { accountId: string; hash: string; name: string; width: number; height: number; bytes: Buffer; contentType: string; createdMs: number };
export type SimVideo = { id: string; accountId: string; fileUrl: string; title: string; length: number; fails: boolean; createdMs: number; readyAtMs: number };
type SimAudienceSession = { lastSeq: number; closed: boolean };
export type SimAudience = {
  id: string;
  accountId: string;
  name: string;
  description: string;
  subtype: "CUSTOM" | "LOOKALIKE";
  customerFileSource?: string;
  members: Set<number>;
  sessions: Map<string, SimAudienceSession>;
  restricted: boolean;
  lookalike?: { originId: string; country: string; ratio: number; readyAtMs: number };
  createdMs: number;
  updatedMs: number;
};
export type SimCampaign = {
  id: string;
  accountId: string;
  name: string;
  objective: string;
  status: ConfiguredStatus;
  dailyBudget?: number;
  lifetimeBudget?: number;
  createdMs: number;
  updatedMs: number;
};
export type SimAdSet = {
  id: string;
  accountId: string;
  campaignId: string;
  name: string;
  status: ConfiguredStatus;
  billingEvent: string;
  optimizationGoal: string;
  targeting: Targeting;
  dailyBudget?: number;
  lifetimeBudget?: number;
  startTime?: string;
  endTime?: string;
  dsaBeneficiary?: string;
  dsaPayor?: string;
  createdMs: number;
  updatedMs: number;
};
export type SimCreative = {
  id: string;
  accountId: string;
  name: string;
  objectStorySpec: ObjectStorySpec;
  assetFeedSpec?: AssetFeedSpec;
  urlTags?: string;
  createdMs: number;
};
export type SimAd = {
  id: string;
  accountId: string;
  adsetId: string;
  creativeId: string;
  name: string;
  status: ConfiguredStatus;
  /** Review runs from here for `reviewDelayMs`; an edit of the creative starts it again. */
  reviewStartMs: number;
  disapproval?: { code: string; description: string };
  /** Post-processing (IN_PROCESS) until `endsMs`, then review, or WITH_ISSUES when it fails. */
  processing?: { endsMs: number; withIssues: boolean };
  /** The app whose token created the ad: its secret signs the ad's webhooks. */
  appId?: string;
  createdMs: number;
  updatedMs: number;
};

export type RecordedRequest = {
  method: string;
  path: string;
  query: Record<string, string>;
  form: Record<string, string>;
  receivedAt: string;
};

/** Graph's datetime format: `2026-01-15T10:00:00+0000`. */
export function graphTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "+0000");
}

export function fbtraceId(): string {
  return randomBytes(8).toString("base64url");
}

function encode(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return { $buffer: value.toString("base64") };
  if (value instanceof Set) return { $set: [...value].map(encode) };
  if (value instanceof Map) return { $map: [...value].map(([key, entry]) => [encode(key), encode(entry)]) };
  if (Array.isArray(value)) return value.map(encode);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, encode(entry)]));
  return value;
}

function decode(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decode);
  if (!value || typeof value !== "object") return value;
  const record = value as Record<string, unknown>;
  if (typeof record.$buffer === "string") return Buffer.from(record.$buffer, "base64");
  if (Array.isArray(record.$set)) return new Set(record.$set.map(decode));
  if (Array.isArray(record.$map)) return new Map((record.$map as [unknown, unknown][]).map(([key, entry]) => [decode(key), decode(entry)]));
  return Object.fromEntries(Object.entries(record).map(([key, entry]) => [key, decode(entry)]));
}

/** Every Graph object id comes from one counter, so `GET /{id}` finds any object without a type prefix. */
const FIRST_ID = 120_210_000_000_000_001n;

export class SimulatorState {
  readonly apps: SimApp[] = [];
  readonly tokens = new Map<string, SimToken>();
  readonly adAccounts = new Map<string, SimAdAccount>();
  readonly images = new Map<string, SimImage>();
  readonly videos = new Map<string, SimVideo>();
  readonly campaigns = new Map<string, SimCampaign>();
  readonly adsets = new Map<string, SimAdSet>();
  readonly creatives = new Map<string, SimCreative>();
  readonly ads = new Map<string, SimAd>();
  readonly audiences = new Map<string, SimAudience>();
  readonly requests: RecordedRequest[] = [];
  /**
   * Answer shapes a test asks for (`reshape`): fields left out of or set on an object's view, as Graph's
   * docs show some answers (a disapproved ad without `configured_status`/`status`). Cleared by a reset.
   */
  readonly shapes = new Map<string, { omit: string[]; set: Record<string, unknown> }>();
  /** Raw rows added to an ad account's insights answers (`addInsightsRows`), by account id. Cleared by a reset. */
  readonly extraInsightRows = new Map<string, Record<string, unknown>[]>();
  #nextId = FIRST_ID;
  #offsetMs = 0;

  constructor(
    private readonly clock: Clock,
    readonly timing: { reviewDelayMs: number; videoProcessingMs: number; processingDelayMs: number },
  ) {}

  now(): number {
    return this.clock.now().getTime() + this.#offsetMs;
  }

  /** Moves simulated time forward without touching the injected clock (HTTP users have no clock handle). */
  advance(ms: number): void {
    this.#offsetMs += ms;
  }

  resetTime(): void {
    this.#offsetMs = 0;
  }

  newId(): string {
    const id = this.#nextId;
    this.#nextId += 1n;
    return id.toString();
  }

  /**
   * Everything the platform would keep, as JSON (buffers base64, sets and maps as arrays): apps, tokens,
   * ad accounts, objects, the id counter and simulated time. Recorded requests are not kept.
   */
  serialize(): string {
    const stores = {
      images: this.images,
      videos: this.videos,
      campaigns: this.campaigns,
      adsets: this.adsets,
      creatives: this.creatives,
      ads: this.ads,
      audiences: this.audiences,
    };
    return JSON.stringify({
      version: 1,
      nextId: this.#nextId.toString(),
      offsetMs: this.#offsetMs,
      apps: encode(this.apps),
      tokens: encode(this.tokens),
      adAccounts: encode(this.adAccounts),
      stores: encode(stores),
    });
  }

  /** The counterpart of `serialize`: replaces what is held with the saved state. */
  restore(text: string): void {
    const saved = JSON.parse(text) as {
      version: number;
      nextId: string;
      offsetMs: number;
      apps: unknown;
      tokens: unknown;
      adAccounts: unknown;
      stores: unknown;
    };
    if (saved.version !== 1) throw new Error(`unknown simulator state version ${saved.version}`);
    this.#nextId = BigInt(saved.nextId);
    this.#offsetMs = saved.offsetMs;
    this.apps.splice(0, this.apps.length, ...(decode(saved.apps) as SimApp[]));
    const fill = <V>(target: Map<string, V>, source: unknown) => {
      target.clear();
      for (const [key, value] of decode(source) as Map<string, V>) target.set(key, value);
    };
    fill(this.tokens, saved.tokens);
    fill(this.adAccounts, saved.adAccounts);
    const stores = saved.stores as Record<string, unknown>;
    fill(this.images, stores.images);
    fill(this.videos, stores.videos);
    fill(this.campaigns, stores.campaigns);
    fill(this.adsets, stores.adsets);
    fill(this.creatives, stores.creatives);
    fill(this.ads, stores.ads);
    fill(this.audiences, stores.audiences);
  }

  /** Clears objects and recorded requests; registered apps, tokens and ad accounts stay. */
  clearObjects(): void {
    for (const store of [this.images, this.videos, this.campaigns, this.adsets, this.creatives, this.ads, this.audiences]) store.clear();
    this.requests.length = 0;
    this.shapes.clear();
    this.extraInsightRows.clear();
    for (const token of this.tokens.values()) delete token.expiredSubcode;
  }

  imageKey(accountId: string, hash: string): string {
    return `${accountId}:${hash}`;
  }

  addVideo(accountId: string, fileUrl: string, title: string): SimVideo {
    const now = this.now();
    // A stable pseudo-length per URL keeps listings deterministic across runs.
    let seed = 0;
    for (const char of fileUrl) seed = (seed * 31 + char.charCodeAt(0)) % 100_000;
    const video: SimVideo = {
      id: this.newId(),
      accountId,
      fileUrl,
      title,
      length: 5 + (seed % 5500) / 100,
      fails: fileUrl.includes(SIM_VIDEO_FAIL),
      createdMs: now,
      readyAtMs: now + this.timing.videoProcessingMs,
    };
    this.videos.set(video.id, video);
    return video;
  }

  videoStatus(video: SimVideo): Record<string, unknown> {
    const done = this.now() >= video.readyAtMs;
    const progress = done ? 100 : Math.floor(((this.now() - video.createdMs) / Math.max(1, video.readyAtMs - video.createdMs)) * 100);
    if (!done) {
      return {
        video_status: "processing",
        processing_progress: progress,
        uploading_phase: { status: "complete" },
        processing_phase: { status: "in_progress" },
        publishing_phase: { status: "not_started" },
      };
    }
    if (video.fails) {
      return {
        video_status: "error",
        processing_progress: 100,
        uploading_phase: { status: "complete" },
        processing_phase: { status: "error", errors: [{ message: "The video file could not be processed." }] },
        publishing_phase: { status: "not_started" },
      };
    }
    return {
      video_status: "ready",
      processing_progress: 100,
      uploading_phase: { status: "complete" },
      processing_phase: { status: "complete" },
      publishing_phase: { status: "complete", publish_status: "published" },
    };
  }

  /** Disapproval is decided when the creative is attached, so review outcomes do not depend on read timing. */
  disapprovalFor(creative: SimCreative): { code: string; description: string } | undefined {
    const copy = JSON.stringify([creative.name, creative.objectStorySpec, creative.assetFeedSpec ?? null]);
    const match = new RegExp(`${SIM_DISAPPROVE}(?::([A-Z][A-Z_]*))?`).exec(copy);
    if (!match) return undefined;
    return match[1] ? { code: match[1], description: `Simulated disapproval for policy ${match[1]}.` } : { ...SIM_DEFAULT_DISAPPROVAL };
  }

  /**
   * Post-processing of a new ad or a new creative, decided by markers in the copy: none means processing
   * is instant (review starts at once).
   */
  processingFor(creative: SimCreative, now: number): SimAd["processing"] {
    const copy = JSON.stringify([creative.name, creative.objectStorySpec, creative.assetFeedSpec ?? null]);
    const withIssues = copy.includes(SIM_WITH_ISSUES);
    if (!withIssues && !copy.includes(SIM_IN_PROCESS)) return undefined;
    return { endsMs: now + this.timing.processingDelayMs, withIssues };
  }

  adIssue(): typeof SIM_ISSUE {
    return SIM_ISSUE;
  }

  adSetEffectiveStatus(adset: SimAdSet): string {
    if (adset.status === "ARCHIVED" || adset.status === "DELETED") return adset.status;
    const campaign = this.campaigns.get(adset.campaignId);
    if (campaign && (campaign.status === "ARCHIVED" || campaign.status === "DELETED")) return campaign.status;
    if (adset.status === "PAUSED") return "PAUSED";
    if (campaign?.status === "PAUSED") return "CAMPAIGN_PAUSED";
    return "ACTIVE";
  }

  /**
   * Review first, then delivery: a new ad is PENDING_REVIEW for `reviewDelayMs`, then DISAPPROVED or
   * whatever its own and its parents' configured statuses give.
   */
  adEffectiveStatus(ad: SimAd): string {
    if (ad.status === "ARCHIVED" || ad.status === "DELETED") return ad.status;
    const adset = this.adsets.get(ad.adsetId);
    const parent = adset ? this.adSetEffectiveStatus(adset) : "ACTIVE";
    if (parent === "ARCHIVED" || parent === "DELETED") return parent;
    if (ad.processing && this.now() < ad.processing.endsMs) return "IN_PROCESS";
    if (ad.processing?.withIssues) return "WITH_ISSUES";
    if (this.now() < ad.reviewStartMs + this.timing.reviewDelayMs) return "PENDING_REVIEW";
    if (ad.disapproval) return "DISAPPROVED";
    if (ad.status === "PAUSED") return "PAUSED";
    if (parent === "PAUSED") return "ADSET_PAUSED";
    return parent;
  }

  adReviewFeedback(ad: SimAd): AdReviewFeedback | undefined {
    if (!ad.disapproval || this.now() < ad.reviewStartMs + this.timing.reviewDelayMs) return undefined;
    return { global: { [ad.disapproval.code]: ad.disapproval.description } };
  }

  /** All readable fields of an object, reshaped as a test asked; the router narrows them to `?fields=`. */
  view(id: string): Record<string, unknown> | undefined {
    const view = this.rawView(id);
    const shape = this.shapes.get(id);
    if (!view || !shape) return view;
    const shaped: Record<string, unknown> = { ...view, ...shape.set };
    for (const field of shape.omit) delete shaped[field];
    return shaped;
  }

  private rawView(id: string): Record<string, unknown> | undefined {
    const campaign = this.campaigns.get(id);
    if (campaign) {
      return {
        id,
        account_id: campaign.accountId,
        name: campaign.name,
        objective: campaign.objective,
        status: campaign.status,
        configured_status: campaign.status,
        effective_status: campaign.status,
        daily_budget: campaign.dailyBudget?.toString(),
        lifetime_budget: campaign.lifetimeBudget?.toString(),
        created_time: graphTime(campaign.createdMs),
        updated_time: graphTime(campaign.updatedMs),
      };
    }
    const adset = this.adsets.get(id);
    if (adset) {
      return {
        id,
        account_id: adset.accountId,
        campaign_id: adset.campaignId,
        name: adset.name,
        status: adset.status,
        configured_status: adset.status,
        effective_status: this.adSetEffectiveStatus(adset),
        billing_event: adset.billingEvent,
        optimization_goal: adset.optimizationGoal,
        targeting: adset.targeting,
        // Graph reports money as numeric strings.
        daily_budget: adset.dailyBudget?.toString(),
        lifetime_budget: adset.lifetimeBudget?.toString(),
        start_time: adset.startTime,
        end_time: adset.endTime,
        dsa_beneficiary: adset.dsaBeneficiary,
        dsa_payor: adset.dsaPayor,
        created_time: graphTime(adset.createdMs),
        updated_time: graphTime(adset.updatedMs),
      };
    }
    const creative = this.creatives.get(id);
    if (creative) {
      return {
        id,
        account_id: creative.accountId,
        name: creative.name,
        status: "ACTIVE",
        object_story_spec: creative.objectStorySpec,
        asset_feed_spec: creative.assetFeedSpec,
        url_tags: creative.urlTags,
      };
    }
    const ad = this.ads.get(id);
    if (ad) {
      const adset = this.adsets.get(ad.adsetId);
      return {
        id,
        account_id: ad.accountId,
        adset_id: ad.adsetId,
        campaign_id: adset?.campaignId,
        name: ad.name,
        creative: { id: ad.creativeId },
        status: ad.status,
        configured_status: ad.status,
        effective_status: this.adEffectiveStatus(ad),
        ad_review_feedback: this.adReviewFeedback(ad),
        // `issues_info[].error_code` is an integer on reads (post-processing docs, the 2018 WITH_ISSUES
        // post), a string in the `with_issues_ad_objects` webhook (PROVIDER-FACTS, disagreement 9).
        issues_info: ad.processing?.withIssues && this.now() >= ad.processing.endsMs ? [{ ...SIM_ISSUE, error_code: Number(SIM_ISSUE.error_code) }] : undefined,
        created_time: graphTime(ad.createdMs),
        updated_time: graphTime(ad.updatedMs),
      };
    }
    const video = this.videos.get(id);
    if (video) {
      return {
        id,
        title: video.title,
        length: video.length,
        status: this.videoStatus(video),
        created_time: graphTime(video.createdMs),
        updated_time: graphTime(video.createdMs),
      };
    }
    return undefined;
  }

  imageView(image: SimImage, baseUrl: string): Record<string, unknown> {
    return {
      id: `${image.accountId}:${image.hash}`,
      account_id: image.accountId,
      hash: image.hash,
      name: image.name,
      width: image.width,
      height: image.height,
      original_width: image.width,
      original_height: image.height,
      url: `${baseUrl}/__sim/images/${image.hash}`,
      status: "ACTIVE",
      created_time: graphTime(image.createdMs),
      updated_time: graphTime(image.createdMs),
    };
  }

  accountView(account: SimAdAccount): Record<string, unknown> {
    return {
      id: `act_${account.id}`,
      account_id: account.id,
      name: account.name,
      account_status: account.accountStatus,
      currency: account.currency,
      timezone_name: account.timezoneName,
    };
  }
}
