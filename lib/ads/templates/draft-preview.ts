import { z } from "@hono/zod-openapi";
import { ValidationError } from "../../core/errors";
import type { AdsDeps } from "../deps";
import { CREATIVE_RATIOS, type CreativeRatio } from "../platform/placement-creative";
import { HighlightStyle, Layouts, layoutProblems, TemplateParam } from "./layout";
import { renderRatio, resolveValues } from "./render";
// sharp is loaded on first use: only the Vercel functions that process images ship libvips (vercel.json, lib/commands/build.ts).
import { loadSharp } from "../../core/sharp";

/** The drawable part of a template, as the operator edits it (name and description play no part in a picture). */
export const TemplateDraft = z.strictObject({
  type: z.enum(["image", "video"]),
  params: z.array(TemplateParam).max(30),
  layouts: Layouts,
  highlight: HighlightStyle.nullable().default(null),
});
export type TemplateDraft = z.infer<typeof TemplateDraft>;

/** Width of the preview images: enough for a side-by-side view, a fraction of the 1080 px render to send. */
const DRAFT_PREVIEW_WIDTH = 360;
const VIDEO_BACKDROP = "#1f2937";

/**
 * An unsaved template in the three ratios, with the given values (the examples where none), drawn by the
 * engine that renders creatives and `preview.png`, then scaled to `DRAFT_PREVIEW_WIDTH` as JPEG data URLs.
 * Checked like a save (layout problems and values answer 422 with their path); nothing is stored.
 */
export async function previewTemplateDraft(
  deps: Pick<AdsDeps, "safeFetch">,
  draft: TemplateDraft,
  values: Record<string, string>,
): Promise<Record<CreativeRatio, string>> {
  const problems = layoutProblems(draft.params, draft.layouts, draft.highlight).map((p) => ({ ...p, path: `template.${p.path}` }));
  if (problems.length > 0) throw new ValidationError("The template's layouts do not fit its parameters; see details.", problems);
  const resolved = await resolveValues(deps, draft, values, { useExamples: true });
  const backdrop = draft.type === "video" ? VIDEO_BACKDROP : undefined;
  const images = await Promise.all(
    CREATIVE_RATIOS.map(async (ratio) => {
      const full = await renderRatio(draft, resolved, ratio, backdrop);
      const sharp = await loadSharp();
      const small = await sharp(full).resize({ width: DRAFT_PREVIEW_WIDTH }).jpeg({ quality: 80 }).toBuffer();
      return [ratio, `data:image/jpeg;base64,${small.toString("base64")}`] as const;
    }),
  );
  return Object.fromEntries(images) as Record<CreativeRatio, string>;
}
