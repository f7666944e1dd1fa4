import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import type { BlockParam } from "../../db/json-columns";
import { mailBlockEnablements, mailBlocks, type TagRecord } from "../../db/schema";
import { ForbiddenError, NotFoundError, ValidationError } from "../../core/errors";
import { checkPlaceholderSyntax } from "./syntax";

export type BlockRow = typeof mailBlocks.$inferSelect;

export type BlockInput = {
  slug: string;
  name: string;
  description: string | null;
  mjml: string;
  params: BlockParam[];
  tags: TagRecord[];
  series: TagRecord | null;
};

/** `header` and `footer` are built in: their labels are fixed so every customer sees the same names. */
const builtInTags: Record<string, string> = { header: "Header", footer: "Footer" };

function checkBlock(input: Partial<BlockInput>): void {
  if (input.mjml !== undefined) checkPlaceholderSyntax([["mjml", input.mjml]]);
  const problems: { path: string; message: string }[] = [];
  const names = new Set<string>();
  for (const [i, p] of (input.params ?? []).entries()) {
    if (names.has(p.name)) problems.push({ path: `params.${i}.name`, message: `Duplicate parameter "${p.name}".` });
    names.add(p.name);
  }
  for (const [i, tag] of (input.tags ?? []).entries()) {
    const label = builtInTags[tag.slug];
    if (label && tag.label !== label) problems.push({ path: `tags.${i}.label`, message: `The built-in tag "${tag.slug}" is labelled "${label}".` });
  }
  if (problems.length > 0) throw new ValidationError("The block is invalid; see details.", problems);
}

export async function createBlock(db: Database, input: BlockInput): Promise<BlockRow> {
  checkBlock(input);
  const [row] = await db.insert(mailBlocks).values(input).returning();
  if (!row) throw new Error("block insert returned nothing");
  return row;
}

/** Every change bumps `version`, which invalidates tiles and compiled templates built from the block. */
export async function updateBlock(db: Database, id: string, input: Partial<BlockInput> & { active?: boolean }, now: Date): Promise<BlockRow> {
  checkBlock(input);
  const [row] = await db
    .update(mailBlocks)
    .set({ ...input, version: sql`${mailBlocks.version} + 1`, updatedAt: now })
    .where(eq(mailBlocks.id, id))
    .returning();
  if (!row) throw new NotFoundError("Block");
  return row;
}

/**
 * Deactivation as a conditional update: only an active block changes (and gets a new version), so
 * deactivating twice leaves the version alone. Null when the block does not exist.
 */
export async function deactivateBlock(db: Database, id: string, now: Date): Promise<BlockRow | null> {
  const [row] = await db
    .update(mailBlocks)
    .set({ active: false, version: sql`${mailBlocks.version} + 1`, updatedAt: now })
    .where(and(eq(mailBlocks.id, id), eq(mailBlocks.active, true)))
    .returning();
  return row ?? getBlock(db, id);
}

export async function listAllBlocks(db: Database): Promise<BlockRow[]> {
  return db.select().from(mailBlocks).orderBy(asc(mailBlocks.createdAt), asc(mailBlocks.id));
}

export async function getBlock(db: Database, id: string): Promise<BlockRow | null> {
  const [row] = await db.select().from(mailBlocks).where(eq(mailBlocks.id, id));
  return row ?? null;
}

export async function setBlockEnabled(db: Database, customerId: string, blockId: string, enabled: boolean): Promise<void> {
  if (!(await getBlock(db, blockId))) throw new NotFoundError("Block");
  if (enabled) {
    await db.insert(mailBlockEnablements).values({ customerId, blockId }).onConflictDoNothing();
  } else {
    await db.delete(mailBlockEnablements).where(and(eq(mailBlockEnablements.customerId, customerId), eq(mailBlockEnablements.blockId, blockId)));
  }
}

/** The blocks a customer may use: enabled for it by an admin and active. */
export async function listUsableBlocks(db: Database, customerId: string): Promise<BlockRow[]> {
  const rows = await db
    .select({ block: mailBlocks })
    .from(mailBlocks)
    .innerJoin(mailBlockEnablements, and(eq(mailBlockEnablements.blockId, mailBlocks.id), eq(mailBlockEnablements.customerId, customerId)))
    .where(eq(mailBlocks.active, true))
    .orderBy(asc(mailBlocks.createdAt), asc(mailBlocks.id));
  return rows.map((r) => r.block);
}

/**
 * The blocks enabled for a customer, active or not: the operator's view. An inactive block keeps its
 * enablement, so reactivating it makes it usable again without enabling it per customer.
 */
export async function listEnabledBlocks(db: Database, customerId: string): Promise<(BlockRow & { enabledAt: Date })[]> {
  const rows = await db
    .select({ block: mailBlocks, enabledAt: mailBlockEnablements.enabledAt })
    .from(mailBlocks)
    .innerJoin(mailBlockEnablements, and(eq(mailBlockEnablements.blockId, mailBlocks.id), eq(mailBlockEnablements.customerId, customerId)))
    .orderBy(asc(mailBlocks.createdAt), asc(mailBlocks.id));
  return rows.map((r) => ({ ...r.block, enabledAt: r.enabledAt }));
}

export async function usableBlocksById(db: Database, customerId: string, ids: string[]): Promise<Map<string, BlockRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ block: mailBlocks })
    .from(mailBlocks)
    .innerJoin(mailBlockEnablements, and(eq(mailBlockEnablements.blockId, mailBlocks.id), eq(mailBlockEnablements.customerId, customerId)))
    .where(and(eq(mailBlocks.active, true), inArray(mailBlocks.id, ids)));
  return new Map(rows.map((r) => [r.block.id, r.block]));
}

/**
 * The 403 of a stack that names blocks the account cannot use (not enabled, or inactive): `details` has
 * one `{ path, message }` per offending stack entry, as the mail spec's error body wants.
 */
export function unusableBlocksError(stack: readonly { block_id: string }[], usable: ReadonlyMap<string, unknown>): ForbiddenError | null {
  const details = stack.flatMap((entry, i) =>
    usable.has(entry.block_id) ? [] : [{ path: `blocks.${i}.block_id`, message: `Block ${entry.block_id} is not enabled or not active for this account.` }],
  );
  return details.length > 0 ? new ForbiddenError("The stack references blocks that are not enabled or not active for this account.", details) : null;
}
