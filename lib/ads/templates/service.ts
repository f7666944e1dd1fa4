import { createHmac } from "node:crypto";
import { and, asc, eq } from "drizzle-orm";
import { z } from "zod";
import { NotFoundError, ValidationError } from "../../core/errors";
import { safeEqual, sha256Hex } from "../../core/secrets";
import type { Database } from "../../db/client";
import { adsImages, adsRenderedImages, adsTemplateAssignments, adsTemplates } from "../../db/schema";
import { insertCreativeDraft } from "../creatives/service";
import type { AdsDeps } from "../deps";
import { connectAdAccount } from "../onboarding/service";
import { CREATIVE_RATIOS, type CreativeRatio } from "../platform/placement-creative";
import { upstream } from "../upstream";
import { definitionOf, HighlightStyle, Layouts, layoutProblems, TemplateParam } from "./layout";
import { checkValues, renderRatio, renderTemplate, resolveValues, valueUrlPolicy } from "./render";
import { startVideoRender, type VideoRenderStarted } from "./video-render";
import type { AdminAdTemplate, Assignment } from "./schema";
import type {
  RenderedCreative as RenderedCreativeSchema,
  TemplateDetail as TemplateDetailSchema,
  TemplateListItem as TemplateListItemSchema,
  TemplatePreview as TemplatePreviewSchema,
} from "./customer-schema";

/*
 * Ad templates: the operator maintains them and assigns them per customer (with preview values); a
 * customer lists its active assigned templates, opens their previews without a key (signed URLs), and
 * renders one into a creative draft whose three formats become the placements of an ad.
 */

type Row = typeof adsTemplates.$inferSelect;

/** What the operator sends; `layouts` and params are checked again as a whole (`layoutProblems`). */
export const TemplateInput = z.strictObject({
  name: z.string().trim().min(1).max(100),
  description: z.string().max(500).default(""),
  type: z.enum(["image", "video"]),
  params: z.array(TemplateParam).max(30),
  layouts: Layouts,
  highlight: HighlightStyle.nullable().default(null),
});
export type TemplateInput = z.infer<typeof TemplateInput>;

/**
 * The API's `AdminAdTemplate` schema (one schema per resource), with the definition (`params`, `layouts`,
 * `highlight`) typed as it is checked rather than as the document shows it (open objects).
 */
export type AdminTemplateView = Omit<z.infer<typeof AdminAdTemplate>, keyof TemplateInput> & TemplateInput;

