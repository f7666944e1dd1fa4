import { GRAPH_CONFIGURED_STATUSES, type AssetFeedSpec, type ConfiguredStatus, type GeoLocation, type ObjectStorySpec, type Targeting } from "../types";
import { type GraphFault, invalidParameter, parameterCheck } from "./graph-faults";
import { EU_COUNTRIES, EU_COUNTRY_GROUPS } from "./markers";
import type { SimAdAccount, SimAdSet, SimulatorState } from "./state";

/**
 * Platform-like validation of the simulator's write calls. Subcodes with a source:
 * - 1870227 "Advantage Audience Flag Required" (required since v23; seen in live answers quoted by
 *   several public integrations).
 * - 3858079 / 3858081 DSA beneficiary / payor missing (public integrations quote 3858079 with "Specify a
 *   person or organization…"; one transcription swaps the two numbers; see the report).
 * - 1885272 "Budget Too Low" (Marketing API error reference, as transcribed by public SDK error tables).
 * - 1885088 archived object: only the name may change (same transcription).
 * Everything else answers as Graph's parameter checks do: code 100 without subcode, with a blamed field.
 */

export type Params = Record<string, string>;

const SUBCODES = {
  advantageAudienceRequired: 1870227,
  dsaBeneficiaryRequired: 3858079,
  dsaPayorRequired: 3858081,
  budgetTooLow: 1885272,
  archivedEditNameOnly: 1885088,
} as const;

export function required(params: Params, name: string): string {
  const value = params[name];
  if (value === undefined || value === "") throw parameterCheck(`The parameter ${name} is required`, name);
  return value;
}

function jsonObject(params: Params, name: string): Record<string, unknown> | undefined {
  const raw = params[name];
  if (raw === undefined || raw === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw) as unknown;
  } catch {
    throw parameterCheck(`Param ${name} must be a JSON encoded object`, name);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw parameterCheck(`Param ${name} must be a JSON encoded object`, name);
  return value as Record<string, unknown>;
}

function positiveInteger(params: Params, name: string): number | undefined {
  const raw = params[name];
  if (raw === undefined || raw === "") return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) <= 0) throw parameterCheck(`Param ${name} must be a positive integer`, name);
  return Number(raw);
}

function status(params: Params, allowed: readonly ConfiguredStatus[], fallback: ConfiguredStatus | undefined): ConfiguredStatus | undefined {
  const raw = params.status;
  if (raw === undefined || raw === "") return fallback;
  const found = allowed.find((value) => value === raw);
  if (!found) throw parameterCheck(`Param status must be one of {${allowed.join(", ")}}`, "status");
  return found;
}

function isoTime(params: Params, name: string): string | undefined {
  const raw = params[name];
  if (raw === undefined || raw === "") return undefined;
  // Graph accepts ISO 8601 or a unix timestamp; 0 clears end_time.
  const ms = /^\d+$/.test(raw) ? Number(raw) * 1000 : Date.parse(raw);
  if (Number.isNaN(ms)) throw parameterCheck(`Param ${name} must be a valid ISO 8601 datetime or unix timestamp`, name);
  return raw === "0" ? undefined : new Date(ms).toISOString().replace(/\.\d{3}Z$/, "+0000");
}

function isUrl(value: unknown): value is string {
  if (typeof value !== "string") return false;
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}

type GeoOptions = { cityCountries: ReadonlyMap<string, string> };

function locationCountry(location: GeoLocation, geo: GeoOptions): string | undefined {
  return location.country ?? geo.cityCountries.get(String(location.key));
}

/** Whether an ad set's audience includes anyone in an EU member state (DSA applies). */
function reachesEu(targeting: Targeting, geo: GeoOptions): boolean {
  const locations = targeting.geo_locations;
  if (!locations) return false;
  if (locations.countries?.some((country) => EU_COUNTRIES.has(country.toUpperCase()))) return true;
  if (locations.country_groups?.some((group) => EU_COUNTRY_GROUPS.has(group.toLowerCase()))) return true;
  for (const list of [locations.regions, locations.cities, locations.zips]) {
    for (const location of list ?? []) {
      const country = locationCountry(location, geo);
      if (country && EU_COUNTRIES.has(country.toUpperCase())) return true;
    }
  }
  return false;
}

