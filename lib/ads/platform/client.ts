import { z } from "zod";
import type { Logger } from "../../base/logger";
import type { ProviderMetrics } from "../../core/provider-metrics";
import { tracedGraphFetch, type FetchLike } from "./tracing";
import { PlatformError, classifyGraphError, platformErrorFromGraph, readGraphErrorBody, redactSecrets } from "./errors";
import {
  audienceUsersResult,
  customAudienceView,
  geoLocationResult,
  interestResult,
  type AudienceUsersBatch,
  type AudienceUsersResult,
  type CustomAudienceCreateParams,
  type CustomAudienceUpdateParams,
  type CustomAudienceView,
  type GeoLocationResult,
  type InterestResult,
  type LookalikeAudienceCreateParams,
} from "./audiences";
import { AccountThrottle, DEFAULT_PAUSE_SECONDS, readUsage } from "./throttle";
import { adAccountPath, appSecretProof, encodeGraphParams, objectPath, type GraphParamValue } from "./graph-params";
import {
  GRAPH_CONFIGURED_STATUSES,
  GRAPH_PRODUCTION_BASE_URL,
  type AdCreateParams,
  type AdCreativeCreateParams,
  type AdSetCreateParams,
  type AdSetUpdateParams,
  type AdStatusView,
  type AdUpdateParams,
  type CampaignUpdateParams,
  type PlatformCredentials,
} from "./types";

export type GraphClientOptions = {
  /** `https://graph.facebook.com/v25.0` in production; the simulator's `/v25.0` URL otherwise. */
  baseUrl?: string;
  fetch?: FetchLike;
  /** The process's provider figures (the core deps'); each call is recorded in them. */
  metrics?: ProviderMetrics;
  /** Per attempt. */
  timeoutMs?: number;
  /** Total attempts for retryable failures (rate limits, transient errors), including the first. */
  maxAttempts?: number;
  baseDelayMs?: number;
  /** A rate limit Graph says lasts longer than this is not waited out inside a request: it is thrown. */
  maxDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Per ad account pacing shared by every session of this client (and any client given the same one). */
  throttle?: AccountThrottle;
  /** Epoch milliseconds; the throttle's clock. */
  now?: () => number;
  logger?: Pick<Logger, "warn">;
};