function adminView(row: Row): AdminTemplateView {
  const definition = definitionOf(row);
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    type: row.type,
    status: row.status,
    revision: row.revision,
    ...definition,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

function assertLayouts(input: Pick<TemplateInput, "params" | "layouts" | "highlight" | "type">): void {
  const problems = layoutProblems(input.params, input.layouts, input.highlight);
  if (input.type === "image" && input.params.some((p) => p.type === "video"))
    problems.push({ path: "params", message: "Video parameters belong to video templates." });
  if (input.type === "video" && input.params.filter((p) => p.type === "video" && p.required).length !== 1) {
    problems.push({ path: "params", message: "A video template has exactly one required video parameter: the background the layout is drawn on." });
  }
  if (problems.length > 0) throw new ValidationError("The template's layouts do not fit its parameters; see details.", problems);
}

// ---- operator ------------------------------------------------------------------------------

export async function createAdTemplate(deps: Pick<AdsDeps, "db" | "clock">, input: TemplateInput): Promise<AdminTemplateView> {
  assertLayouts(input);
  const now = deps.clock.now();
  const [row] = await deps.db
    .insert(adsTemplates)
    .values({ ...input, params: input.params, layouts: input.layouts, highlight: input.highlight, createdAt: now, updatedAt: now })
    .returning();
  if (!row) throw new Error("template insert returned nothing");
  return adminView(row);
}

async function requireTemplate(db: Database, id: string): Promise<Row> {
  const [row] = await db.select().from(adsTemplates).where(eq(adsTemplates.id, id));
  if (!row) throw new NotFoundError("Template");
  return row;
}

export async function getAdTemplate(db: Database, id: string): Promise<AdminTemplateView> {
  return adminView(await requireTemplate(db, id));
}

export async function listAdTemplates(db: Database): Promise<AdminTemplateView[]> {
  return (await db.select().from(adsTemplates).orderBy(asc(adsTemplates.name), asc(adsTemplates.id))).map(adminView);
}

/** A partial update; the result is checked as a whole and gets a new revision (new preview URLs). */
export async function updateAdTemplate(
  deps: Pick<AdsDeps, "db" | "clock">,
  id: string,
  patch: Partial<TemplateInput> & { status?: "active" | "inactive" },
): Promise<AdminTemplateView> {
  const current = adminView(await requireTemplate(deps.db, id));
  const next = { ...current, ...patch };
  assertLayouts(next);
  const [row] = await deps.db
    .update(adsTemplates)
    .set({
      name: next.name,
      description: next.description,
      type: next.type,
      status: next.status,
      params: next.params,
      layouts: next.layouts,
      highlight: next.highlight,
      revision: current.revision + 1,
      updatedAt: deps.clock.now(),
    })
    .where(eq(adsTemplates.id, id))
    .returning();
  if (!row) throw new NotFoundError("Template");
  return adminView(row);
}

/** The API's `AdTemplateAssignment` schema. */
export type AssignmentView = z.infer<typeof Assignment>;

/** Assigns (again: keeps the stored preview values). */
export async function assignAdTemplate(deps: Pick<AdsDeps, "db" | "clock">, customerId: string, templateId: string): Promise<AssignmentView> {
  await requireTemplate(deps.db, templateId);
  const now = deps.clock.now();
  await deps.db.insert(adsTemplateAssignments).values({ customerId, templateId, createdAt: now, updatedAt: now }).onConflictDoNothing();
  return assignment(deps.db, customerId, templateId);
}

export async function unassignAdTemplate(db: Database, customerId: string, templateId: string): Promise<void> {
  const removed = await db
    .delete(adsTemplateAssignments)
    .where(and(eq(adsTemplateAssignments.customerId, customerId), eq(adsTemplateAssignments.templateId, templateId)))
    .returning({ id: adsTemplateAssignments.templateId });
  if (removed.length === 0) throw new NotFoundError("Assignment");
}

async function assignment(db: Database, customerId: string, templateId: string): Promise<AssignmentView> {
  const [row] = await db
    .select()
    .from(adsTemplateAssignments)
    .where(and(eq(adsTemplateAssignments.customerId, customerId), eq(adsTemplateAssignments.templateId, templateId)));
  if (!row) throw new NotFoundError("Assignment");
  return { template_id: row.templateId, customer_id: row.customerId, preview_values: row.previewValues, assigned_at: row.createdAt.toISOString() };
}

export async function listAssignments(db: Database, customerId: string): Promise<AssignmentView[]> {
  const rows = await db
    .select()
    .from(adsTemplateAssignments)
    .where(eq(adsTemplateAssignments.customerId, customerId))
    .orderBy(asc(adsTemplateAssignments.createdAt));
  return rows.map((row) => ({
    template_id: row.templateId,
    customer_id: row.customerId,
    preview_values: row.previewValues,
    assigned_at: row.createdAt.toISOString(),
  }));
}

/** The operator's preview values for one customer, checked like render values (images are not fetched here). */
export async function setPreviewValues(
  deps: Pick<AdsDeps, "db" | "clock" | "allowLoopbackOutbound" | "publicBaseUrl">,
  customerId: string,
  templateId: string,
  values: Record<string, string>,
): Promise<AssignmentView> {
  const template = await requireTemplate(deps.db, templateId);
  // Checked as a customer's render values are where they are fetched: nothing is stored that the renderer would refuse.
  checkValues(definitionOf(template), values, { useExamples: true, urls: valueUrlPolicy(deps) });
  const updated = await deps.db
    .update(adsTemplateAssignments)
    .set({ previewValues: values, updatedAt: deps.clock.now() })
    .where(and(eq(adsTemplateAssignments.customerId, customerId), eq(adsTemplateAssignments.templateId, templateId)))
    .returning({ id: adsTemplateAssignments.templateId });
  if (updated.length === 0) throw new NotFoundError("Assignment");
  return assignment(deps.db, customerId, templateId);
}

// ---- customer ------------------------------------------------------------------------------

/** The API's `TemplateListItem`, `TemplateDetail` (its parameters typed as checked) and `TemplatePreview` schemas. */
export type TemplateListItem = z.infer<typeof TemplateListItemSchema>;
export type TemplateDetail = Omit<z.infer<typeof TemplateDetailSchema>, "params"> & { params: TemplateParam[] };
export type TemplatePreview = z.infer<typeof TemplatePreviewSchema>;

/** `k` of the preview URLs: base64url HMAC-SHA256 of customer and template (DESIGN §5); stable, never expires. */
function previewToken(deps: Pick<AdsDeps, "secrets">, customerId: string, templateId: string): string {
  return createHmac("sha256", deps.secrets.deriveKey("ad-template-preview")).update(`${customerId}:${templateId}`).digest("base64url");
}

export function previewUrls(deps: Pick<AdsDeps, "secrets" | "publicBaseUrl">, customerId: string, templateId: string): Record<CreativeRatio, string> {
  const k = previewToken(deps, customerId, templateId);
  const url = (ratio: CreativeRatio) => `${deps.publicBaseUrl}/ads/v1/templates/${templateId}/preview.png?c=${customerId}&k=${k}&ratio=${ratio}`;
  return { "1:1": url("1:1"), "4:5": url("4:5"), "9:16": url("9:16") };
}

async function assignedActive(db: Database, customerId: string, templateId: string) {
  const [row] = await db
    .select({ template: adsTemplates, previewValues: adsTemplateAssignments.previewValues })
    .from(adsTemplateAssignments)
    .innerJoin(adsTemplates, eq(adsTemplates.id, adsTemplateAssignments.templateId))
    .where(and(eq(adsTemplateAssignments.customerId, customerId), eq(adsTemplateAssignments.templateId, templateId), eq(adsTemplates.status, "active")));
  return row;
}

function listItem(deps: Pick<AdsDeps, "secrets" | "publicBaseUrl">, customerId: string, row: Row): TemplateListItem {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    type: row.type,
    has_params: (row.params as unknown[]).length > 0,
    preview_urls: previewUrls(deps, customerId, row.id),
  };
}