function checkTargeting(raw: Record<string, unknown>): Targeting {
  const targeting = raw as Targeting;
  const geo = targeting.geo_locations;
  const hasLocation = geo && [geo.countries, geo.regions, geo.cities, geo.zips, geo.country_groups].some((list) => Array.isArray(list) && list.length > 0);
  if (!hasLocation) {
    throw invalidParameter({
      title: "Location Is Required",
      message: "Your audience needs at least one location. Add a country, region, city or postal code to geo_locations.",
      field: ["targeting", "geo_locations"],
    });
  }
  const ageMin = targeting.age_min ?? 18;
  const ageMax = targeting.age_max ?? 65;
  if (!Number.isInteger(ageMin) || !Number.isInteger(ageMax) || ageMin < 13 || ageMax > 65 || ageMin > ageMax) {
    throw invalidParameter({
      title: "Invalid Age Range",
      message: "The minimum age must be at least 13, the maximum at most 65, and the minimum not above the maximum.",
      field: ["targeting", targeting.age_min !== undefined && (ageMin < 13 || ageMin > ageMax) ? "age_min" : "age_max"],
    });
  }
  if (targeting.genders !== undefined && (!Array.isArray(targeting.genders) || targeting.genders.some((g) => g !== 1 && g !== 2))) {
    throw parameterCheck("Param targeting[genders] must be an array of 1 (male) and 2 (female)", "targeting");
  }
  return targeting;
}

function checkAdvantageAudience(targeting: Targeting): void {
  const flag: unknown = targeting.targeting_automation?.advantage_audience;
  if (flag === 0 || flag === 1) return;
  throw invalidParameter({
    subcode: SUBCODES.advantageAudienceRequired,
    title: "Advantage Audience Flag Required",
    message:
      "To create your ad set, you need to enable or disable the Advantage audience feature. This can be done by setting the advantage_audience flag to either 1 or 0 within the targeting_automation field in the targeting spec.",
    field: ["targeting", "targeting_automation", "advantage_audience"],
  });
}

function checkDsa(targeting: Targeting, beneficiary: string | undefined, payor: string | undefined, geo: GeoOptions): void {
  if (!reachesEu(targeting, geo)) return;
  if (!beneficiary) {
    throw invalidParameter({
      subcode: SUBCODES.dsaBeneficiaryRequired,
      title: "Beneficiary Information Required",
      message: "Enter the person or organization being promoted by ads that reach people in the European Union (dsa_beneficiary).",
      field: ["dsa_beneficiary"],
    });
  }
  if (!payor) {
    throw invalidParameter({
      subcode: SUBCODES.dsaPayorRequired,
      title: "Payer Information Required",
      message: "Enter the person or organization paying for ads that reach people in the European Union (dsa_payor).",
      field: ["dsa_payor"],
    });
  }
}

function checkDailyBudget(dailyBudget: number | undefined, minDailyBudget: number, currency: string): void {
  if (dailyBudget === undefined || dailyBudget >= minDailyBudget) return;
  throw invalidParameter({
    subcode: SUBCODES.budgetTooLow,
    title: "Your Budget Is Too Low",
    message: `The minimum daily budget for this ad set is ${(minDailyBudget / 100).toFixed(2)} ${currency}. Please raise your budget.`,
    field: ["daily_budget"],
  });
}

function checkSchedule(startTime: string | undefined, endTime: string | undefined, nowMs: number): void {
  if (!endTime) return;
  const end = Date.parse(endTime);
  const start = startTime ? Date.parse(startTime) : nowMs;
  if (end <= start || end <= nowMs) {
    throw invalidParameter({
      title: "Incorrect End Date",
      message: "Please choose an end date that occurs after your start date and in the future.",
      field: ["end_time"],
    });
  }
}

export type AdSetRules = { minDailyBudget: number; geo: GeoOptions };