/** Calls made with one customer's credentials. */
export type GraphSession = {
  /** The token's owner (`GET /me`): proves the token and the app secret proof are accepted. */
  verifyToken(): Promise<TokenOwner>;
  getAdAccount(account: string): Promise<AdAccountView>;
  /** An unknown id, or one outside the token's reach, is Graph's 100/33 (kind `permission`). */
  getCampaign(campaignId: string, fields?: readonly CampaignField[]): Promise<CampaignView>;
  /** `POST /{campaign_id}`: status (ACTIVE/PAUSED/ARCHIVED) and name; repeating it is harmless. */
  updateCampaign(campaignId: string, params: CampaignUpdateParams): Promise<void>;
  /** Bytes travel base64-encoded; the hash is the image's identity inside this ad account. */
  uploadImage(account: string, bytes: Uint8Array): Promise<UploadedImage>;
  listImages(account: string, filter?: { hashes?: string[] }): Promise<AdImage[]>;
  /** Graph fetches `fileUrl` itself; the video is usable once `getVideo` reports `ready`. */
  createVideo(account: string, fileUrl: string, options?: { title?: string }): Promise<{ id: string }>;
  getVideo(videoId: string): Promise<AdVideo>;
  listVideos(account: string): Promise<AdVideo[]>;
  createAdSet(account: string, params: AdSetCreateParams): Promise<{ id: string }>;
  updateAdSet(adSetId: string, params: AdSetUpdateParams): Promise<void>;
  createAdCreative(account: string, params: AdCreativeCreateParams): Promise<{ id: string }>;
  createAd(account: string, params: AdCreateParams): Promise<{ id: string }>;
  updateAd(adId: string, params: AdUpdateParams): Promise<void>;
  getAd(adId: string): Promise<AdStatusView>;
  /** Campaigns, ad sets and ads are archived, not deleted (`status=ARCHIVED`). */
  archive(objectId: string): Promise<void>;
  /**
   * `DELETE /{id}`: an ad set or ad becomes DELETED, a creative or video is removed. Only for objects
   * that were never recorded here (compensation of a failed create); repeating it is harmless.
   */
  deleteObject(objectId: string): Promise<void>;
  /** `POST /act_{id}/customaudiences` with `subtype=CUSTOM`: an empty customer-file audience. */
  createCustomAudience(account: string, params: CustomAudienceCreateParams): Promise<{ id: string }>;
  /** `POST /act_{id}/customaudiences` with `subtype=LOOKALIKE`; it populates over time. */
  createLookalikeAudience(account: string, params: LookalikeAudienceCreateParams): Promise<{ id: string }>;
  getCustomAudience(audienceId: string): Promise<CustomAudienceView>;
  updateCustomAudience(audienceId: string, params: CustomAudienceUpdateParams): Promise<void>;
  /** Audiences are deleted for real (`DELETE /{id}`), unlike ads. */
  deleteCustomAudience(audienceId: string): Promise<void>;
  /** One batch of an upload session: `POST /{id}/users` adds, `DELETE /{id}/users` removes. */
  audienceUsers(audienceId: string, operation: "add" | "remove", batch: AudienceUsersBatch): Promise<AudienceUsersResult>;
  /** `GET /search?type=adgeolocation&location_types=["city"]`. */
  searchCities(query: string, options: { countryCode?: string; limit: number }): Promise<GeoLocationResult[]>;
  /** `GET /search?type=adinterest`. */
  searchInterests(query: string, options: { limit: number }): Promise<InterestResult[]>;
  /**
   * Status of up to `MAX_IDS_PER_READ` ads in one call (`GET /?ids=…&fields=…`), keyed by ad id. Graph
   * refuses the whole call (code 100) when one id is unknown or out of reach.
   */
  getAds(adIds: readonly string[]): Promise<Map<string, AdStatusView>>;
  /**
   * `GET /act_{id}/insights` with `level=ad`, `time_increment=1`: one row per ad, day and breakdown value
   * in `[since, until]` (days of the account's time zone), every page followed.
   */
  getDailyAdInsights(account: string, query: { since: string; until: string; breakdowns: readonly string[] }): Promise<DailyAdInsight[]>;
};

/** Graph's limit of ids in one `?ids=` read. */
export const MAX_IDS_PER_READ = 50;

/** One Graph insights row as sent (numbers as strings, G5); breakdown values stay under their Graph names. */
export type DailyAdInsight = z.output<typeof dailyAdInsight>;

/** Insights rows per page: Graph pages insights like any edge; a large page keeps the call count low. */
const INSIGHTS_PAGE = 500;
/** A safety bound against cursor loops: 2,000 pages of 500 rows. */
const INSIGHTS_MAX_PAGES = 2_000;

/** What a session tells its owner about, besides answering or throwing. */
type SessionHooks = {
  /**
   * Graph refused the access token (code 190: expired, revoked, password changed). Awaited before the
   * error is thrown, so the owner can record it first; its own failure is logged and never replaces the
   * platform error.
   */
  onTokenRejected?(error: PlatformError): Promise<void>;
};

/**
 * Whose rate-limit budget a session spends: Graph limits per ad account, so the throttle keys on it.
 * Sessions without one (a token check before onboarding) share the key of their token's app secret proof.
 */
type SessionScope = { adAccountId?: string };

export type GraphClient = {
  connect(credentials: PlatformCredentials, hooks?: SessionHooks, scope?: SessionScope): GraphSession;
  /** Insights rows left out since the client was made because they could not be used (e.g. another level's rows). */
  skippedInsightRows(): number;
};

/** What `getCampaign` reads when no fields are given. */
const CAMPAIGN_FIELDS: readonly CampaignField[] = [
  "name",
  "account_id",
  "objective",
  "status",
  "configured_status",
  "effective_status",
  "daily_budget",
  "lifetime_budget",
];