export async function listCustomerTemplates(
  deps: Pick<AdsDeps, "db" | "secrets" | "publicBaseUrl">,
  customerId: string,
  page: { limit: number; offset: number },
): Promise<TemplateListItem[]> {
  const rows = await deps.db
    .select({ template: adsTemplates })
    .from(adsTemplateAssignments)
    .innerJoin(adsTemplates, eq(adsTemplates.id, adsTemplateAssignments.templateId))
    .where(and(eq(adsTemplateAssignments.customerId, customerId), eq(adsTemplates.status, "active")))
    .orderBy(asc(adsTemplates.name), asc(adsTemplates.id))
    .limit(page.limit)
    .offset(page.offset);
  return rows.map((r) => listItem(deps, customerId, r.template));
}

export async function getCustomerTemplate(
  deps: Pick<AdsDeps, "db" | "secrets" | "publicBaseUrl">,
  customerId: string,
  templateId: string,
): Promise<TemplateDetail> {
  const found = await assignedActive(deps.db, customerId, templateId);
  if (!found) throw new NotFoundError("Template");
  return { ...listItem(deps, customerId, found.template), params: definitionOf(found.template).params };
}

export async function getTemplatePreview(
  deps: Pick<AdsDeps, "db" | "secrets" | "publicBaseUrl">,
  customerId: string,
  templateId: string,
): Promise<TemplatePreview> {
  const found = await assignedActive(deps.db, customerId, templateId);
  if (!found) throw new NotFoundError("Template");
  return { template: templateId, params: found.previewValues, preview_urls: previewUrls(deps, customerId, templateId) };
}

/** Publishes JPEG bytes under their content address and returns the permanent URL. */
async function publish(deps: Pick<AdsDeps, "blobs">, bytes: Buffer): Promise<string> {
  const { url } = await deps.blobs.put(`creatives/${sha256Hex(bytes)}.jpg`, bytes, { contentType: "image/jpeg", cacheControlMaxAge: 31_536_000 });
  return url;
}

/** Bumped when the engine draws differently, so cached previews are rendered again. */
const ENGINE_REVISION = 2;
/**
 * A video template's preview shows its overlay on this dark backdrop where the video would run: the
 * public preview never fetches a background video (it is not signed by the customer's key and would cost
 * a download and a composition per view).
 */
