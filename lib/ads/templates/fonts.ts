import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import opentype from "opentype.js";
import { FONT_WEIGHTS } from "./layout";

/*
 * Fonts ship with the project as npm packages (`@fontsource/inter`, WOFF: satori reads WOFF, not WOFF2)
 * and are loaded once per process: satori caches parsed fonts per buffer, so the same buffers are handed
 * to every render. No system fonts, no network.
 */

type Weight = (typeof FONT_WEIGHTS)[number];
export type SatoriFont = { name: string; data: Buffer; weight: Weight; style: "normal" };

const SUBSETS = ["latin", "latin-ext"] as const;

let satori: SatoriFont[] | null = null;
let metrics: Map<Weight, opentype.Font[]> | null = null;

function fontFile(weight: Weight, subset: string): Buffer {
  const root = dirname(createRequire(import.meta.url).resolve("@fontsource/inter/package.json"));
  return readFileSync(join(root, "files", `inter-${subset}-${weight}-normal.woff`));
}

/** The font files, read once. A render worker needs only these (satori parses them itself). */
export function satoriFonts(): SatoriFont[] {
  satori ??= FONT_WEIGHTS.flatMap((weight) =>
    SUBSETS.map((subset): SatoriFont => ({ name: "Inter", data: fontFile(weight, subset), weight, style: "normal" })),
  );
  return satori;
}

/** The fonts parsed for their glyph advances, once, where text is fitted (not in the render workers). */
function fontMetrics(): Map<Weight, opentype.Font[]> {
  if (metrics === null) {
    metrics = new Map();
    for (const { data, weight } of satoriFonts()) {
      const parsed = opentype.parse(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer);
      metrics.set(weight, [...(metrics.get(weight) ?? []), parsed]);
    }
  }
  return metrics;
}

/**
 * The advance width of a text in pixels, from the glyphs' advances (no kerning, which only narrows Inter:
 * the estimate errs on the wide side, so text that fits here fits on the image).
 */
export function textWidth(text: string, fontSize: number, weight: Weight, letterSpacing = 0): number {
  let ems = 0;
  let count = 0;
  for (const ch of text) {
    count++;
    ems += advance(weight, ch);
  }
  return ems * fontSize + letterSpacing * count;
}

/** Advance widths in ems per weight and character, looked up in the font once. */
const advances = new Map<string, number>();

function advance(weight: Weight, ch: string): number {
  const key = `${weight}:${ch}`;
  let ems = advances.get(key);
  if (ems === undefined) {
    const faces = fontMetrics().get(weight) ?? [];
    const face = faces.find((f) => f.charToGlyphIndex(ch) > 0) ?? faces[0];
    ems = face ? (face.charToGlyph(ch).advanceWidth ?? face.unitsPerEm / 2) / face.unitsPerEm : 0.5;
    // Bounded: text is user input, and a map per distinct character could otherwise grow without end.
    if (advances.size < 20_000) advances.set(key, ems);
  }
  return ems;
}