/**
 * Every `fields=` list the client sends, by the Graph object it reads (the official SDK's class name), in
 * one place: a test checks each name against the SDK's object definitions.
 */
export const GRAPH_READ_FIELDS = {
  User: ["id", "name"],
  AdAccount: ["id", "account_id", "name", "account_status", "currency", "timezone_name"],
  Campaign: CAMPAIGN_FIELDS,
  AdImage: ["hash", "url", "width", "height", "name", "created_time"],
  AdVideo: ["id", "status", "title", "length", "created_time"],
  /** An ad's status read, singly or batched. */
  Ad: ["id", "effective_status", "configured_status", "status", "ad_review_feedback", "issues_info"],
  CustomAudience: [
    "id",
    "name",
    "description",
    "subtype",
    "approximate_count_lower_bound",
    "approximate_count_upper_bound",
    "operation_status",
    "delivery_status",
  ],
  AdsInsights: ["ad_id", "adset_id", "impressions", "reach", "clicks", "spend", "actions", "action_values"],
} as const satisfies Record<string, readonly string[]>;

const AD_STATUS_FIELDS = GRAPH_READ_FIELDS.Ad.join(",");

/** Code 190 is the token itself; 102/104 (session key, no token) are our own bugs and not recorded. */
const TOKEN_REJECTED_CODE = 190;

const idResponse = z.object({ id: z.union([z.string(), z.number()]).transform(String) });
const successResponse = z.object({ success: z.union([z.boolean(), z.literal("true")]) });
const tokenOwner = z.object({ id: z.string(), name: z.string().default("") });
const adAccount = z.object({
  id: z.string(),
  account_id: z.string(),
  name: z.string(),
  account_status: z.number(),
  currency: z.string().optional(),
  timezone_name: z.string().optional(),
});
const uploadedImage = z.object({ hash: z.string(), url: z.string().default("") });
const uploadedImages = z.object({ images: z.record(z.string(), uploadedImage) });
/** `created_time` is null when Graph leaves it out. */
const adImage = z.object({
  hash: z.string(),
  url: z.string().default(""),
  width: z.number().default(0),
  height: z.number().default(0),
  name: z.string().default(""),
  created_time: z
    .string()
    .nullish()
    .transform((time) => time ?? null),
});
/** `status.video_status` is `ready`, `processing`, `error` or `expired` (an upload session that ran out); `created_time` is null when Graph leaves it out. */
const adVideo = z.object({
  id: z.string(),
  status: z.looseObject({ video_status: z.string(), processing_progress: z.number().optional() }),
  title: z.string().optional(),
  length: z.number().optional(),
  created_time: z
    .string()
    .nullish()
    .transform((time) => time ?? null),
});
const configuredStatus = z.enum(GRAPH_CONFIGURED_STATUSES);
/**
 * A campaign as `GET /{campaign_id}?fields=…` answers it: only the requested fields (and `id`) are present.
 * Budgets are numeric strings in minor units and appear only on a campaign that holds the budget itself
 * (campaign budget optimisation), whose ad sets then cannot carry their own.
 */
const campaign = z.object({
  id: z.union([z.string(), z.number()]).transform(String),
  name: z.string().optional(),
  account_id: z.union([z.string(), z.number()]).transform(String).optional(),
  objective: z.string().optional(),
  status: configuredStatus.optional(),
  configured_status: configuredStatus.optional(),
  effective_status: z.string().optional(),
  daily_budget: z.union([z.string(), z.number()]).transform(String).optional(),
  lifetime_budget: z.union([z.string(), z.number()]).transform(String).optional(),
  created_time: z.string().optional(),
  updated_time: z.string().optional(),
});
/** What the client answers is what its schemas parse, so a field read from Graph cannot be missing from the type. */
type TokenOwner = z.output<typeof tokenOwner>;
type AdAccountView = z.output<typeof adAccount>;
type UploadedImage = z.output<typeof uploadedImage>;
type AdImage = z.output<typeof adImage>;
export type AdVideo = z.output<typeof adVideo>;
type CampaignView = z.output<typeof campaign>;
export type CampaignField = Exclude<keyof CampaignView, "id">;
/**
 * Graph leaves out fields it has no value for. An ad's configured status is `configured_status`, else
 * `status` (the same value under its older name), else an `effective_status` that is one of them; the
 * effective status falls back to the configured one. An answer with neither (a DISAPPROVED ad as Meta's
 * docs show it: `id`, `effective_status`, `ad_review_feedback`) is still an answer: its configured status
 * is unknown (`undefined`) and the stored one stays. Only an answer with no status at all is unusable.
 */
