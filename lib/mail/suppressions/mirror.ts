import { and, eq } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mailSuppressions } from "../../db/schema";

export type Stream = "newsletter" | "transactional";

/** Addresses are compared lower-cased: Postmark treats them case-insensitively. */
export function normaliseAddress(email: string): string {
  return email.trim().toLowerCase();
}

/** The mirror's answer for one address on one stream; sends consult it before calling the provider. */
export async function isSuppressed(db: Database, customerId: string, stream: Stream, email: string): Promise<boolean> {
  const [row] = await db
    .select({ active: mailSuppressions.active })
    .from(mailSuppressions)
    .where(and(eq(mailSuppressions.customerId, customerId), eq(mailSuppressions.stream, stream), eq(mailSuppressions.email, normaliseAddress(email))));
  return row?.active ?? false;
}
