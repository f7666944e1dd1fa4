/**
 * Graph's rate limits are per ad account (Business Use Case limits, codes 80000–80014, 17, 613) or per app
 * (4), and every answer reports how much of the budget is spent. This keeps, per ad account, the earliest
 * time the next call may go out, so the client slows down before Graph refuses and stops calling an
 * account Graph has throttled until the time Graph names — instead of spending calls that are refused
 * anyway, and the refusals that prolong the block.
 *
 * Sources (see also docs/graph-throttling.md): Graph API "Rate limits" overview and Marketing API
 * "Rate limiting" (developers.facebook.com/docs/graph-api/overview/rate-limiting,
 * …/docs/marketing-api/overview/rate-limiting):
 * - `X-Business-Use-Case-Usage`: `{ "<business or ad account id>": [{ type, call_count, total_cputime,
 *   total_time, estimated_time_to_regain_access (minutes), ads_api_access_tier }] }` (percentages);
 * - `X-Ad-Account-Usage`: `{ acc_id_util_pct, reset_time_duration (seconds), ads_api_access_tier }`;
 * - `X-App-Usage`: `{ call_count, total_cputime, total_time }` (percentages).
 */

export type UsageReading = {
  /** The highest share of any budget reported, in percent. */
  percent?: number;
  /** `estimated_time_to_regain_access`, in seconds, when Graph gives one above zero. */
  regainSeconds?: number;
  /** `reset_time_duration` of `X-Ad-Account-Usage`: when the ad account's budget is whole again. */
  resetSeconds?: number;
};

/** From here calls of an account are spaced out (up to `MAX_SPACING_MS` apart near 100 %). */
const SLOW_DOWN_PERCENT = 75;
/** From here an account's calls wait until its budget resets: Graph refuses at 100 %. */
const PAUSE_PERCENT = 95;
const MAX_SPACING_MS = 1_000;
/** When Graph throttles or nearly does without saying for how long. */
export const DEFAULT_PAUSE_SECONDS = 60;

function parse(raw: string | null): unknown {
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

function numberAt(entry: unknown, key: string): number | undefined {
  if (!entry || typeof entry !== "object") return undefined;
  const value: unknown = (entry as Record<string, unknown>)[key];
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** Reads the three usage headers of one answer; unreadable or absent headers give nothing. */
export function readUsage(headers: Headers): UsageReading {
  const reading: UsageReading = {};
  const percent = (value: number | undefined) => {
    if (value !== undefined) reading.percent = Math.max(reading.percent ?? 0, value);
  };
  const businessUseCase = parse(headers.get("x-business-use-case-usage"));
  if (businessUseCase && typeof businessUseCase === "object") {
    for (const entries of Object.values(businessUseCase)) {
      if (!Array.isArray(entries)) continue;
      for (const entry of entries) {
        for (const key of ["call_count", "total_cputime", "total_time"]) percent(numberAt(entry, key));
        const minutes = numberAt(entry, "estimated_time_to_regain_access");
        if (minutes !== undefined && minutes > 0) reading.regainSeconds = Math.max(reading.regainSeconds ?? 0, minutes * 60);
      }
    }
  }
  const adAccount = parse(headers.get("x-ad-account-usage"));
  percent(numberAt(adAccount, "acc_id_util_pct"));
  const reset = numberAt(adAccount, "reset_time_duration");
  if (reset !== undefined && reset > 0) reading.resetSeconds = reset;
  const app = parse(headers.get("x-app-usage"));
  for (const key of ["call_count", "total_cputime", "total_time"]) percent(numberAt(app, key));
  return reading;
}

type AccountState = { notBeforeMs: number; percent?: number };

/**
 * Per ad account: every session of the client it is given sees the same state. One per process's ads deps
 * (`../deps.ts`), so each instance paces its own calls by what Graph last reported to it.
 */
export class AccountThrottle {
  readonly #accounts = new Map<string, AccountState>();

  #state(account: string): AccountState {
    let state = this.#accounts.get(account);
    if (!state) {
      state = { notBeforeMs: 0 };
      this.#accounts.set(account, state);
    }
    return state;
  }

  #holdUntil(account: string, untilMs: number): void {
    const state = this.#state(account);
    state.notBeforeMs = Math.max(state.notBeforeMs, untilMs);
  }

  /** Milliseconds the next call of `account` must wait; 0 when it may go now. */
  waitMs(account: string, nowMs: number): number {
    return Math.max(0, (this.#accounts.get(account)?.notBeforeMs ?? 0) - nowMs);
  }

  /**
   * A caller waited `waitMs` for `account` as of `nowMs`: the hold is over unless it was extended meanwhile
   * (a clock that does not move while waiting, as in tests, would otherwise hold the account forever).
   */
  served(account: string, nowMs: number, waitMs: number): void {
    const state = this.#accounts.get(account);
    if (state && state.notBeforeMs <= nowMs + waitMs) state.notBeforeMs = 0;
  }

  /** The last usage Graph reported for `account` (percent). */
  usagePercent(account: string): number | undefined {
    return this.#accounts.get(account)?.percent;
  }

  /** An answer's usage headers: near the limit the account slows down, at it the account pauses. */
  observe(account: string, reading: UsageReading, nowMs: number): void {
    if (reading.percent === undefined && reading.regainSeconds === undefined) return;
    const state = this.#state(account);
    if (reading.percent !== undefined) state.percent = reading.percent;
    if (reading.regainSeconds !== undefined) {
      this.#holdUntil(account, nowMs + reading.regainSeconds * 1000);
      return;
    }
    const percent = reading.percent ?? 0;
    if (percent >= PAUSE_PERCENT) this.#holdUntil(account, nowMs + (reading.resetSeconds ?? DEFAULT_PAUSE_SECONDS) * 1000);
    else if (percent >= SLOW_DOWN_PERCENT) {
      this.#holdUntil(account, nowMs + Math.round(((percent - SLOW_DOWN_PERCENT) / (100 - SLOW_DOWN_PERCENT)) * MAX_SPACING_MS));
    }
  }

  /** Graph refused a call of `account` with a rate-limit code: no call of it before `seconds` have passed. */
  refused(account: string, seconds: number, nowMs: number): void {
    const state = this.#state(account);
    state.percent = Math.max(state.percent ?? 0, 100);
    this.#holdUntil(account, nowMs + seconds * 1000);
  }
}
