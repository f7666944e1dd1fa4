import type { InjectedFaultSpec } from "./graph-faults";
import type { RecordedRequest, SimulatorState } from "./state";
import type { SimWebhookDelivery, SimWebhookSubscription } from "./webhooks";

/** The simulator's test controls, apart from its app so the control routes can take them without a cycle. */

export type SimAppOptions = { appId?: string; appSecret: string; accessTokens: string[] };
export type SimCampaignOptions = {
  id?: string;
  name?: string;
  objective?: string;
  status?: "ACTIVE" | "PAUSED";
  dailyBudget?: number;
  lifetimeBudget?: number;
};
export type SimAdAccountOptions = {
  /** Numeric id, with or without `act_`. */
  id: string;
  name?: string;
  currency?: string;
  timezoneName?: string;
  /** Pages creatives may use; omitted = any page. */
  pageIds?: string[];
  campaigns?: SimCampaignOptions[];
};

type SimThrottleOptions = { limit: number; windowMs: number; code?: number; subcode?: number };

type FailNextOptions = InjectedFaultSpec & {
  /** How many matching calls fail; default 1. */
  count?: number;
  /** Only calls with this method and/or whose path contains this text. */
  match?: { method?: string; path?: string };
};

export type GraphSimulatorControls = {
  /** Clears objects, recorded requests, injected faults, latency and time offset; registrations stay. */
  reset(): void;
  failNext(options: FailNextOptions): void;
  setLatency(ms: number): void;
  requests(): RecordedRequest[];
  clearRequests(): void;
  advance(ms: number): void;
  now(): Date;
  addApp(app: SimAppOptions): void;
  addAdAccount(account: SimAdAccountOptions): void;
  addCampaign(accountId: string, campaign?: SimCampaignOptions): string;
  /** Later calls with this token answer 190 (subcode 463 "expired" unless another is given). */
  expireToken(token: string, subcode?: number): void;
  /** The share of its rate-limit budget an ad account reports in `X-Business-Use-Case-Usage` (default 1 %). */
  setUsage(accountId: string, percent: number): void;
  /**
   * A call budget for an ad account (Business Use Case limits): `limit` calls per `windowMs` of simulated
   * time; every answer reports the share used in `X-Business-Use-Case-Usage` / `X-Ad-Account-Usage`, and a
   * call beyond it is refused with the use case's code (80000 insights, 80003 audiences, 80004 management,
   * or `code`/`subcode`) and `estimated_time_to_regain_access`. `null` removes it.
   */
  throttle(accountId: string, budget: SimThrottleOptions | null): void;
  /** Calls counted in the current window and calls refused since the budget was set. */
  throttleState(accountId: string): { calls: number; refused: number; limit: number } | undefined;
  /** Subscribes a callback URL to ad-account webhooks after the verification handshake (throws if it fails). */
  subscribeWebhooks(subscription: SimWebhookSubscription): Promise<void>;
  /** Sends the notifications that are due and resolves once they are answered. */
  flushWebhooks(): Promise<void>;
  webhookDeliveries(): SimWebhookDelivery[];
  /**
   * Answers object `id` with `omit` fields left out and `set` fields added or replaced (until a reset), to
   * replay shapes from Graph's docs, e.g. a DISAPPROVED ad without `configured_status` and `status`.
   */
  reshape(id: string, shape: { omit?: string[]; set?: Record<string, unknown> }): void;
  /** Every readable field of an object (campaign, ad set, creative, ad, video, custom audience) as a read of all of them answers it. */
  view(id: string): Record<string, unknown> | undefined;
  /** Appends raw rows to every insights answer of the ad account (until a reset), e.g. campaign-level rows. */
  addInsightsRows(accountId: string, rows: Record<string, unknown>[]): void;
  readonly state: SimulatorState;
};