const adStatus = z
  .object({
    id: z.union([z.string(), z.number()]).transform(String),
    status: configuredStatus.optional().catch(undefined),
    configured_status: configuredStatus.optional().catch(undefined),
    effective_status: z.string().optional(),
    ad_review_feedback: z
      .object({
        global: z.record(z.string(), z.string()).optional(),
        placement_specific: z.record(z.string(), z.record(z.string(), z.string())).optional(),
      })
      .optional()
      .catch(undefined),
    issues_info: z
      .array(
        z.looseObject({
          level: z.string().optional(),
          error_code: z.union([z.string(), z.number()]).transform(String).optional(),
          error_summary: z.string().optional(),
          error_message: z.string().optional(),
        }),
      )
      .optional()
      .catch(undefined),
  })
  .transform(({ id, status, configured_status, effective_status, ad_review_feedback, issues_info }, ctx) => {
    const fromEffective = configuredStatus.safeParse(effective_status);
    const configured = configured_status ?? status ?? (fromEffective.success ? fromEffective.data : undefined);
    const effective = effective_status ?? configured;
    if (!effective) {
      ctx.addIssue({ code: "custom", message: "an ad without configured_status, status or effective_status" });
      return z.NEVER;
    }
    const view: AdStatusView = { id, effective_status: effective };
    if (configured) view.configured_status = configured;
    if (ad_review_feedback) view.ad_review_feedback = ad_review_feedback;
    if (issues_info)
      view.issues_info = issues_info.map(({ level, error_code, error_summary, error_message }) => ({ level, error_code, error_summary, error_message }));
    return view;
  });
const actionStats = z.array(z.object({ action_type: z.string(), value: z.union([z.string(), z.number()]).transform(String) })).optional();
const metric = z.union([z.string(), z.number()]).transform(String).optional();
const dailyAdInsight = z.looseObject({
  ad_id: z.union([z.string(), z.number()]).transform(String),
  adset_id: z.union([z.string(), z.number()]).transform(String).optional(),
  date_start: z.string(),
  date_stop: z.string(),
  impressions: metric,
  reach: metric,
  clicks: metric,
  spend: metric,
  actions: actionStats,
  action_values: actionStats,
});
/** A page whose items are checked one by one later: an unusable item never fails the page. */
const loosePage = z.object({
  data: z.array(z.unknown()),
  paging: z.object({ cursors: z.object({ after: z.string().optional() }).optional(), next: z.string().optional() }).optional(),
});
const page = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    paging: z.object({ cursors: z.object({ after: z.string().optional() }).optional(), next: z.string().optional() }).optional(),
  });

type CallSpec = {
  method: "GET" | "POST" | "DELETE";
  path: string;
  params?: Record<string, GraphParamValue>;
  /**
   * Whether repeating the call after a lost response is harmless. A create that timed out may exist
   * upstream; repeating it could make a second ad set or ad, so it is never repeated blind.
   */
  idempotent: boolean;
};

/** Error codes of a connection that never reached Graph: repeating is safe for any call. */
const NOT_SENT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN"]);

function networkFailureCode(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const cause: unknown = error.cause;
  if (cause && typeof cause === "object" && "code" in cause && typeof cause.code === "string") return cause.code;
  return undefined;
}

/**
 * The highest share (percent) of a rate-limit budget Graph reports in the usage headers of an answer:
 * `X-Business-Use-Case-Usage` (`call_count`, `total_cputime`, `total_time` per business object),
 * `X-Ad-Account-Usage` (`acc_id_util_pct`) and `X-App-Usage`; undefined when none is sent or readable.
 */