const VIDEO_PREVIEW_BACKDROP = "#1f2937";

/**
 * `preview.png`: a wrong or missing token, an unknown ratio, or a template not (or no longer) assigned and
 * active answers null (404). The image is rendered on its first request with the stored preview values
 * (examples where none) and found by content afterwards: the address changes with the template's revision
 * and the values.
 */
export async function previewImageUrl(
  deps: AdsDeps,
  input: { templateId: string; customerId: string | undefined; token: string | undefined; ratio: string },
): Promise<string | null> {
  const { customerId, token, templateId } = input;
  if (!customerId || !token || !(CREATIVE_RATIOS as readonly string[]).includes(input.ratio)) return null;
  if (!safeEqual(token, previewToken(deps, customerId, templateId))) return null;
  const found = await assignedActive(deps.db, customerId, templateId);
  if (!found) return null;
  const ratio = input.ratio as CreativeRatio;
  const contentHash = sha256Hex(JSON.stringify([ENGINE_REVISION, found.template.id, found.template.revision, found.previewValues, ratio]));
  const [cached] = await deps.db.select().from(adsRenderedImages).where(eq(adsRenderedImages.contentHash, contentHash));
  if (cached) return cached.url;
  const definition = definitionOf(found.template);
  const values = await resolveValues(deps, definition, found.previewValues, { useExamples: true });
  const url = await publish(deps, await renderRatio(definition, values, ratio, found.template.type === "video" ? VIDEO_PREVIEW_BACKDROP : undefined));
  await deps.db.insert(adsRenderedImages).values({ contentHash, url, createdAt: deps.clock.now() }).onConflictDoNothing();
  return url;
}

export type RenderInput = { template: string; params: Record<string, unknown>; name?: string };
/** The API's `RenderedCreative` schema. */
export type RenderedCreative = z.infer<typeof RenderedCreativeSchema>;

/**
 * Renders an active assigned template in the three formats, uploads each to the ad account as an ad image,
 * publishes them at permanent URLs and stores a creative draft with the three image hashes; `POST /v1/ads`
 * turns it into one placement-customised creative.
 */
export async function renderCreative(deps: AdsDeps, customerId: string, input: RenderInput): Promise<RenderedCreative | VideoRenderStarted> {
  const found = await assignedActive(deps.db, customerId, input.template);
  if (!found)
    throw new ValidationError("The template cannot be rendered; see details.", [
      { path: "template", message: "No active template with this id is assigned to this account." },
    ]);
  const definition = definitionOf(found.template);
  if (found.template.type === "video") return startVideoRender(deps, customerId, found.template, definition, input.params, input.name);
  const values = await resolveValues(deps, definition, input.params, { useExamples: false });
  const account = await connectAdAccount(deps, customerId);
  const formats = await renderTemplate(definition, values);
  const now = deps.clock.now();
  const uploaded = await Promise.all(
    CREATIVE_RATIOS.map(async (ratio) => {
      const bytes = formats[ratio];
      const [image, url] = await Promise.all([
        upstream({ logger: deps.logger, customerId, action: "upload image" }, () => account.session.uploadImage(account.adAccountId, bytes)),
        publish(deps, bytes),
      ]);
      const { width, height } = { "1:1": { width: 1080, height: 1080 }, "4:5": { width: 1080, height: 1350 }, "9:16": { width: 1080, height: 1920 } }[ratio];
      const values = { url: image.url, width, height, bytes: bytes.length, format: "jpeg" };
      await deps.db
        .insert(adsImages)
        .values({ customerId, imageHash: image.hash, ...values, createdAt: now })
        .onConflictDoUpdate({ target: [adsImages.customerId, adsImages.imageHash], set: values });
      return { ratio, hash: image.hash, url };
    }),
  );
  const byRatio = <K extends "hash" | "url">(key: K) => Object.fromEntries(uploaded.map((u) => [u.ratio, u[key]])) as Record<CreativeRatio, string>;
  const creative = await insertCreativeDraft(
    deps.db,
    customerId,
    { name: input.name ?? found.template.name, type: "IMAGE", imageHashes: byRatio("hash"), templateId: found.template.id, formats: byRatio("url") },
    now,
  );
  return { id: creative.id, template: found.template.id, type: "IMAGE", formats: byRatio("url") };
}
