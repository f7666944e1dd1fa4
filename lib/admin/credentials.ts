import { z } from "@hono/zod-openapi";
import { and, desc, eq, lt, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { auditLog, operators } from "../db/schema";

/**
 * What every operator may know about a stored credential without its value: whether it is set, when it last
 * changed and by whom. "When and by whom" is read from the audit log (the latest successful write of the
 * customer that sent the field; the entry's request body holds "changed" in place of the value), so it is
 * the same record an investigation reads and cannot disagree with it. A credential set before the audit log
 * existed, by the seed, or longer ago than the log keeps entries (400 days) shows `changed_at: null`.
 */
export const CredentialState = z
  .object({
    set: z.boolean().openapi({ description: "Whether a value is stored.", example: true }),
    changed_at: z.iso.datetime().nullable().openapi({
      description: "When it was last set or cleared through the admin API; null when the audit log has no such write.",
      example: "2026-03-01T10:00:00.000Z",
    }),
    changed_by: z
      .object({
        actor_type: z
          .string()
          .openapi({ description: "The audit entry's actor type (`operator`, `token`, `cli`, `bootstrap`, `break_glass`).", example: "operator" }),
        operator_id: z
          .uuid()
          .nullable()
          .openapi({ description: "The operator, when the credential has one.", example: "8d3c1f0e-2b4a-4e6f-9a1b-7c5d3e2f1a09" }),
        email: z.string().nullable().openapi({ description: "That operator's e-mail.", example: "ops@example.com" }),
      })
      .nullable()
      .openapi({ description: "Who made that change; null with `changed_at`." }),
  })
  .openapi("CredentialState", { description: "A stored credential as every role sees it: never its value." });

export type CredentialState = z.infer<typeof CredentialState>;

/** A credential and the admin writes that set it: the operation and, for a partial update, the body field. */
type CredentialSource = { set: boolean; operationIds: string[]; field?: string };

export async function credentialState(db: Database, customerId: string, source: CredentialSource): Promise<CredentialState> {
  const conditions = source.operationIds.map((operationId) =>
    source.field
      ? and(eq(auditLog.operationId, operationId), sql`jsonb_exists(${auditLog.change} -> 'request', ${source.field})`)
      : eq(auditLog.operationId, operationId),
  );
  const [row] = await db
    .select({ at: auditLog.at, actorType: auditLog.actorType, operatorId: auditLog.operatorId, email: operators.email })
    .from(auditLog)
    .leftJoin(operators, eq(operators.id, auditLog.operatorId))
    .where(and(eq(auditLog.customerId, customerId), lt(auditLog.status, 300), sql`(${sql.join(conditions, sql` OR `)})`))
    .orderBy(desc(auditLog.at))
    .limit(1);
  return {
    set: source.set,
    changed_at: row?.at.toISOString() ?? null,
    changed_by: row ? { actor_type: row.actorType, operator_id: row.operatorId, email: row.email } : null,
  };
}