export function usagePercent(headers: Headers): number | undefined {
  return readUsage(headers).percent;
}

/** Insights pulls pause here (percent of a rate-limit budget used) instead of running into the limit. */
const INSIGHTS_USAGE_PAUSE_PERCENT = 90;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createGraphClient(options: GraphClientOptions = {}): GraphClient {
  const baseUrl = (options.baseUrl ?? GRAPH_PRODUCTION_BASE_URL).replace(/\/+$/, "");
  const doFetch: FetchLike = tracedGraphFetch(options.fetch ?? ((input, init) => fetch(input, init)), options.metrics);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxAttempts = Math.max(1, options.maxAttempts ?? 3);
  const baseDelayMs = options.baseDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 10_000;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const throttle = options.throttle ?? new AccountThrottle();
  const now = options.now ?? Date.now;
  let skippedInsightRows = 0;

  /** Exponential backoff with "equal jitter": half fixed, half random, so retries never bunch up at zero. */
  const backoff = (attempt: number) => {
    const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
    return Math.round(ceiling / 2 + random() * (ceiling / 2));
  };

  function connect(credentials: PlatformCredentials, hooks: SessionHooks = {}, scope: SessionScope = {}): GraphSession {
    const secrets = [credentials.accessToken, credentials.appSecret];
    const proof = appSecretProof(credentials.accessToken, credentials.appSecret);
    const account = scope.adAccountId ? `act_${scope.adAccountId.replace(/^act_/, "")}` : `proof:${proof.slice(0, 16)}`;

    async function attempt(spec: CallSpec): Promise<unknown> {
      const params = encodeGraphParams({ ...spec.params, access_token: credentials.accessToken, appsecret_proof: proof });
      const url = spec.method === "GET" ? `${baseUrl}/${spec.path}?${params.toString()}` : `${baseUrl}/${spec.path}`;
      const init: RequestInit = { method: spec.method, signal: AbortSignal.timeout(timeoutMs), headers: { accept: "application/json" } };
      if (spec.method !== "GET") {
        init.body = params.toString();
        init.headers = { accept: "application/json", "content-type": "application/x-www-form-urlencoded" };
      }

      let response: Response;
      try {
        response = await doFetch(url, init);
      } catch (error) {
        // The URL (token in the query) and the raw cause never reach the error: only a neutral message.
        const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
        const notSent = NOT_SENT_CODES.has(networkFailureCode(error) ?? "");
        throw new PlatformError({
          kind: "transient",
          message: timedOut ? `Graph API did not answer within ${timeoutMs} ms` : "Graph API could not be reached",
          outcomeUnknown: !spec.idempotent && !notSent,
        });
      }

      const usage = readUsage(response.headers);
      const text = await response.text();
      let body: unknown;
      try {
        body = text ? (JSON.parse(text) as unknown) : undefined;
      } catch {
        body = undefined;
      }
      const graphError = readGraphErrorBody(body);
      // A refusal holds the account through `refused` (Graph's estimate or the retry's backoff); the usage
      // of any other answer paces the account's next calls.
      if (!graphError || classifyGraphError(graphError.code, graphError.error_subcode, graphError.is_transient === true) !== "rate_limited")
        throttle.observe(account, usage, now());
      if (graphError) {
        throw platformErrorFromGraph(graphError, {
          httpStatus: response.status,
          retryAfterSeconds: usage.regainSeconds ?? usage.resetSeconds,
          redact: secrets,
        });
      }
      if (!response.ok || body === undefined) {
        // A bodyless 5xx may come from a proxy after Graph did the work: a create is not repeated blind.
        throw new PlatformError({
          kind: response.status >= 500 ? "transient" : "unknown",
          message: `Graph API answered HTTP ${response.status} without a readable body`,
          httpStatus: response.status,
          outcomeUnknown: response.status >= 500 && !spec.idempotent,
        });
      }
      return body;
    }

    async function reportRejectedToken(error: PlatformError): Promise<void> {
      if (!hooks.onTokenRejected) return;
      try {
        await hooks.onTokenRejected(error);
      } catch (hookError) {
        options.logger?.warn("recording a rejected access token failed", {
          code: error.code,
          subcode: error.subcode,
          error: hookError instanceof Error ? hookError.message : String(hookError),
        });
      }
    }

    /**
     * Waits while the account is paused for a short while; a longer pause is not waited out inside a
     * call: it is thrown as a rate limit without calling Graph, with the time it ends.
     */
    async function admit(): Promise<void> {
      const asOf = now();
      const waitMs = throttle.waitMs(account, asOf);
      if (waitMs <= 0) return;
      if (waitMs <= maxDelayMs) {
        await sleep(waitMs);
        throttle.served(account, asOf, waitMs);
        return;
      }
      throw new PlatformError({
        kind: "rate_limited",
        message: `calls for this ad account are paused for ${Math.ceil(waitMs / 1000)} s: the platform reported its rate-limit budget spent or nearly spent`,
        retryAfterSeconds: Math.ceil(waitMs / 1000),
      });
    }

    async function call(spec: CallSpec): Promise<unknown> {
      for (let attemptNo = 1; ; attemptNo++) {
        await admit();
        try {
          return await attempt(spec);
        } catch (error) {
          if (error instanceof PlatformError && error.code === TOKEN_REJECTED_CODE) await reportRejectedToken(error);
          if (error instanceof PlatformError && error.kind === "rate_limited") {
            // The whole account waits, not just this call: Graph's estimate, else the retry's backoff, and a
            // minute once the retries are spent.
            const exhausted = attemptNo >= maxAttempts || error.outcomeUnknown;
            const seconds = error.retryAfterSeconds ?? (exhausted ? DEFAULT_PAUSE_SECONDS : backoff(attemptNo) / 1000);
            throttle.refused(account, seconds, now());
            if (exhausted || seconds * 1000 > maxDelayMs) throw error;
            options.logger?.warn("graph call rate limited; the ad account waits", {
              path: spec.path,
              code: error.code,
              subcode: error.subcode,
              fbtrace_id: error.fbtraceId,
              attempt: attemptNo,
              delay_ms: Math.round(seconds * 1000),
            });
            continue;
          }
          if (!(error instanceof PlatformError) || !error.retryable || error.outcomeUnknown || attemptNo >= maxAttempts) throw error;
          const delayMs = backoff(attemptNo);
          options.logger?.warn("graph call retried", {
            path: spec.path,
            kind: error.kind,
            code: error.code,
            subcode: error.subcode,
            fbtrace_id: error.fbtraceId,
            attempt: attemptNo,
            delay_ms: delayMs,
          });
          await sleep(delayMs);
        }
      }
    }

    async function parsed<T extends z.ZodType>(schema: T, spec: CallSpec): Promise<z.output<T>> {
      const body = await call(spec);
      const result = schema.safeParse(body);
      if (!result.success) {
        throw new PlatformError({
          kind: "unknown",
          message: redactSecrets(`Graph API answered ${spec.path.split("/").pop() ?? ""} with an unexpected shape`, secrets),
        });
      }
      return result.data;
    }

    /** Follows `paging.cursors.after` while Graph says there is a next page; bounded against cursor loops. */
    async function collect<T extends z.ZodType>(item: T, path: string, params: Record<string, GraphParamValue>): Promise<z.output<T>[]> {
      const out: z.output<T>[] = [];
      let after: string | undefined;
      for (let pageNo = 0; pageNo < 100; pageNo++) {
        const result = await parsed(page(item), { method: "GET", path, params: { ...params, limit: 100, after }, idempotent: true });
        out.push(...result.data);
        after = result.paging?.cursors?.after;
        if (!result.paging?.next || !after) break;
      }
      return out;
    }

    const update = async (id: string, params: Record<string, GraphParamValue>) => {
      await parsed(successResponse, { method: "POST", path: objectPath(id), params, idempotent: true });
    };

    return {
      verifyToken: () => parsed(tokenOwner, { method: "GET", path: "me", params: { fields: GRAPH_READ_FIELDS.User.join(",") }, idempotent: true }),

      getAdAccount: (account) =>
        parsed(adAccount, {
          method: "GET",
          path: adAccountPath(account),
          params: { fields: GRAPH_READ_FIELDS.AdAccount.join(",") },
          idempotent: true,
        }),

      getCampaign: (campaignId, fields = CAMPAIGN_FIELDS) =>
        parsed(campaign, { method: "GET", path: objectPath(campaignId), params: { fields: fields.join(",") }, idempotent: true }),

      updateCampaign: (campaignId, params) => update(campaignId, params),

      async uploadImage(account, bytes) {
        // Same bytes give the same hash, so a repeated upload is harmless.
        const result = await parsed(uploadedImages, {
          method: "POST",
          path: `${adAccountPath(account)}/adimages`,
          params: { bytes: Buffer.from(bytes).toString("base64") },
          idempotent: true,
        });
        // A `bytes=` upload is keyed "bytes" (G3); fall back to the only entry should Graph key it otherwise.
        const entry = result.images.bytes ?? Object.values(result.images)[0];
        if (!entry) throw new PlatformError({ kind: "unknown", message: "Graph API answered the image upload without an image" });
        return { hash: entry.hash, url: entry.url };
      },

      listImages: (account, filter = {}) =>
        collect(adImage, `${adAccountPath(account)}/adimages`, {
          fields: GRAPH_READ_FIELDS.AdImage.join(","),
          hashes: filter.hashes && filter.hashes.length > 0 ? filter.hashes : undefined,
        }),

      createVideo: (account, fileUrl, videoOptions = {}) =>
        parsed(idResponse, {
          method: "POST",
          path: `${adAccountPath(account)}/advideos`,
          params: { file_url: fileUrl, title: videoOptions.title },
          idempotent: false,
        }),

      getVideo: (videoId) =>
        parsed(adVideo, { method: "GET", path: objectPath(videoId), params: { fields: GRAPH_READ_FIELDS.AdVideo.join(",") }, idempotent: true }),

      listVideos: (account) => collect(adVideo, `${adAccountPath(account)}/advideos`, { fields: GRAPH_READ_FIELDS.AdVideo.join(",") }),

      createAdSet: (account, params) => parsed(idResponse, { method: "POST", path: `${adAccountPath(account)}/adsets`, params, idempotent: false }),

      updateAdSet: (adSetId, params) => update(adSetId, params),

      createAdCreative: (account, params) => parsed(idResponse, { method: "POST", path: `${adAccountPath(account)}/adcreatives`, params, idempotent: false }),

      createAd: (account, params) => parsed(idResponse, { method: "POST", path: `${adAccountPath(account)}/ads`, params, idempotent: false }),

      updateAd: (adId, params) => update(adId, params),

      getAd: (adId) => parsed(adStatus, { method: "GET", path: objectPath(adId), params: { fields: AD_STATUS_FIELDS }, idempotent: true }),

      archive: (objectId) => update(objectId, { status: "ARCHIVED" }),

      async deleteObject(objectId) {
        await parsed(successResponse, { method: "DELETE", path: objectPath(objectId), idempotent: true });
      },

      createCustomAudience: (account, params) =>
        parsed(idResponse, { method: "POST", path: `${adAccountPath(account)}/customaudiences`, params, idempotent: false }),

      createLookalikeAudience: (account, params) =>
        parsed(idResponse, { method: "POST", path: `${adAccountPath(account)}/customaudiences`, params, idempotent: false }),

      getCustomAudience: (audienceId) =>
        parsed(customAudienceView, {
          method: "GET",
          path: objectPath(audienceId),
          params: { fields: GRAPH_READ_FIELDS.CustomAudience.join(",") },
          idempotent: true,
        }),

      updateCustomAudience: (audienceId, params) => update(audienceId, params),

      async deleteCustomAudience(audienceId) {
        await parsed(successResponse, { method: "DELETE", path: objectPath(audienceId), idempotent: true });
      },

      // Adding or removing the same hashed rows twice leaves the same membership, so a lost answer may be repeated.
      audienceUsers: (audienceId, operation, batch) =>
        parsed(audienceUsersResult, {
          method: operation === "add" ? "POST" : "DELETE",
          path: `${objectPath(audienceId)}/users`,
          params: { payload: { schema: batch.schema, data: batch.data }, session: batch.session },
          idempotent: true,
        }),

      searchCities: async (query, searchOptions) =>
        (
          await parsed(page(geoLocationResult), {
            method: "GET",
            path: "search",
            params: { type: "adgeolocation", location_types: ["city"], q: query, country_code: searchOptions.countryCode, limit: searchOptions.limit },
            idempotent: true,
          })
        ).data,

      searchInterests: async (query, searchOptions) =>
        (
          await parsed(page(interestResult), {
            method: "GET",
            path: "search",
            params: { type: "adinterest", q: query, limit: searchOptions.limit },
            idempotent: true,
          })
        ).data,

      async getAds(adIds) {
        if (adIds.length === 0) return new Map();
        if (adIds.length > MAX_IDS_PER_READ) throw new RangeError(`at most ${MAX_IDS_PER_READ} ids per read`);
        const ids = adIds.map(objectPath).join(",");
        const result = await parsed(z.record(z.string(), z.unknown()), {
          method: "GET",
          path: "",
          params: { ids, fields: AD_STATUS_FIELDS },
          idempotent: true,
        });
        // Item by item: an answer we cannot use is logged with its id and left out (the caller sees it
        // missing), never the reason the other ads of the batch go unread.
        const views = new Map<string, AdStatusView>();
        for (const [id, item] of Object.entries(result)) {
          const view = adStatus.safeParse(item);
          if (view.success) views.set(id, view.data);
          else options.logger?.warn("graph ad status answer unusable; skipped", { ad_id: id, issue: view.error.issues[0]?.message });
        }
        return views;
      },

      async getDailyAdInsights(account, query) {
        const out: DailyAdInsight[] = [];
        let after: string | undefined;
        for (let pageNo = 0; pageNo < INSIGHTS_MAX_PAGES; pageNo++) {
          // A background pull stops short of the limit Graph reports nearing, so customers' own calls keep working.
          const used = throttle.usagePercent(account);
          if (pageNo > 0 && used !== undefined && used >= INSIGHTS_USAGE_PAUSE_PERCENT) {
            throw new PlatformError({
              kind: "rate_limited",
              message: `Graph reports ${used} % of the rate-limit budget used; the insights pull pauses`,
              retryAfterSeconds: Math.max(DEFAULT_PAUSE_SECONDS, Math.ceil(throttle.waitMs(account, now()) / 1000)),
            });
          }
          const result = await parsed(loosePage, {
            method: "GET",
            path: `${adAccountPath(account)}/insights`,
            params: {
              level: "ad",
              time_increment: 1,
              time_range: { since: query.since, until: query.until },
              fields: GRAPH_READ_FIELDS.AdsInsights.join(","),
              breakdowns: query.breakdowns.length > 0 ? query.breakdowns.join(",") : undefined,
              limit: INSIGHTS_PAGE,
              after,
            },
            idempotent: true,
          });
          // Row by row: a row at another level than asked (a campaign row without `ad_id`) or otherwise
          // unusable is counted and logged, never the reason the page is refused.
          let skipped = 0;
          const sample: Record<string, unknown>[] = [];
          for (const item of result.data) {
            const row = dailyAdInsight.safeParse(item);
            if (row.success) {
              out.push(row.data);
              continue;
            }
            skipped += 1;
            if (sample.length < 3 && item && typeof item === "object") {
              const { campaign_id, adset_id, ad_id, date_start } = item as Record<string, unknown>;
              sample.push({ campaign_id, adset_id, ad_id, date_start });
            }
          }
          if (skipped > 0) {
            skippedInsightRows += skipped;
            options.logger?.warn("graph insights rows unusable; skipped", { path: adAccountPath(account), skipped, sample });
          }
          after = result.paging?.cursors?.after;
          if (!result.paging?.next || !after) break;
        }
        return out;
      },
    };
  }

  return { connect, skippedInsightRows: () => skippedInsightRows };
}
