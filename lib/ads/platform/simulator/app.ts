import { createHash } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { Hono } from "hono";
import sharp from "sharp";
import { systemClock, type Clock } from "../../../base/clock";
import type { Logger } from "../../../base/logger";
import { safeEqual } from "../../../core/secrets";
import { appSecretProof } from "../graph-params";
import { GRAPH_API_VERSION } from "../types";
import {
  adAccountUsage,
  businessUseCaseUsage,
  GraphFault,
  throttled,
  type UseCaseType,
  deprecatedVersion,
  injectedFault,
  invalidParameter,
  invalidProof,
  invalidToken,
  missingProof,
  missingToken,
  parameterCheck,
  unknownPath,
  unsupportedRequest,
  type InjectedFaultSpec,
} from "./graph-faults";
import { createSimAudiences } from "./audiences";
import { registerControlRoutes } from "./control-routes";
import type { GraphSimulatorControls, SimAdAccountOptions, SimAppOptions, SimCampaignOptions } from "./controls";

// libvips's operation cache is native and process-wide: off, as everywhere sharp is loaded (lib/core/sharp.ts).
sharp.cache(false);

export type { GraphSimulatorControls } from "./controls";
import { catalogueCityCountries, targetingSearch } from "./targeting-search";
import { readMany } from "./batch-read";
import { SimWebhooks } from "./webhooks";
import { createInsightsEndpoint } from "./insights";
import { SimulatorState, fbtraceId, graphTime, type SimAdAccount, type SimToken } from "./state";
import {
  applyAdSetUpdate,
  checkStatusUpdate,
  required,
  validateAdCreate,
  validateAdSetCreate,
  validateCreativeCreate,
  type AdSetRules,
  type Params,
} from "./validation";

export type GraphSimulatorOptions = {
  apps?: SimAppOptions[];
  adAccounts?: SimAdAccountOptions[];
  clock?: Clock;
  /** How long a new ad stays PENDING_REVIEW. */
  reviewDelayMs?: number;
  /** How long an ad with `SIM_IN_PROCESS`/`SIM_WITH_ISSUES` in its copy stays IN_PROCESS (default 5 s). */
  processingDelayMs?: number;
  /** How long a video stays `processing`. */
  videoProcessingMs?: number;
  /** How long a new lookalike audience stays populating (operation status 441). */
  lookalikeBuildMs?: number;
  /** The app setting "Require App Secret"; on by default because the service always sends the proof. */
  requireAppSecretProof?: boolean;
  /** Minimum daily budget in minor units (cents). */
  minDailyBudget?: number;
  /** Country of city/region keys used in `geo_locations` (Graph's targeting spec carries only the key). */
  cityCountries?: Record<string, string>;
  /** Told about simulator bugs, which callers only see as Graph's opaque code 1. */
  logger?: Pick<Logger, "error">;
  /**
   * Where the simulator keeps its state across restarts (embedded `npm start`: in the data directory), as
   * the platform would: objects made before a restart still exist and new ids never repeat old ones.
   */
  stateFile?: string;
};

export type GraphSimulator = {
  app: Hono;
  /** Writes the state file now (no-op without one); called on close. */
  persist(): void;
  /** Global-fetch compatible, for in-process use: `createGraphClient({ fetch: simulator.fetch, baseUrl })`. */
  fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;
  controls: GraphSimulatorControls;
};

type SimBudget = { limit: number; windowMs: number; code?: number; subcode?: number; calls: number[]; refused: number };

type Injection = { remaining: number; spec: InjectedFaultSpec; match?: { method?: string; path?: string } };

const accountIdOf = (id: string) => (id.startsWith("act_") ? id.slice(4) : id);
const AUTH_PARAMS = new Set(["access_token", "appsecret_proof"]);
const MAX_PAGE = 500;

