import { textWidth } from "./fonts";

/** A run of text, highlighted or not. */
export type Segment = { text: string; highlight: boolean };

const MARK = /\[\[([^[\]]+)\]\]/g;

/**
 * `[[word]]` marks a highlight, only where the parameter supports it; elsewhere the brackets stay as
 * typed. Adjacent text is kept as it is, spaces included.
 */
export function segmentsOf(value: string, supportsHighlight: boolean): Segment[] {
  if (!supportsHighlight) return [{ text: value, highlight: false }];
  const segments: Segment[] = [];
  let last = 0;
  for (const match of value.matchAll(MARK)) {
    if (match.index > last) segments.push({ text: value.slice(last, match.index), highlight: false });
    segments.push({ text: match[1] ?? "", highlight: true });
    last = match.index + match[0].length;
  }
  if (last < value.length) segments.push({ text: value.slice(last), highlight: false });
  return segments;
}

/** The text a reader sees (what min_chars/max_chars count): highlight brackets removed where they apply. */
export function visibleText(segments: readonly Segment[]): string {
  return segments.map((s) => s.text).join("");
}

export type FitBox = { width: number; height: number | null; maxLines: number | null; lineHeight: number; weight: 400 | 700 | 800; letterSpacing: number };

/** Lines the text wraps into at this size (greedy at spaces, as satori wraps), or null when a word alone is too wide. */
function lineCount(segments: readonly Segment[], fontSize: number, box: FitBox): number | null {
  const words = segments.flatMap((s) => s.text.split(/(\s+)/).filter((w) => w.length > 0));
  const space = textWidth(" ", fontSize, box.weight, box.letterSpacing);
  let lines = 1;
  let used = 0;
  for (const word of words) {
    if (/^\s+$/.test(word)) {
      if (word.includes("\n")) {
        lines++;
        used = 0;
      } else if (used > 0) used += space;
      continue;
    }
    const width = textWidth(word, fontSize, box.weight, box.letterSpacing);
    if (width > box.width) return null;
    if (used > 0 && used + width > box.width) {
      lines++;
      used = width;
    } else used += width;
  }
  return lines;
}

/**
 * The largest font size from `fontSize` down to `minFontSize` (2 px steps, the minimum last) at which the
 * text fits its box, or null when it does not fit even at the minimum: it is then refused, never cut off.
 */
export function fittingFontSize(segments: readonly Segment[], fontSize: number, minFontSize: number, box: FitBox): number | null {
  const fits = (size: number) => {
    const lines = lineCount(segments, size, box);
    if (lines === null) return false;
    if (box.maxLines !== null && lines > box.maxLines) return false;
    return box.height === null || lines * size * box.lineHeight <= box.height;
  };
  for (let size = fontSize; size > minFontSize; size -= 2) if (fits(size)) return size;
  return fits(minFontSize) ? minFontSize : null;
}
