import type { CreativeRatio } from "../platform/placement-creative";
import { satoriFonts } from "./fonts";
import { RATIO_SIZES } from "./layout";
import { loadSharp } from "../../core/sharp";

/*
 * satori and resvg, loaded on first use (satori takes ~0.45 s to import, which every function's cold start
 * would pay) and kept: an `import()` per drawing is a trip through the module loader each time (under tsx's
 * loader, a message to its thread and back), paid by every drawing.
 */
let satoriModule: Promise<typeof import("satori").default> | undefined;
let resvgModule: Promise<typeof import("@resvg/resvg-js").Resvg> | undefined;
const loadSatori = () => (satoriModule ??= import("satori").then((module) => module.default));
const loadResvg = () => (resvgModule ??= import("@resvg/resvg-js").then((module) => module.Resvg));

/*
 * Drawing: a finished element tree (texts fitted, values and images filled in) → satori (SVG) → resvg
 * (pixels) → sharp (JPEG or a transparent PNG). Pure and self-contained, so it runs the same in a render
 * worker as on the calling thread.
 */

export type Element = { type: string; props: Record<string, unknown> };

/**
 * resvg's options for a drawing. satori writes every text as paths (its fonts embedded), and images reach
 * it as JPEG or PNG data, so the SVG has no text for resvg to lay out: the system's fonts, which resvg
 * would otherwise load for every drawing (the larger part of a drawing's time), are never read.
 */
export const resvgOptions = { fitTo: { mode: "original" }, font: { loadSystemFonts: false } } as const;

/** One drawing: a JPEG with `backdrop` under transparency (creatives, previews), or a PNG keeping it (video overlays). */
export type DrawJob = { root: Element; ratio: CreativeRatio; output: "jpeg"; backdrop: string } | { root: Element; ratio: CreativeRatio; output: "png" };

export async function draw(job: DrawJob): Promise<Buffer> {
  const { width, height } = RATIO_SIZES[job.ratio];
  const satori = await loadSatori();
  const svg = await satori(job.root as never, { width, height, fonts: satoriFonts() });
  const background = job.output === "jpeg" ? job.backdrop : undefined;
  const [Resvg, sharp] = await Promise.all([loadResvg(), loadSharp()]);
  const pixels = new Resvg(svg, { ...resvgOptions, ...(background ? { background } : {}) }).render();
  const image = sharp(pixels.pixels, { raw: { width: pixels.width, height: pixels.height, channels: 4 } });
  if (job.output === "png") return image.png().toBuffer();
  return image.flatten({ background: job.backdrop }).toColourspace("srgb").jpeg({ quality: 90, mozjpeg: false }).toBuffer();
}
