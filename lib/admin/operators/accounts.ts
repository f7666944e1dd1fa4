import { and, asc, count, eq, isNull, ne } from "drizzle-orm";
import type { Clock } from "../../base/clock";
import { ConflictError, NotFoundError } from "../../core/errors";
import type { Database } from "../../db/client";
import { consoleSessions, operators, operatorTokens, type operatorRoles } from "../../db/schema";
import type { z } from "@hono/zod-openapi";
import type { Operator } from "./schema";

/**
 * Operator accounts. Invariants: an e-mail is stored lower-case and names one account; a password exists
 * only as an argon2id hash (`@node-rs/argon2`: argon2id, its defaults m = 19 MiB, t = 2, p = 1, as OWASP
 * recommends); accounts are disabled, never deleted; there is always at least one enabled owner once the
 * first exists (the last one can be neither demoted nor disabled: 409). Disabling an account ends its
 * console sessions and revokes its tokens in the same transaction.
 */
export type OperatorRole = (typeof operatorRoles)[number];

export type OperatorView = z.infer<typeof Operator>;

function toOperatorView(row: typeof operators.$inferSelect): OperatorView {
  return { id: row.id, email: row.email, role: row.role, created_at: row.createdAt.toISOString(), disabled_at: row.disabledAt?.toISOString() ?? null };
}

/** Loaded on the first password operation: a function cold start that never signs anyone in does not load the addon. */
const argon2 = () => import("@node-rs/argon2");

const hashPassword = async (password: string) => (await argon2()).hash(password);

/** A hash of nothing anyone knows: verifying an unknown e-mail against it costs what a real check costs. */
let decoyHash: Promise<string> | null = null;

/** The account when e-mail and password match an enabled operator, else null (in about the same time either way). */
export async function verifyOperatorPassword(db: Database, email: string, password: string): Promise<OperatorView | null> {
  const [row] = await db.select().from(operators).where(eq(operators.email, email.trim().toLowerCase()));
  const { verify } = await argon2();
  decoyHash ??= hashPassword(crypto.randomUUID());
  const matches = await verify(row?.passwordHash ?? (await decoyHash), password).catch(() => false);
  return row && matches && !row.disabledAt ? toOperatorView(row) : null;
}

export async function createOperator(db: Database, input: { email: string; role: OperatorRole; password: string }): Promise<OperatorView> {
  const passwordHash = await hashPassword(input.password);
  const [row] = await db
    .insert(operators)
    .values({ email: input.email.trim().toLowerCase(), role: input.role, passwordHash })
    .onConflictDoNothing({ target: operators.email })
    .returning();
  if (!row) throw new ConflictError("An operator with this e-mail exists already.", { reason: "email_taken" });
  return toOperatorView(row);
}

export async function listOperators(db: Database): Promise<OperatorView[]> {
  return (await db.select().from(operators).orderBy(asc(operators.createdAt), asc(operators.id))).map(toOperatorView);
}

export async function getOperator(db: Database, id: string): Promise<OperatorView | null> {
  const [row] = await db.select().from(operators).where(eq(operators.id, id));
  return row ? toOperatorView(row) : null;
}

export type OperatorChange = { role?: OperatorRole; disabled?: boolean; password?: string };

/** Role, enabled state or password; refuses to leave no enabled owner behind. */
export async function updateOperator(db: Database, clock: Clock, id: string, change: OperatorChange): Promise<OperatorView> {
  const passwordHash = change.password === undefined ? undefined : await hashPassword(change.password);
  return db.transaction(async (tx) => {
    const [current] = await tx.select().from(operators).where(eq(operators.id, id)).for("update");
    if (!current) throw new NotFoundError("Operator");
    const losesOwner = current.role === "owner" && !current.disabledAt && ((change.role !== undefined && change.role !== "owner") || change.disabled === true);
    if (losesOwner) {
      // Every enabled owner row is locked, so two owners demoting each other at once cannot both pass.
      const others = await tx
        .select({ id: operators.id })
        .from(operators)
        .where(and(eq(operators.role, "owner"), isNull(operators.disabledAt), ne(operators.id, id)))
        .for("update");
      if (others.length === 0) throw new ConflictError("This is the last enabled owner; make another operator owner first.", { reason: "last_owner" });
    }
    const disabledAt = change.disabled === undefined ? current.disabledAt : change.disabled ? (current.disabledAt ?? clock.now()) : null;
    const [row] = await tx
      .update(operators)
      .set({ role: change.role ?? current.role, disabledAt, ...(passwordHash ? { passwordHash } : {}) })
      .where(eq(operators.id, id))
      .returning();
    if (!row) throw new NotFoundError("Operator");
    if (row.disabledAt && !current.disabledAt) {
      await tx.delete(consoleSessions).where(eq(consoleSessions.operatorId, id));
      await tx
        .update(operatorTokens)
        .set({ revokedAt: clock.now() })
        .where(and(eq(operatorTokens.operatorId, id), isNull(operatorTokens.revokedAt)));
    }
    return toOperatorView(row);
  });
}

/**
 * Whether the shared bootstrap token is retired: it is once an owner account exists (enabled or not: an
 * owner disabled later does not bring the shared token back). Cached per process once true, since it
 * never turns false again.
 */
export function createBootstrapGate(db: Database): { retired(): Promise<boolean> } {
  let retired = false;
  return {
    async retired() {
      if (retired) return true;
      const [row] = await db.select({ owners: count() }).from(operators).where(eq(operators.role, "owner"));
      retired = (row?.owners ?? 0) > 0;
      return retired;
    },
  };
}
