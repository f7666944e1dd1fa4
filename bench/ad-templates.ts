import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { Resvg } from "@resvg/resvg-js";
import satori from "satori";
import sharp from "sharp";
import { SALE_BANNER } from "../lib/ads/templates/demo";
import { resvgOptions } from "../lib/ads/templates/draw";
import { satoriFonts } from "../lib/ads/templates/fonts";
import { RATIO_SIZES } from "../lib/ads/templates/layout";
import { checkValues, layoutElement, renderTemplate, type ResolvedValues } from "../lib/ads/templates/render";
import { renderWorkerCount } from "../lib/ads/templates/render-pool";
import { CREATIVE_RATIOS } from "../lib/ads/platform/placement-creative";
import { benchDataDir } from "./data-dir";

/**
 * DESIGN §6: an ad template render of three formats (target p50 ≤ 300 ms on 2 cores) beside a
 * floor measured in the same run — satori, resvg and sharp called directly on the same element trees with
 * the engine's options, so the ratio is what our engine adds (value checks, text fitting, element building,
 * the hand-over to the render workers); a cached `preview.png` through the whole app (target p50 ≤ 5 ms);
 * and memory over 200 renders (flat).
 *
 * Engine and floor runs alternate, so both meet the same machine: a burst of other work (another bench's
 * process ending, a compaction) lands on both instead of on whichever ran in that minute. The cached
 * preview boots a runtime with the Demo; it runs in a process of its own, so each process's peak RSS is
 * that part's: the render engine's (this process: its render workers and the floor's libraries) and the
 * server's serving cached previews.
 */

const runs = 40;
const warmUp = 5;

function percentile(samples: readonly number[], fraction: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

function values(headline: string): ResolvedValues {
  const { text, color } = checkValues(SALE_BANNER, { headline, price: "€ 49.90", brand_color: "#0f766e", cta: "Shop now" }, { useExamples: false });
  return { text, color, image: new Map() };
}

/** Runs `a` and `b` alternately (after warm-up runs of each); samples of each. */
async function alternating(a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number[], number[]]> {
  for (let i = 0; i < warmUp; i++) {
    await a();
    await b();
  }
  const samples: [number[], number[]] = [[], []];
  for (let i = 0; i < runs; i++) {
    for (const [index, run] of (i % 2 === 0 ? [a, b] : [b, a]).entries()) {
      const started = performance.now();
      await run();
      samples[(i % 2 === 0) === (index === 0) ? 0 : 1].push(performance.now() - started);
    }
  }
  return samples;
}

function peakRssMb(): number {
  // VmHWM: the process's peak resident memory (every thread: the main one, render workers, libvips).
  return Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? Number.NaN) / 1024;
}

/** A cached preview.png through the app (auth-free route, token check, one database read, 302), in this process. */
async function cachedPreview(): Promise<void> {
  const { eq } = await import("drizzle-orm");
  const { previewUrls } = await import("../lib/ads/templates/service");
  const { bootRuntime } = await import("../lib/bootstrap");
  const { adsTemplates } = await import("../lib/db/schema");
  const { seedDemo } = await import("../lib/seed");
  const runtime = await bootRuntime({
    ...process.env,
    DATA_DIR: benchDataDir("bench-templates-"),
    LOG_LEVEL: "warn",
    RATE_LIMIT_PER_MINUTE: "100000000",
  });
  const demo = await seedDemo(runtime.deps, runtime.app.adsDeps);
  const [sale] = await runtime.deps.db.select({ id: adsTemplates.id }).from(adsTemplates).where(eq(adsTemplates.name, SALE_BANNER.name));
  if (!sale) throw new Error("no demo sale banner");
  const url = new URL(previewUrls(runtime.deps, demo.customerId, sale.id)["4:5"]);
  const path = url.pathname + url.search;
  const first = await runtime.app.root.request(path);
  if (first.status !== 302) throw new Error(`preview.png answered ${first.status}`);
  const cached: number[] = [];
  for (let i = 0; i < 200; i++) {
    const started = performance.now();
    const response = await runtime.app.root.request(path);
    cached.push(performance.now() - started);
    if (response.status !== 302) throw new Error(`preview.png answered ${response.status}`);
  }
  await runtime.close();
  process.stdout.write(`${JSON.stringify({ p50: percentile(cached, 0.5), p95: percentile(cached, 0.95), peakMb: peakRssMb() })}\n`);
}

