import type { Clock } from "../base/clock";

/**
 * Call counts, errors and latency of the provider calls this process made since it started (the operator's
 * `GET /admin/v1/system`). One `ProviderMetrics` per process, created with the core deps and handed to the
 * providers' clients. Per instance: each serverless instance keeps its own figures, so they describe the
 * instance that answers, not the fleet (the traces have the fleet's).
 */
type ProviderName = "postmark" | "graph";

export type ProviderCallFigures = {
  calls: number;
  errors: number;
  /** `errors / calls`, 0 without calls. */
  errorRate: number;
  /** Over the latest calls (at most `RECENT_CALLS`), in milliseconds; null without calls. */
  latencyMs: { p50: number; p95: number; max: number } | null;
  since: Date;
};

const RECENT_CALLS = 512;

class ProviderCalls {
  calls = 0;
  errors = 0;
  readonly recent = new Float64Array(RECENT_CALLS);
  readonly since: Date;

  constructor(since: Date) {
    this.since = since;
  }

  record(durationMs: number, failed: boolean): void {
    this.recent[this.calls % RECENT_CALLS] = durationMs;
    this.calls++;
    if (failed) this.errors++;
  }

  figures(): ProviderCallFigures {
    const count = Math.min(this.calls, RECENT_CALLS);
    const sorted = Array.from(this.recent.subarray(0, count)).sort((a, b) => a - b);
    const at = (q: number) => Math.round(sorted[Math.min(count - 1, Math.floor(q * count))] ?? 0);
    return {
      calls: this.calls,
      errors: this.errors,
      errorRate: this.calls === 0 ? 0 : this.errors / this.calls,
      latencyMs: count === 0 ? null : { p50: at(0.5), p95: at(0.95), max: Math.round(sorted[count - 1] ?? 0) },
      since: this.since,
    };
  }
}

/** The figures of both providers; `since` is when they were created, on the injected clock. */
export type ProviderMetrics = {
  /** One provider call: how long it took and whether it failed (no answer, 5xx, or a refusal of the request). */
  record(provider: ProviderName, durationMs: number, failed: boolean): void;
  figures(provider: ProviderName): ProviderCallFigures;
};

export function createProviderMetrics(clock: Clock): ProviderMetrics {
  const providers: Record<ProviderName, ProviderCalls> = { postmark: new ProviderCalls(clock.now()), graph: new ProviderCalls(clock.now()) };
  return {
    record: (provider, durationMs, failed) => providers[provider].record(durationMs, failed),
    figures: (provider) => providers[provider].figures(),
  };
}
