import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { loadavg } from "node:os";
import { monitorEventLoopDelay, PerformanceObserver, performance } from "node:perf_hooks";
import { BATCH_STEPS_CHANNEL, type BatchSteps } from "../lib/mail/send-jobs/batch";

/**
 * A send job's rate over time, and where its time goes: every batch's own step timings (the engine publishes
 * them on `BATCH_STEPS_CHANNEL`), the process's GC pauses (`perf_hooks` `gc` entries), the event loop's delay
 * and the load average, summed per window (10 s by default). The steps of the lanes run side by side, so a
 * window's step sums can exceed its length; per batch they compare across windows. A window whose rate falls
 * under 80 % of the median window's is named with what grew most against the median window: a step per
 * batch, or GC.
 */

const STEPS = ["setup", "claim", "suppressions", "provider", "record", "next"] as const;
type Step = (typeof STEPS)[number];

type Window = {
  startMs: number;
  endMs: number;
  recipients: number;
  batches: number;
  steps: Record<Step, number>;
  gcMs: number;
  gcCount: number;
  loopP99Ms: number;
  load: number;
};

const emptySteps = (): Record<Step, number> => ({ setup: 0, claim: 0, suppressions: 0, provider: 0, record: 0, next: 0 });

export function recordSendWindows(windowMs: number): { stop(): Window[] } {
  const started = performance.now();
  const windows: Window[] = [];
  let current: Window = { startMs: 0, endMs: 0, recipients: 0, batches: 0, steps: emptySteps(), gcMs: 0, gcCount: 0, loopP99Ms: 0, load: 0 };
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const close = () => {
    current.endMs = performance.now() - started;
    current.loopP99Ms = loop.percentile(99) / 1e6;
    current.load = loadavg()[0] ?? 0;
    loop.reset();
    windows.push(current);
    current = { startMs: current.endMs, endMs: 0, recipients: 0, batches: 0, steps: emptySteps(), gcMs: 0, gcCount: 0, loopP99Ms: 0, load: 0 };
  };
  const onBatch = (message: unknown) => {
    const steps = message as BatchSteps;
    if (steps.recipients === 0) return;
    current.recipients += steps.recipients;
    current.batches++;
    for (const step of STEPS) current.steps[step] += steps[step];
  };
  subscribe(BATCH_STEPS_CHANNEL, onBatch);
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      current.gcMs += entry.duration;
      current.gcCount++;
    }
  });
  gc.observe({ entryTypes: ["gc"] });
  const timer = setInterval(close, windowMs);
  return {
    stop() {
      clearInterval(timer);
      gc.disconnect();
      unsubscribe(BATCH_STEPS_CHANNEL, onBatch);
      if (current.recipients > 0) close();
      loop.disable();
      return windows;
    },
  };
}

const n = (value: number) => Math.round(value).toLocaleString("en");
const rate = (w: Window) => w.recipients / ((w.endMs - w.startMs) / 1000);
const perBatch = (w: Window, step: Step) => (w.batches === 0 ? 0 : w.steps[step] / w.batches);

/** The windows as lines: rate, per-batch steps, GC, event loop, load; then what grew in the windows where the rate fell. */
export function formatSendWindows(label: string, windowMs: number, windows: Window[]): string[] {
  const lines = [
    `${label}: send rate per ${windowMs / 1000} s window (recipients recorded per second; mean ms per batch of each engine step; GC pauses; event loop delay p99; load average)`,
  ];
  for (const w of windows) {
    lines.push(
      `  ${(w.startMs / 1000).toFixed(0).padStart(5)}–${(w.endMs / 1000).toFixed(0)} s: ${n(rate(w)).padStart(7)}/s, ${w.batches} batches (${STEPS.map((step) => `${step} ${perBatch(w, step).toFixed(1)}`).join(", ")}); GC ${n(w.gcMs)} ms in ${w.gcCount}; loop p99 ${w.loopP99Ms.toFixed(0)} ms; load ${w.load.toFixed(1)}`,
    );
  }
  // The last window is partial (the job's end); it is shown but not judged.
  const judged = windows.length > 2 ? windows.slice(0, -1) : windows;
  const sorted = [...judged].sort((a, b) => rate(a) - rate(b));
  const median = sorted[Math.floor(sorted.length / 2)];
  if (!median) return lines;
  const fell = judged.filter((w) => rate(w) < 0.8 * rate(median));
  if (fell.length === 0) {
    lines.push(`  the rate stayed within 80 % of the median window's (${n(rate(median))}/s) throughout`);
    return lines;
  }
  const windowSeconds = (w: Window) => (w.endMs - w.startMs) / 1000;
  for (const w of fell) {
    // What each batch spent more than in the median window, and GC's share of the window against the median's.
    const grown = STEPS.map((step) => ({ what: step, by: perBatch(w, step) - perBatch(median, step), from: perBatch(median, step) }));
    const gcShare = w.gcMs / windowSeconds(w) / 10 - median.gcMs / windowSeconds(median) / 10;
    const top = grown.sort((a, b) => b.by - a.by)[0];
    const named =
      top && top.by > 0
        ? `${top.what} +${top.by.toFixed(1)} ms per batch (median window ${top.from.toFixed(1)} ms)`
        : "no engine step grew (the time went between batches)";
    lines.push(
      `  fell at ${(w.startMs / 1000).toFixed(0)}–${(w.endMs / 1000).toFixed(0)} s: ${n(rate(w))}/s = ${Math.round((100 * rate(w)) / rate(median))} % of the median window's ${n(rate(median))}/s; grew most: ${named}; GC ${gcShare >= 0 ? "+" : ""}${gcShare.toFixed(1)} % of the window against the median's; load ${w.load.toFixed(1)} (median window ${median.load.toFixed(1)})`,
    );
  }
  return lines;
}