export async function benchAdTemplates(): Promise<void> {
  // The floor: the three libraries on the same trees, nothing of ours in between.
  const fixed = values("Spring [[Sale]] on all shoes");
  const trees = CREATIVE_RATIOS.map((ratio) => layoutElement(SALE_BANNER, fixed, ratio));
  const fonts = satoriFonts();
  const [engine, floor] = await alternating(
    () => renderTemplate(SALE_BANNER, values("Spring [[Sale]] on all shoes")),
    () =>
      Promise.all(
        CREATIVE_RATIOS.map(async (ratio, i) => {
          const { width, height } = RATIO_SIZES[ratio];
          const svg = await satori(trees[i] as never, { width, height, fonts });
          const pixels = new Resvg(svg, { ...resvgOptions, background: "#ffffff" }).render();
          return sharp(pixels.pixels, { raw: { width, height, channels: 4 } })
            .flatten({ background: "#ffffff" })
            .toColourspace("srgb")
            .jpeg({ quality: 90 })
            .toBuffer();
        }),
      ),
  );

  // Memory over 200 renders with changing text (nothing may accumulate per render).
  const rss: number[] = [];
  for (let i = 1; i <= 200; i++) {
    await renderTemplate(SALE_BANNER, values(`Sale number ${i} [[today]]`));
    if (i % 20 === 0) rss.push(process.memoryUsage().rss / 1024 / 1024);
  }
  const workers = await renderWorkerCount();
  const enginePeakMb = peakRssMb();

  // The cached preview in a process of its own (same Node flags and environment as this one).
  const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), "--cached-preview"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (child.status !== 0) throw new Error(`the cached-preview process failed (${child.status ?? child.signal})`);
  const preview: { p50: number; p95: number; peakMb: number } = JSON.parse(child.stdout.trim().split("\n").at(-1) ?? "{}");

  const p50 = percentile(engine, 0.5);
  const floor50 = percentile(floor, 0.5);
  const line = (label: string, value: string) => process.stdout.write(`${label.padEnd(58)}${value}\n`);
  process.stdout.write("\n== Ad templates (sale banner, three formats, in process)\n");
  line("render, three formats p50 / p95", `${p50.toFixed(0)} ms / ${percentile(engine, 0.95).toFixed(0)} ms   (target p50 ≤ 300 ms)`);
  line("floor: satori + resvg + sharp on the same trees p50", `${floor50.toFixed(0)} ms`);
  line(
    "engine / floor (p50)",
    `${(p50 / floor50).toFixed(2)}×   (target ≤ 1.2×; the engine draws on ${workers} worker thread(s), the floor on the main thread; runs alternate)`,
  );
  line("cached preview.png through the app p50 / p95", `${preview.p50.toFixed(2)} ms / ${preview.p95.toFixed(2)} ms   (target p50 ≤ 5 ms)`);
  line("RSS after 20 / 100 / 200 renders", `${rss[0]?.toFixed(0)} / ${rss[4]?.toFixed(0)} / ${rss[9]?.toFixed(0)} MB (peak ${Math.max(...rss).toFixed(0)} MB)`);
  line("peak RSS: render engine process (workers, floor)", `${enginePeakMb.toFixed(0)} MB   (target ≤ 400 MB)`);
  line("peak RSS: cached-preview process (runtime, Demo)", `${preview.peakMb.toFixed(0)} MB   (target ≤ 400 MB)`);
  line("load average (1 min)", `${loadavg()[0]?.toFixed(1)}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes("--cached-preview")) await cachedPreview();
  else await benchAdTemplates();
}