export function validateAdSetCreate(
  state: SimulatorState,
  account: SimAdAccount,
  params: Params,
  rules: AdSetRules,
): Omit<SimAdSet, "id" | "createdMs" | "updatedMs"> {
  const name = required(params, "name");
  const campaignId = required(params, "campaign_id");
  const campaign = state.campaigns.get(campaignId);
  if (!campaign || campaign.accountId !== account.id) throw parameterCheck("Param campaign_id must be a valid campaign id of this ad account", "campaign_id");
  const billingEvent = required(params, "billing_event");
  const configured = status(params, ["ACTIVE", "PAUSED"], "ACTIVE") ?? "ACTIVE";
  const rawTargeting = jsonObject(params, "targeting");
  if (!rawTargeting) throw parameterCheck("The parameter targeting is required", "targeting");
  const targeting = checkTargeting(rawTargeting);
  checkAdvantageAudience(targeting);
  checkDsa(targeting, params.dsa_beneficiary, params.dsa_payor, rules.geo);

  const dailyBudget = positiveInteger(params, "daily_budget");
  const lifetimeBudget = positiveInteger(params, "lifetime_budget");
  const startTime = isoTime(params, "start_time");
  const endTime = isoTime(params, "end_time");
  const campaignBudget = campaign.dailyBudget !== undefined || campaign.lifetimeBudget !== undefined;
  if (campaignBudget && (dailyBudget !== undefined || lifetimeBudget !== undefined)) {
    throw invalidParameter({
      title: "Budget Set on Campaign",
      message: "This campaign uses a campaign budget, so its ad sets can't have their own budget.",
      field: [dailyBudget !== undefined ? "daily_budget" : "lifetime_budget"],
    });
  }
  if (!campaignBudget && dailyBudget !== undefined && lifetimeBudget !== undefined) {
    throw invalidParameter({
      title: "Only One Budget Allowed",
      message: "Set either a daily budget or a lifetime budget for this ad set, not both.",
      field: ["lifetime_budget"],
    });
  }
  if (!campaignBudget && dailyBudget === undefined && lifetimeBudget === undefined) {
    throw invalidParameter({ title: "Budget Required", message: "Set a daily budget or a lifetime budget for this ad set.", field: ["daily_budget"] });
  }
  if (lifetimeBudget !== undefined && !endTime) {
    throw invalidParameter({ title: "End Date Required", message: "An ad set with a lifetime budget needs an end date.", field: ["end_time"] });
  }
  checkDailyBudget(dailyBudget, rules.minDailyBudget, account.currency);
  checkSchedule(startTime, endTime, state.now());

  return {
    accountId: account.id,
    campaignId,
    name,
    status: configured,
    billingEvent,
    optimizationGoal: params.optimization_goal || "LINK_CLICKS",
    targeting,
    dailyBudget,
    lifetimeBudget,
    startTime,
    endTime,
    dsaBeneficiary: params.dsa_beneficiary || undefined,
    dsaPayor: params.dsa_payor || undefined,
  };
}

const updatableStatuses: readonly ConfiguredStatus[] = GRAPH_CONFIGURED_STATUSES;

/** Archived or deleted objects accept a new name and nothing else. */
function checkNotArchived(current: ConfiguredStatus, params: Params): void {
  if (current !== "ARCHIVED" && current !== "DELETED") return;
  const changes = Object.keys(params).filter((key) => key !== "name" && !(key === "status" && (params.status === "ARCHIVED" || params.status === "DELETED")));
  if (changes.length === 0) return;
  throw invalidParameter({
    subcode: SUBCODES.archivedEditNameOnly,
    title: "Archived Object Can Only Be Renamed",
    message: "This object is archived. You can only edit its name.",
    field: [changes[0] ?? "status"],
  });
}

