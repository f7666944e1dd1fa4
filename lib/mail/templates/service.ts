import { and, desc, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import type { z } from "@hono/zod-openapi";
import { mailTemplates, type StackRecord } from "../../db/schema";
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "../../core/errors";
import { beforeCursor, toPage, type Cursor } from "../../core/pagination";
import { unusableBlocksError, usableBlocksById } from "../setup/blocks";
import type { CreateTemplate, Template as TemplateSchema } from "./schema";
import { checkPlaceholderSyntax } from "../setup/syntax";

export type TemplateRow = typeof mailTemplates.$inferSelect;

/** A template as both APIs show it: the type of the customer API's `Template` schema, written once there. */
export type Template = z.infer<typeof TemplateSchema>;

export function toTemplateView(row: TemplateRow): Template {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    origin: row.origin,
    subject: row.subject,
    status: row.status,
    params: row.params,
    blocks: row.blocks ?? null,
    values: row.values,
    from: row.from ?? null,
    version: row.version,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** What a template is made from: the customer API's create body, plus what only the admin API sets. */
export type TemplateInput = z.infer<typeof CreateTemplate> & Partial<Pick<Template, "kind" | "params" | "from">>;

/**
 * A stack may only reference blocks the customer can use (403 otherwise, as in preview), and a saved
 * stack carries no footer: the footer comes from the customer's frame (422).
 */
async function checkStack(db: Database, customerId: string, stack: StackRecord): Promise<void> {
  const ids = [...new Set(stack.map((entry) => entry.block_id))];
  const usable = await usableBlocksById(db, customerId, ids);
  const unusable = unusableBlocksError(stack, usable);
  if (unusable) throw unusable;
  const footers = stack.flatMap((entry, i) => (usable.get(entry.block_id)?.tags.some((t) => t.slug === "footer") ? [i] : []));
  if (footers.length > 0) {
    throw new ValidationError(
      "A template stack must not contain footer blocks; the footer comes from the account's frame.",
      footers.map((i) => ({ path: `blocks.${i}.block_id`, message: "This block is tagged footer." })),
    );
  }
  checkPlaceholderSyntax(stack.flatMap((entry, i) => Object.entries(entry.values).map(([k, v]): [string, string] => [`blocks.${i}.values.${k}`, v])));
}

export async function createTemplate(db: Database, customerId: string, origin: Template["origin"], input: TemplateInput): Promise<Template> {
  await checkStack(db, customerId, input.blocks);
  checkPlaceholderSyntax([["subject", input.subject]]);
  const [row] = await db
    .insert(mailTemplates)
    .values({
      customerId,
      origin,
      name: input.name,
      subject: input.subject,
      blocks: input.blocks,
      values: input.values ?? {},
      status: input.status ?? "active",
      // Builder templates are newsletters with fixed values; only admin templates carry a contract.
      kind: origin === "customer" ? "newsletter" : (input.kind ?? "transactional"),
      params: origin === "customer" ? [] : (input.params ?? []),
      from: input.from ?? null,
    })
    .returning();
  if (!row) throw new Error("template insert returned nothing");
  return toTemplateView(row);
}

function own(customerId: string, id: string) {
  return and(eq(mailTemplates.customerId, customerId), eq(mailTemplates.id, id), isNull(mailTemplates.deletedAt));
}

export async function getTemplateRow(db: Database, customerId: string, id: string): Promise<TemplateRow> {
  const [row] = await db.select().from(mailTemplates).where(own(customerId, id));
  if (!row) throw new NotFoundError("Template");
  return row;
}

/** Newest first; the cursor is (created_at, id) of the last item. */
export async function listTemplates(db: Database, customerId: string, input: { limit: number; after: Cursor | null }) {
  const after = beforeCursor(mailTemplates.createdAt, mailTemplates.id, input.after);
  const rows = await db
    .select()
    .from(mailTemplates)
    .where(and(eq(mailTemplates.customerId, customerId), isNull(mailTemplates.deletedAt), after))
    .orderBy(desc(mailTemplates.createdAt), desc(mailTemplates.id))
    .limit(input.limit + 1);
  return toPage(rows.map(toTemplateView), input.limit, (t) => ({ at: t.created_at, id: t.id }));
}

function requireCustomerOrigin(row: TemplateRow): void {
  if (row.origin !== "customer") {
    throw new ForbiddenError("This template is maintained by an administrator; only templates saved through the API can be changed or deleted.");
  }
}

/** `params` and `from` are the operator's (admin routes); the customer API offers the other fields. */
export type TemplateUpdate = Partial<Pick<TemplateInput, "name" | "subject" | "blocks" | "values" | "params" | "from">> & {
  status?: Template["status"];
};

export async function updateTemplate(
  db: Database,
  customerId: string,
  id: string,
  input: TemplateUpdate,
  now: Date,
  origin: Template["origin"] = "customer",
): Promise<Template> {
  const row = await getTemplateRow(db, customerId, id);
  if (origin === "customer") requireCustomerOrigin(row);
  if (input.params !== undefined && input.params.length > 0 && row.origin === "customer") {
    // Builder templates are filled with fixed values and recipient data; a contract would never be checked.
    throw new ValidationError("Only admin-origin templates carry a parameter contract.", [
      { path: "params", message: "This template was saved by the customer's builder." },
    ]);
  }
  if (input.blocks) await checkStack(db, customerId, input.blocks);
  if (input.subject !== undefined) checkPlaceholderSyntax([["subject", input.subject]]);
  const [updated] = await db
    .update(mailTemplates)
    .set({ ...input, version: sql`${mailTemplates.version} + 1`, updatedAt: now })
    .where(own(customerId, id))
    .returning();
  if (!updated) throw new NotFoundError("Template");
  return toTemplateView(updated);
}

/**
 * Deletes a customer-origin template. Messages keep their `template_id`; the template no longer answers.
 * `inUse` lets the send-job domain veto deleting a template of a running or scheduled job (409).
 */
export async function deleteTemplate(db: Database, customerId: string, id: string, now: Date, inUse?: (templateId: string) => Promise<boolean>): Promise<void> {
  const row = await getTemplateRow(db, customerId, id);
  requireCustomerOrigin(row);
  if (inUse && (await inUse(id))) {
    throw new ConflictError("The template is used by a running or scheduled send job; cancel the job first.", { reason: "template_in_use" });
  }
  await db.update(mailTemplates).set({ deletedAt: now }).where(own(customerId, id));
}