/** Top-level names of a `fields` parameter: `creative{id,name},status` -> creative, status. */
function requestedFields(raw: string | undefined): string[] | undefined {
  if (!raw) return undefined;
  const names: string[] = [];
  let depth = 0;
  let current = "";
  for (const char of raw) {
    if (char === "{") depth++;
    if (char === "}") depth--;
    if (char === "," && depth === 0) {
      names.push(current);
      current = "";
    } else if (depth === 0 && char !== "}") current += char;
  }
  names.push(current);
  return names.map((name) => name.trim().split(".")[0] ?? "").filter((name) => name !== "");
}

/** Graph answers only the requested fields (and `id`), leaving out fields without a value. */
function select(view: Record<string, unknown>, fields: string[] | undefined): Record<string, unknown> {
  const wanted = fields ?? ["id", "name"];
  const out: Record<string, unknown> = {};
  for (const name of ["id", ...wanted]) if (view[name] !== undefined) out[name] = view[name];
  return out;
}

function cursor(index: number): string {
  return Buffer.from(String(index)).toString("base64url");
}

function paged(items: Record<string, unknown>[], params: Params, fields: string[] | undefined, requestUrl: URL) {
  const limit = Math.min(MAX_PAGE, Math.max(1, Number(params.limit) || 25));
  const start = params.after ? Number(Buffer.from(params.after, "base64url").toString()) + 1 || 0 : 0;
  const slice = items.slice(start, start + limit);
  if (slice.length === 0) return { data: [] };
  const last = start + slice.length - 1;
  const paging: Record<string, unknown> = { cursors: { before: cursor(start), after: cursor(last) } };
  if (last + 1 < items.length) {
    const next = new URL(requestUrl);
    next.searchParams.set("after", cursor(last));
    paging.next = next.toString();
  }
  return { data: slice.map((item) => select(item, fields)), paging };
}

async function readParams(request: Request, url: URL): Promise<{ params: Params; files: File[] }> {
  const params: Params = Object.fromEntries(url.searchParams);
  const files: File[] = [];
  if (request.method === "GET" || request.method === "HEAD") return { params, files };
  const type = request.headers.get("content-type") ?? "";
  if (type.includes("application/json")) {
    const body: unknown = await request.json().catch(() => null);
    if (body && typeof body === "object" && !Array.isArray(body)) {
      for (const [key, value] of Object.entries(body)) params[key] = typeof value === "string" ? value : JSON.stringify(value);
    }
  } else if (type.includes("multipart/form-data")) {
    (await request.formData()).forEach((value, key) => {
      if (typeof value === "string") params[key] = value;
      else files.push(value);
    });
  } else {
    // URLSearchParams keeps each value byte-exact, which the request log promises to show.
    for (const [key, value] of new URLSearchParams(await request.text())) params[key] = value;
  }
  return { params, files };
}