export function applyAdSetUpdate(state: SimulatorState, adset: SimAdSet, account: SimAdAccount, params: Params, rules: AdSetRules): void {
  checkNotArchived(adset.status, params);
  const nextStatus = status(params, updatableStatuses, undefined);
  const dailyBudget = positiveInteger(params, "daily_budget");
  const lifetimeBudget = positiveInteger(params, "lifetime_budget");
  if ((dailyBudget !== undefined && adset.lifetimeBudget !== undefined) || (lifetimeBudget !== undefined && adset.dailyBudget !== undefined)) {
    throw invalidParameter({
      title: "Budget Type Can't Be Changed",
      message: "You can't switch an ad set between a daily and a lifetime budget after it has been created.",
      field: [dailyBudget !== undefined ? "daily_budget" : "lifetime_budget"],
    });
  }
  checkDailyBudget(dailyBudget, rules.minDailyBudget, account.currency);
  const rawTargeting = jsonObject(params, "targeting");
  const targeting = rawTargeting ? checkTargeting(rawTargeting) : adset.targeting;
  if (rawTargeting) checkAdvantageAudience(targeting);
  const beneficiary = params.dsa_beneficiary ?? adset.dsaBeneficiary;
  const payor = params.dsa_payor ?? adset.dsaPayor;
  checkDsa(targeting, beneficiary, payor, rules.geo);
  const startTime = params.start_time !== undefined ? isoTime(params, "start_time") : adset.startTime;
  const endTime = params.end_time !== undefined ? isoTime(params, "end_time") : adset.endTime;
  if (params.end_time !== undefined) checkSchedule(startTime, endTime, state.now());
  if ((lifetimeBudget ?? adset.lifetimeBudget) !== undefined && !endTime) {
    throw invalidParameter({ title: "End Date Required", message: "An ad set with a lifetime budget needs an end date.", field: ["end_time"] });
  }

  if (params.name) adset.name = params.name;
  if (nextStatus) adset.status = nextStatus;
  if (dailyBudget !== undefined) adset.dailyBudget = dailyBudget;
  if (lifetimeBudget !== undefined) adset.lifetimeBudget = lifetimeBudget;
  adset.targeting = targeting;
  adset.dsaBeneficiary = beneficiary;
  adset.dsaPayor = payor;
  adset.startTime = startTime;
  adset.endTime = endTime;
  adset.updatedMs = state.now();
}

function imageMissing(hash: string, field: string[]): GraphFault {
  return invalidParameter({
    title: "Image Not Found",
    message: `The image with hash ${hash} isn't in this ad account's image library. Upload it to the ad account first.`,
    field,
  });
}

function checkVideoReady(state: SimulatorState, accountId: string, videoId: string, field: string[]): void {
  const video = state.videos.get(videoId);
  if (!video || video.accountId !== accountId) {
    throw invalidParameter({ title: "Video Not Found", message: `The video ${videoId} doesn't belong to this ad account.`, field });
  }
  const videoStatus = state.videoStatus(video).video_status;
  if (videoStatus !== "ready") {
    throw invalidParameter({
      title: videoStatus === "processing" ? "Video Still Processing" : "Video Could Not Be Processed",
      message:
        videoStatus === "processing"
          ? "Wait until the video has finished processing, then create the creative."
          : "The video failed processing; upload it again.",
      field,
    });
  }
}

function checkAssetFeed(state: SimulatorState, accountId: string, spec: AssetFeedSpec): void {
  if (!Array.isArray(spec.ad_formats) || spec.ad_formats.length === 0) throw parameterCheck("Param asset_feed_spec[ad_formats] is required", "asset_feed_spec");
  const labels = new Set<string>();
  for (const image of spec.images ?? []) {
    if (!state.images.has(state.imageKey(accountId, image.hash))) throw imageMissing(image.hash, ["asset_feed_spec", "images"]);
    for (const label of image.adlabels ?? []) labels.add(label.name);
  }
  for (const video of spec.videos ?? []) {
    checkVideoReady(state, accountId, video.video_id, ["asset_feed_spec", "videos"]);
    for (const label of video.adlabels ?? []) labels.add(label.name);
  }
  if ((spec.images ?? []).length === 0 && (spec.videos ?? []).length === 0)
    throw parameterCheck("Param asset_feed_spec must contain images or videos", "asset_feed_spec");
  if (!spec.link_urls?.some((link) => isUrl(link.website_url))) {
    throw invalidParameter({ title: "Website URL Required", message: "Enter a valid website URL for your ad.", field: ["asset_feed_spec", "link_urls"] });
  }
  const rules = spec.asset_customization_rules;
  if (rules === undefined) return;
  if (rules.length < 2) {
    throw invalidParameter({
      title: "Not Enough Customization Rules",
      message: "An asset feed with customization rules needs at least two rules.",
      field: ["asset_feed_spec", "asset_customization_rules"],
    });
  }
  for (const rule of rules) {
    const label = rule.image_label?.name ?? rule.video_label?.name;
    if (label !== undefined && !labels.has(label)) {
      throw invalidParameter({
        title: "Unknown Asset Label",
        message: `No image or video carries the label ${label}.`,
        field: ["asset_feed_spec", "asset_customization_rules"],
      });
    }
  }
}

