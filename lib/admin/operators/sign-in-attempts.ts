import { and, eq, lte, sql } from "drizzle-orm";
import type { Clock } from "../../base/clock";
import type { Database } from "../../db/client";
import { signInAttempts, type signInAttemptKinds } from "../../db/schema";

/**
 * Sign-ins under way (`sign_in_attempts`): a single sign-on's state, nonce and PKCE verifier, a password
 * sign-in waiting for its second factor or its enrolment, a passkey ceremony's challenge. Each lives minutes
 * and is taken once (`take` deletes it in the same statement), so a state, a nonce or a challenge never
 * serves twice. A second-factor step allows `MAX_FACTOR_FAILURES` wrong answers, then the password is asked again.
 */
export type SignInAttemptKind = (typeof signInAttemptKinds)[number];
export type SignInAttempt = { id: string; kind: SignInAttemptKind; operatorId: string | null; data: Record<string, string>; failures: number; expiresAt: Date };

const ATTEMPT_TTL_MS = 10 * 60 * 1000;
const MAX_FACTOR_FAILURES = 5;

export async function startAttempt(
  db: Database,
  clock: Clock,
  input: { kind: SignInAttemptKind; operatorId: string | null; data: Record<string, string> },
): Promise<SignInAttempt> {
  // Expired rows go here rather than by a cron: attempts are rare and the delete is indexed.
  await db.delete(signInAttempts).where(lte(signInAttempts.expiresAt, clock.now()));
  const [row] = await db
    .insert(signInAttempts)
    .values({ ...input, expiresAt: new Date(clock.now().getTime() + ATTEMPT_TTL_MS) })
    .returning();
  if (!row) throw new Error("sign-in attempt insert returned nothing");
  return row;
}

export async function findAttempt(db: Database, clock: Clock, id: string, kind: SignInAttemptKind): Promise<SignInAttempt | null> {
  const [row] = await db
    .select()
    .from(signInAttempts)
    .where(and(eq(signInAttempts.id, id), eq(signInAttempts.kind, kind)));
  return row && row.expiresAt > clock.now() ? row : null;
}

/** The attempt, deleted as it is read: whoever takes it first has it. */
export async function takeAttempt(db: Database, clock: Clock, id: string, kind: SignInAttemptKind): Promise<SignInAttempt | null> {
  const [row] = await db
    .delete(signInAttempts)
    .where(and(eq(signInAttempts.id, id), eq(signInAttempts.kind, kind)))
    .returning();
  return row && row.expiresAt > clock.now() ? row : null;
}

/** Merges values into an attempt's data (a passkey challenge handed out for it). */
export async function updateAttemptData(db: Database, id: string, data: Record<string, string>): Promise<void> {
  await db
    .update(signInAttempts)
    .set({ data: sql`${signInAttempts.data} || ${JSON.stringify(data)}::jsonb` })
    .where(eq(signInAttempts.id, id));
}

/** Counts a wrong second factor; the attempt ends (deleted) at the last allowed failure. Returns the failures left. */
export async function failAttempt(db: Database, id: string): Promise<number> {
  const [row] = await db
    .update(signInAttempts)
    .set({ failures: sql`${signInAttempts.failures} + 1` })
    .where(eq(signInAttempts.id, id))
    .returning({ failures: signInAttempts.failures });
  const left = MAX_FACTOR_FAILURES - (row?.failures ?? MAX_FACTOR_FAILURES);
  if (left <= 0) await db.delete(signInAttempts).where(eq(signInAttempts.id, id));
  return Math.max(0, left);
}

export async function endAttempt(db: Database, id: string): Promise<void> {
  await db.delete(signInAttempts).where(eq(signInAttempts.id, id));
}