export function createGraphSimulator(options: GraphSimulatorOptions = {}): GraphSimulator {
  const state = new SimulatorState(options.clock ?? systemClock, {
    reviewDelayMs: options.reviewDelayMs ?? 30_000,
    videoProcessingMs: options.videoProcessingMs ?? 5_000,
    processingDelayMs: options.processingDelayMs ?? 5_000,
  });
  const requireProof = options.requireAppSecretProof ?? true;
  const rules: AdSetRules = {
    minDailyBudget: options.minDailyBudget ?? 100,
    geo: { cityCountries: new Map([...catalogueCityCountries(), ...Object.entries(options.cityCountries ?? {})]) },
  };
  const audiences = createSimAudiences(state, { lookalikeBuildMs: options.lookalikeBuildMs ?? 30 * 60_000 });
  const logger = options.logger ?? {
    error: (message: string, fields?: Record<string, unknown>) => process.stderr.write(`${message} ${JSON.stringify(fields)}\n`),
  };
  const injections: Injection[] = [];
  const webhooks = new SimWebhooks(state, logger);
  // Real time passes too (not only `advance`): due notifications go out within a second.
  setInterval(() => void webhooks.flush(), 1000).unref();
  const accountInsights = createInsightsEndpoint(state);
  const registeredAccounts: SimAdAccountOptions[] = [];
  let latencyMs = 0;

  function addCampaign(accountId: string, campaign: SimCampaignOptions = {}): string {
    const now = state.now();
    const id = campaign.id ?? state.newId();
    state.campaigns.set(id, {
      id,
      accountId: accountIdOf(accountId),
      name: campaign.name ?? `Campaign ${id}`,
      objective: campaign.objective ?? "OUTCOME_TRAFFIC",
      status: campaign.status ?? "ACTIVE",
      dailyBudget: campaign.dailyBudget,
      lifetimeBudget: campaign.lifetimeBudget,
      createdMs: now,
      updatedMs: now,
    });
    return id;
  }

  function addAdAccount(account: SimAdAccountOptions): void {
    const id = accountIdOf(account.id);
    state.adAccounts.set(id, {
      id,
      name: account.name ?? `Ad account ${id}`,
      currency: account.currency ?? "EUR",
      timezoneName: account.timezoneName ?? "Europe/Berlin",
      accountStatus: 1,
      pageIds: account.pageIds ? new Set(account.pageIds) : null,
    });
    registeredAccounts.push(account);
    for (const campaign of account.campaigns ?? []) addCampaign(id, campaign);
  }

  function addApp(app: SimAppOptions): void {
    // The same app registered again (a restart that restored it) is the same app.
    const known = state.apps.find((entry) => entry.appSecret === app.appSecret && (app.appId === undefined || entry.appId === app.appId));
    const registered = known ?? { appId: app.appId ?? String(1_000_000_000_000 + state.apps.length + 1), appSecret: app.appSecret };
    if (!known) state.apps.push(registered);
    app.accessTokens.forEach((token, index) => {
      state.tokens.set(token, { app: registered, user: { id: String(10_000_000_000 + state.tokens.size + 1), name: `System User ${index + 1}` } });
    });
  }

  const stateFile = options.stateFile;
  if (stateFile && existsSync(stateFile)) state.restore(readFileSync(stateFile, "utf8"));
  let saveTimer: NodeJS.Timeout | undefined;
  function persist(): void {
    if (!stateFile) return;
    clearTimeout(saveTimer);
    saveTimer = undefined;
    // Written aside and renamed, so a crash mid-write leaves the previous state, never half of one.
    writeFileSync(`${stateFile}.tmp`, state.serialize(), { mode: 0o600 });
    renameSync(`${stateFile}.tmp`, stateFile);
  }
  function scheduleSave(): void {
    if (!stateFile || saveTimer) return;
    saveTimer = setTimeout(() => {
      try {
        persist();
      } catch (error) {
        logger.error("graph simulator state could not be saved", { error: String(error) });
      }
    }, 200);
    saveTimer.unref();
  }

  for (const app of options.apps ?? []) addApp(app);
  for (const account of options.adAccounts ?? []) addAdAccount(account);

  function authenticate(params: Params, request: Request): SimToken {
    const header = request.headers.get("authorization") ?? "";
    const token = params.access_token || /^(?:OAuth|Bearer)\s+(.+)$/i.exec(header)?.[1];
    if (!token) throw missingToken();
    const entry = state.tokens.get(token);
    if (!entry) throw invalidToken();
    if (entry.expiredSubcode !== undefined) throw invalidToken(entry.expiredSubcode);
    const proof = params.appsecret_proof;
    if (!proof) {
      if (requireProof) throw missingProof();
      return entry;
    }
    if (!safeEqual(proof.toLowerCase(), appSecretProof(token, entry.app.appSecret))) throw invalidProof();
    return entry;
  }

  function takeInjection(method: string, path: string): InjectedFaultSpec | undefined {
    const index = injections.findIndex(
      (entry) => (!entry.match?.method || entry.match.method.toUpperCase() === method) && (!entry.match?.path || path.includes(entry.match.path)),
    );
    const entry = injections[index];
    if (!entry) return undefined;
    entry.remaining -= 1;
    if (entry.remaining <= 0) injections.splice(index, 1);
    return entry.spec;
  }

  function account(id: string, method: "get" | "post"): SimAdAccount {
    const found = state.adAccounts.get(accountIdOf(id));
    if (!found) throw unsupportedRequest(method, id);
    return found;
  }

  const newestFirst = <T extends { createdMs: number; id?: string }>(items: Iterable<T>) =>
    [...items].sort((a, b) => b.createdMs - a.createdMs || String(b.id).localeCompare(String(a.id)));

  async function uploadImage(accountId: string, params: Params, files: File[], baseUrl: string) {
    const sources: { key: string; bytes: Buffer }[] = [];
    if (params.bytes !== undefined) {
      // A `+` sent unencoded arrives as a space; Graph still reads it as base64.
      const base64 = params.bytes.replace(/ /g, "+").replace(/\s/g, "");
      if (base64 === "" || !/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) throw parameterCheck("Param bytes must be a base64 encoded image", "bytes");
      sources.push({ key: "bytes", bytes: Buffer.from(base64, "base64") });
    }
    for (const file of files) sources.push({ key: file.name, bytes: Buffer.from(await file.arrayBuffer()) });
    if (sources.length === 0) throw parameterCheck("The parameter bytes is required", "bytes");

    const images: Record<string, unknown> = {};
    for (const source of sources) {
      const meta = await sharp(source.bytes)
        .metadata()
        .catch(() => undefined);
      if (!meta?.width || !meta.height || !meta.format) {
        throw invalidParameter({
          title: "Image Could Not Be Processed",
          message: "The image file is damaged or in an unsupported format. Use a JPG, PNG or WebP file.",
          field: ["bytes"],
        });
      }
      // Graph's image hash is the MD5 of the file; the same bytes give the same hash in one ad account.
      const hash = createHash("md5").update(source.bytes).digest("hex");
      const key = state.imageKey(accountId, hash);
      const image = state.images.get(key) ?? {
        accountId,
        hash,
        name: source.key === "bytes" ? `${hash}.${meta.format}` : source.key,
        width: meta.width,
        height: meta.height,
        bytes: source.bytes,
        contentType: `image/${meta.format}`,
        createdMs: state.now(),
      };
      state.images.set(key, image);
      const view = state.imageView(image, baseUrl);
      images[source.key] = { hash, url: view.url, url_128: view.url, width: image.width, height: image.height, name: image.name };
    }
    return { images };
  }

  /** Account edges listed the same way: newest first, narrowed to `?fields=`. */
  const listable: Record<string, (() => Iterable<{ id: string; accountId: string; createdMs: number }>) | undefined> = {
    advideos: () => state.videos.values(),
    campaigns: () => state.campaigns.values(),
    adsets: () => state.adsets.values(),
    adcreatives: () => state.creatives.values(),
    ads: () => state.ads.values(),
  };

  async function accountEdge(caller: SimToken, method: string, act: SimAdAccount, edge: string, params: Params, files: File[], requestUrl: URL) {
    const fields = requestedFields(params.fields);
    const baseUrl = requestUrl.origin;
    const created = (id: string) => ({ id, ...(fields ? select(state.view(id) ?? {}, fields) : {}) });
    if (method === "GET" && edge === "adimages") {
      let hashes: string[] | undefined;
      if (params.hashes) {
        try {
          const parsed: unknown = JSON.parse(params.hashes);
          hashes = Array.isArray(parsed) ? parsed.map(String) : undefined;
        } catch {
          throw parameterCheck("Param hashes must be a JSON encoded array", "hashes");
        }
      }
      const items = newestFirst([...state.images.values()].filter((image) => image.accountId === act.id && (!hashes || hashes.includes(image.hash))));
      return paged(
        items.map((image) => state.imageView(image, baseUrl)),
        params,
        fields ?? ["hash"],
        requestUrl,
      );
    }
    const store = listable[edge];
    if (method === "GET" && store) {
      return paged(
        newestFirst([...store()].filter((item) => item.accountId === act.id)).map((item) => state.view(item.id) ?? {}),
        params,
        fields,
        requestUrl,
      );
    }
    if (method === "POST") {
      const now = state.now();
      switch (edge) {
        case "adimages":
          return uploadImage(act.id, params, files, baseUrl);
        case "advideos": {
          const fileUrl = required(params, "file_url");
          let valid = false;
          try {
            valid = ["http:", "https:"].includes(new URL(fileUrl).protocol);
          } catch {
            valid = false;
          }
          if (!valid)
            throw invalidParameter({
              title: "Invalid Video URL",
              message: "The file_url must be a public http(s) URL of the video file.",
              field: ["file_url"],
            });
          return created(state.addVideo(act.id, fileUrl, params.title || params.name || "").id);
        }
        case "campaigns": {
          const name = required(params, "name");
          const objective = required(params, "objective");
          required(params, "special_ad_categories");
          const campaignStatus = params.status ?? "ACTIVE";
          if (campaignStatus !== "ACTIVE" && campaignStatus !== "PAUSED") throw parameterCheck("Param status must be one of {ACTIVE, PAUSED}", "status");
          const daily = params.daily_budget ? Number(params.daily_budget) : undefined;
          const lifetime = params.lifetime_budget ? Number(params.lifetime_budget) : undefined;
          return created(addCampaign(act.id, { name, objective, status: campaignStatus, dailyBudget: daily, lifetimeBudget: lifetime }));
        }
        case "adsets": {
          const values = validateAdSetCreate(state, act, params, rules);
          const id = state.newId();
          state.adsets.set(id, { id, ...values, createdMs: now, updatedMs: now });
          return created(id);
        }
        case "adcreatives": {
          const values = validateCreativeCreate(state, act, params);
          const id = state.newId();
          state.creatives.set(id, { id, accountId: act.id, ...values, createdMs: now });
          return created(id);
        }
        case "ads": {
          const { name, adset, creative, status } = validateAdCreate(state, act, params);
          const id = state.newId();
          const processing = state.processingFor(creative, now);
          const ad = {
            id,
            accountId: act.id,
            adsetId: adset.id,
            creativeId: creative.id,
            name,
            status,
            reviewStartMs: processing?.endsMs ?? now,
            disapproval: state.disapprovalFor(creative),
            processing,
            appId: caller.app.appId,
            createdMs: now,
            updatedMs: now,
          };
          state.ads.set(id, ad);
          webhooks.schedule(ad);
          return created(id);
        }
      }
    }
    throw parameterCheck(`Tried accessing nonexisting field (${edge}) on node type (AdAccount)`);
  }

  function updateObject(id: string, params: Params): { success: true } {
    const now = state.now();
    const adset = state.adsets.get(id);
    if (adset) {
      const act = account(adset.accountId, "post");
      applyAdSetUpdate(state, adset, act, params, rules);
      return { success: true };
    }
    const ad = state.ads.get(id);
    if (ad) {
      const next = checkStatusUpdate(ad.status, params);
      let creativeId: string | undefined;
      if (params.creative) {
        let ref: unknown;
        try {
          ref = JSON.parse(params.creative) as unknown;
        } catch {
          throw parameterCheck("Param creative must be a JSON encoded object", "creative");
        }
        const raw: unknown = ref && typeof ref === "object" && "creative_id" in ref ? ref.creative_id : undefined;
        creativeId = typeof raw === "string" || typeof raw === "number" ? String(raw) : undefined;
        const creative = creativeId ? state.creatives.get(creativeId) : undefined;
        if (!creative || creative.accountId !== ad.accountId)
          throw parameterCheck("Param creative[creative_id] must be a creative of this ad account", "creative");
        // A new creative is processed and reviewed again.
        ad.creativeId = creative.id;
        ad.processing = state.processingFor(creative, now);
        ad.reviewStartMs = ad.processing?.endsMs ?? now;
        ad.disapproval = state.disapprovalFor(creative);
        webhooks.schedule(ad);
      }
      if (next) ad.status = next;
      if (params.name) ad.name = params.name;
      ad.updatedMs = now;
      return { success: true };
    }
    const campaign = state.campaigns.get(id);
    if (campaign) {
      const next = checkStatusUpdate(campaign.status, params);
      if (next) campaign.status = next;
      if (params.name) campaign.name = params.name;
      campaign.updatedMs = now;
      return { success: true };
    }
    const creative = state.creatives.get(id);
    if (creative) {
      const other = Object.keys(params).find((key) => key !== "name");
      if (other) throw parameterCheck(`Param ${other} can't be changed on an ad creative; only name is editable`, other);
      if (params.name) creative.name = params.name;
      return { success: true };
    }
    const video = state.videos.get(id);
    if (video) {
      if (params.title || params.name) video.title = params.title || params.name || video.title;
      return { success: true };
    }
    throw unsupportedRequest("post", id);
  }

  async function route(caller: SimToken, method: string, segments: string[], params: Params, files: File[], requestUrl: URL): Promise<unknown> {
    const [head, edge, ...rest] = segments;
    const fields = requestedFields(params.fields);
    if (!head && method === "GET" && params.ids !== undefined) return readMany(state, params.ids, (view) => select(view, fields));
    if (!head || rest.length > 0) throw unknownPath(segments.join("/"));
    const writeParams: Params = Object.fromEntries(Object.entries(params).filter(([key]) => key !== "fields"));

    if (head === "me" && !edge && method === "GET") return select({ id: caller.user.id, name: caller.user.name }, fields);
    if (head === "search" && !edge && method === "GET") return targetingSearch(params);
    const audience = audiences.object(method, head, edge, writeParams, (view) => select(view, fields));
    if (audience !== undefined) return audience;
    if (head.startsWith("act_")) {
      const act = account(head, method === "GET" ? "get" : "post");
      if (edge === "customaudiences" && method === "POST") return audiences.create(act.id, writeParams);
      if (edge === "insights" && method === "GET") return accountInsights(act, params, requestUrl);
      if (edge) return accountEdge(caller, method, act, edge, method === "GET" ? params : writeParams, files, requestUrl);
      if (method === "GET") return select(state.accountView(act), fields);
      throw unsupportedRequest("post", head);
    }
    if (!/^\d+$/.test(head)) throw unknownPath(segments.join("/"));
    // An edge of an object that does not exist is Graph's 100/33, like the object itself.
    if (edge)
      throw state.view(head) ? parameterCheck(`Tried accessing nonexisting field (${edge})`) : unsupportedRequest(method === "GET" ? "get" : "post", head);
    if (method === "GET") {
      const view = state.view(head);
      if (!view) throw unsupportedRequest("get", head);
      return select(view, fields);
    }
    if (method === "POST") return updateObject(head, writeParams);
    if (method === "DELETE") {
      const target = state.ads.get(head) ?? state.adsets.get(head) ?? state.campaigns.get(head);
      if (target) {
        target.status = "DELETED";
        return { success: true };
      }
      // Creatives and videos are removed for real; a creative an ad still uses cannot be (Graph's rule).
      if (state.creatives.has(head)) {
        if ([...state.ads.values()].some((ad) => ad.creativeId === head && ad.status !== "DELETED"))
          throw parameterCheck("Cannot delete an ad creative that is used by an ad", "id");
        state.creatives.delete(head);
        return { success: true };
      }
      if (state.videos.delete(head)) return { success: true };
      throw unsupportedRequest("post", head);
    }
    throw unknownPath(segments.join("/"));
  }

  function errorResponse(fault: GraphFault): Response {
    const trace = fbtraceId();
    return new Response(JSON.stringify({ error: { ...fault.body, fbtrace_id: trace } }), {
      status: fault.httpStatus,
      headers: { "content-type": "application/json; charset=UTF-8", "x-fb-trace-id": trace, ...fault.headers },
    });
  }

  const app = new Hono();

  const usage = new Map<string, number>();
  /** Per ad account: a call budget over a sliding window of simulated time, as Graph's Business Use Case limits. */
  const budgets = new Map<string, SimBudget>();

  /** The ad account whose budget a call spends: the `act_` in its path, or the owner of the object it names. */
  function accountOfRequest(segments: string[], params: Params): string | undefined {
    const head = segments[0] ?? "";
    if (head.startsWith("act_")) return accountIdOf(head);
    const id = head || (params.ids ?? "").split(",")[0] || "";
    const owner =
      state.adsets.get(id) ?? state.ads.get(id) ?? state.creatives.get(id) ?? state.campaigns.get(id) ?? state.videos.get(id) ?? state.audiences.get(id);
    return owner?.accountId;
  }

  function useCaseOf(segments: string[]): UseCaseType {
    const [head = "", edge] = segments;
    if (edge === "insights") return "ads_insights";
    if (edge === "customaudiences" || state.audiences.has(head)) return "custom_audience";
    return "ads_management";
  }

  /** Counts the call against the account's budget, or refuses it (not counted) once the budget is spent. */
  function spend(accountId: string, type: UseCaseType): void {
    const budget = budgets.get(accountId);
    if (!budget) return;
    const now = state.now();
    budget.calls = budget.calls.filter((at) => at > now - budget.windowMs);
    if (budget.calls.length >= budget.limit) {
      budget.refused += 1;
      throw throttled(accountId, {
        code: budget.code,
        subcode: budget.subcode,
        type,
        regainSeconds: ((budget.calls[0] ?? now) + budget.windowMs - now) / 1000,
      });
    }
    budget.calls.push(now);
  }

  function usageHeaders(accountId: string, type: UseCaseType): Record<string, string> {
    const budget = budgets.get(accountId);
    const percent = budget ? Math.round((budget.calls.length / budget.limit) * 100) : (usage.get(accountId) ?? 1);
    const oldest = budget?.calls[0];
    const resetSeconds = budget && oldest !== undefined ? Math.max(1, Math.ceil((oldest + budget.windowMs - state.now()) / 1000)) : 0;
    return { "x-business-use-case-usage": businessUseCaseUsage(accountId, percent, 0, type), "x-ad-account-usage": adAccountUsage(percent, resetSeconds) };
  }

  const controls: GraphSimulatorControls = {
    reset() {
      state.clearObjects();
      usage.clear();
      budgets.clear();
      webhooks.clear();
      injections.length = 0;
      latencyMs = 0;
      state.resetTime();
      for (const registered of registeredAccounts) for (const campaign of registered.campaigns ?? []) addCampaign(registered.id, campaign);
    },
    failNext({ count, match, ...spec }) {
      injections.push({ remaining: count ?? 1, spec, match });
    },
    setLatency(ms) {
      latencyMs = ms;
    },
    view(id) {
      const audience = state.audiences.get(id);
      return audience ? audiences.view(audience) : state.view(id);
    },
    requests: () => state.requests.map((entry) => ({ ...entry, query: { ...entry.query }, form: { ...entry.form } })),
    clearRequests() {
      state.requests.length = 0;
    },
    advance(ms) {
      state.advance(ms);
      void webhooks.flush();
    },
    now: () => new Date(state.now()),
    addApp,
    addAdAccount,
    addCampaign,
    expireToken(token, subcode = 463) {
      const entry = state.tokens.get(token);
      if (entry) entry.expiredSubcode = subcode;
    },
    setUsage(accountId, percent) {
      usage.set(accountIdOf(accountId), percent);
    },
    throttle(accountId, budget) {
      if (budget === null) budgets.delete(accountIdOf(accountId));
      else budgets.set(accountIdOf(accountId), { ...budget, calls: [], refused: 0 });
    },
    throttleState(accountId) {
      const budget = budgets.get(accountIdOf(accountId));
      return budget ? { calls: budget.calls.length, refused: budget.refused, limit: budget.limit } : undefined;
    },
    subscribeWebhooks: (subscription) => webhooks.subscribe(subscription),
    flushWebhooks: () => webhooks.flush(),
    webhookDeliveries: () => webhooks.deliveries.map((delivery) => ({ ...delivery })),
    reshape(id, shape) {
      state.shapes.set(id, { omit: shape.omit ?? [], set: shape.set ?? {} });
    },
    addInsightsRows(accountId, rows) {
      const id = accountIdOf(accountId);
      state.extraInsightRows.set(id, [...(state.extraInsightRows.get(id) ?? []), ...rows]);
    },
    state,
  };

  registerControlRoutes(app, controls);

  app.all("*", async (c) => {
    const request = c.req.raw;
    const url = new URL(request.url);
    const method = request.method.toUpperCase();
    const path = url.pathname.replace(/^\/+|\/+$/g, "");
    const { params, files } = await readParams(request, url);
    if (method !== "GET") scheduleSave();
    const formRecord: Record<string, string> = method === "GET" ? {} : { ...params };
    for (const key of url.searchParams.keys()) if (method !== "GET") delete formRecord[key];
    for (const file of files) formRecord[`[file ${file.name}]`] = `${file.size} bytes`;
    state.requests.push({ method, path: `/${path}`, query: Object.fromEntries(url.searchParams), form: formRecord, receivedAt: graphTime(state.now()) });

    try {
      if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
      const [version, ...segments] = path.split("/");
      const versionMatch = /^v(\d+)\.(\d+)$/.exec(version ?? "");
      if (!versionMatch) throw deprecatedVersion(GRAPH_API_VERSION);
      if (version !== GRAPH_API_VERSION) {
        throw Number(versionMatch[1]) < Number(GRAPH_API_VERSION.slice(1).split(".")[0]) ? deprecatedVersion(GRAPH_API_VERSION) : unknownPath(path);
      }
      const caller = authenticate(params, request);
      const injected = takeInjection(method, `/${path}`);
      if (injected) {
        const act = segments[0]?.startsWith("act_") ? accountIdOf(segments[0]) : undefined;
        throw injectedFault(injected, act);
      }
      const clean: Params = Object.fromEntries(Object.entries(params).filter(([key]) => !AUTH_PARAMS.has(key)));
      const act = accountOfRequest(segments, clean);
      const useCase = useCaseOf(segments);
      if (act) spend(act, useCase);
      const result = await route(caller, method, segments, clean, files, url);
      void webhooks.flush();
      return c.json(result as Record<string, unknown>, 200, act ? usageHeaders(act, useCase) : {});
    } catch (error) {
      if (error instanceof GraphFault) return errorResponse(error);
      logger.error("graph simulator failed", { path: `/${path}`, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      return errorResponse(new GraphFault(500, { message: "An unknown error has occurred.", type: "OAuthException", code: 1, is_transient: false }));
    }
  });

  // Registrations made in process (seeding, tests) are kept like those made over HTTP.
  for (const name of ["addApp", "addAdAccount", "addCampaign", "advance", "expireToken"] as const) {
    const original = controls[name] as (...args: unknown[]) => unknown;
    (controls as Record<string, unknown>)[name] = (...args: unknown[]) => {
      const result = original(...args);
      scheduleSave();
      return result;
    };
  }

  return {
    app,
    persist,
    fetch: async (input, init) => app.fetch(input instanceof Request && init === undefined ? input : new Request(input, init)),
    controls,
  };
}