export function validateCreativeCreate(state: SimulatorState, account: SimAdAccount, params: Params) {
  const rawStory = jsonObject(params, "object_story_spec");
  if (!rawStory) throw parameterCheck("The parameter object_story_spec is required", "object_story_spec");
  const story = rawStory as ObjectStorySpec;
  if (!story.page_id) throw parameterCheck("Param object_story_spec[page_id] is required", "object_story_spec");
  if (account.pageIds && !account.pageIds.has(String(story.page_id))) {
    throw invalidParameter({
      title: "Page Not Available",
      message: "The Page you chose isn't connected to this ad account.",
      field: ["object_story_spec", "page_id"],
    });
  }
  const assetFeed = jsonObject(params, "asset_feed_spec") as AssetFeedSpec | undefined;
  if (assetFeed) {
    checkAssetFeed(state, account.id, assetFeed);
  } else if (story.link_data && story.video_data) {
    throw parameterCheck("Param object_story_spec must contain only one of link_data and video_data", "object_story_spec");
  } else if (story.link_data) {
    if (!isUrl(story.link_data.link))
      throw invalidParameter({
        title: "Website URL Required",
        message: "Enter a valid website URL for your ad.",
        field: ["object_story_spec", "link_data", "link"],
      });
    const hash = story.link_data.image_hash;
    if (hash && !state.images.has(state.imageKey(account.id, hash))) throw imageMissing(hash, ["object_story_spec", "link_data", "image_hash"]);
  } else if (story.video_data) {
    checkVideoReady(state, account.id, String(story.video_data.video_id), ["object_story_spec", "video_data", "video_id"]);
  } else {
    throw parameterCheck("Param object_story_spec must contain link_data, video_data or be used with asset_feed_spec", "object_story_spec");
  }
  return {
    name: params.name || `Creative ${state.creatives.size + 1}`,
    objectStorySpec: story,
    assetFeedSpec: assetFeed,
    urlTags: params.url_tags || undefined,
  };
}

export function validateAdCreate(state: SimulatorState, account: SimAdAccount, params: Params) {
  const name = required(params, "name");
  const adsetId = required(params, "adset_id");
  const adset = state.adsets.get(adsetId);
  if (!adset || adset.accountId !== account.id) throw parameterCheck("Param adset_id must be a valid ad set id of this ad account", "adset_id");
  if (adset.status === "ARCHIVED" || adset.status === "DELETED") {
    throw invalidParameter({ title: "Ad Set Archived", message: "You can't add ads to an archived or deleted ad set.", field: ["adset_id"] });
  }
  const creativeRef = jsonObject(params, "creative");
  const rawCreativeId: unknown = creativeRef?.creative_id;
  const creativeId = typeof rawCreativeId === "string" || typeof rawCreativeId === "number" ? String(rawCreativeId) : undefined;
  if (!creativeId) throw parameterCheck("The parameter creative is required", "creative");
  const creative = state.creatives.get(creativeId);
  if (!creative || creative.accountId !== account.id) throw parameterCheck("Param creative[creative_id] must be a creative of this ad account", "creative");
  const configured = status(params, ["ACTIVE", "PAUSED"], "ACTIVE") ?? "ACTIVE";
  return { name, adset, creative, status: configured };
}

export function checkStatusUpdate(current: ConfiguredStatus, params: Params): ConfiguredStatus | undefined {
  checkNotArchived(current, params);
  return status(params, updatableStatuses, undefined);
}
