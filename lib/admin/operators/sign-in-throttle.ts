import { and, eq, lt, sql } from "drizzle-orm";
import type { Clock } from "../../base/clock";
import type { Database } from "../../db/client";
import { signInFailures } from "../../db/schema";

/**
 * The password sign-in back-off. Failures are counted per account (the e-mail as typed, lower-case) and client
 * address together, in the database so every instance sees the same count. The first `FREE_FAILURES` cost
 * nothing (typos); after that each failure makes the next attempt wait twice as long as the one before,
 * from `FIRST_DELAY_SECONDS` up to `MAX_DELAY_SECONDS` — after about twenty minutes of guessing, four
 * guesses an hour. An attempt while the wait runs answers 429 with `Retry-After` without the password being
 * checked (no answer tells a right guess apart). A successful sign-in clears the count; a count with no
 * failure for `FORGET_AFTER_HOURS` is forgotten.
 *
 * Only that account from that address waits: the same operator from another address, another operator from
 * the same address (an office NAT), and every request with an operator API token go on as before, so an
 * attacker cannot lock operators out by failing on purpose. The same count serves re-authentication, where a
 * stolen session could otherwise guess its operator's password.
 */
export const SIGN_IN_BACKOFF = { FREE_FAILURES: 3, FIRST_DELAY_SECONDS: 5, MAX_DELAY_SECONDS: 900, FORGET_AFTER_HOURS: 24 } as const;

/** The limits as the documents state them (OpenAPI, docs/operators/secrets-and-sessions.md). */
export const SIGN_IN_BACKOFF_SENTENCE = `Failed password sign-ins are counted per account and client address: the first ${SIGN_IN_BACKOFF.FREE_FAILURES} cost nothing, then each failure doubles the wait before the next attempt from ${SIGN_IN_BACKOFF.FIRST_DELAY_SECONDS} s up to ${SIGN_IN_BACKOFF.MAX_DELAY_SECONDS / 60} minutes (so about four guesses an hour once it is reached); an attempt during the wait answers 429 with \`Retry-After\` and is not checked. A successful sign-in clears the count, ${SIGN_IN_BACKOFF.FORGET_AFTER_HOURS} hours without a failure forget it. Only that account from that address waits: other operators, other addresses and operator API tokens are never held up by it.`;

/** Seconds to wait after `failures` failures in a row (0 while they are free). */
export function backoffSeconds(failures: number): number {
  const over = failures - SIGN_IN_BACKOFF.FREE_FAILURES - 1;
  if (over < 0) return 0;
  return Math.min(SIGN_IN_BACKOFF.FIRST_DELAY_SECONDS * 2 ** over, SIGN_IN_BACKOFF.MAX_DELAY_SECONDS);
}

type Attempt = { email: string; address: string };

const forgetBefore = (clock: Clock) => new Date(clock.now().getTime() - SIGN_IN_BACKOFF.FORGET_AFTER_HOURS * 3_600_000);

/** Seconds until this account may try a password again from this address; 0 when it may now. */
export async function signInWait(db: Database, clock: Clock, attempt: Attempt): Promise<number> {
  const [row] = await db
    .select()
    .from(signInFailures)
    .where(and(eq(signInFailures.email, attempt.email), eq(signInFailures.address, attempt.address)));
  if (!row || row.lastFailedAt < forgetBefore(clock)) return 0;
  const until = row.lastFailedAt.getTime() + backoffSeconds(row.failures) * 1000;
  return Math.max(0, Math.ceil((until - clock.now().getTime()) / 1000));
}

/** Counts a failure; returns the seconds the next attempt has to wait. */
export async function signInFailed(db: Database, clock: Clock, attempt: Attempt): Promise<number> {
  const now = clock.now();
  // A count older than the forget period starts again at one.
  const [row] = await db
    .insert(signInFailures)
    .values({ ...attempt, failures: 1, lastFailedAt: now })
    .onConflictDoUpdate({
      target: [signInFailures.email, signInFailures.address],
      set: {
        failures: sql`CASE WHEN ${signInFailures.lastFailedAt} < ${forgetBefore(clock).toISOString()}::timestamptz THEN 1 ELSE ${signInFailures.failures} + 1 END`,
        lastFailedAt: now,
      },
    })
    .returning({ failures: signInFailures.failures });
  await db.delete(signInFailures).where(lt(signInFailures.lastFailedAt, forgetBefore(clock)));
  return backoffSeconds(row?.failures ?? 1);
}

export async function signInSucceeded(db: Database, attempt: Attempt): Promise<void> {
  await db.delete(signInFailures).where(and(eq(signInFailures.email, attempt.email), eq(signInFailures.address, attempt.address)));
}
