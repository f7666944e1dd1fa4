import { eq, sql } from "drizzle-orm";
import type { CoreDeps } from "../../core/context";
import { randomToken } from "../../core/secrets";
import { mailPostmarkWebhookCredentials } from "../../db/schema";
import { basicAuthMatches } from "./receiver-auth";

/**
 * Each customer's Postmark webhook URL has its own HTTP Basic credentials (Postmark does not sign
 * webhooks, PROVIDER-FACTS P1): random, the password sealed at rest, made on first use. A rotation makes a
 * new password and keeps the previous one valid for a grace period, so events keep arriving while the
 * operator updates the webhook in Postmark.
 */
export type CredentialDeps = Pick<CoreDeps, "db" | "clock" | "secrets">;

export type WebhookCredentials = {
  username: string;
  password: string;
  /** Until when the password before the latest rotation is still accepted; null when it is not. */
  previousValidUntil: Date | null;
  rotatedAt: Date;
};

/** Default and maximum grace period of a rotation. */
export const ROTATION_GRACE_SECONDS = { default: 86_400, max: 7 * 86_400 } as const;

type Row = typeof mailPostmarkWebhookCredentials.$inferSelect;

function newPassword(): string {
  return randomToken(24);
}

function view(deps: CredentialDeps, row: Row): WebhookCredentials {
  const now = deps.clock.now().getTime();
  const previousValid = row.previousPasswordSealed !== null && row.previousValidUntil !== null && row.previousValidUntil.getTime() > now;
  return {
    username: row.username,
    password: deps.secrets.open(row.passwordSealed),
    previousValidUntil: previousValid ? row.previousValidUntil : null,
    rotatedAt: row.rotatedAt,
  };
}

/** The customer's credentials, made on first use (two concurrent first uses end with the same row). */
export async function webhookCredentials(deps: CredentialDeps, customerId: string): Promise<WebhookCredentials> {
  const [inserted] = await deps.db
    .insert(mailPostmarkWebhookCredentials)
    .values({ customerId, username: `postmark-${customerId.slice(0, 8)}`, passwordSealed: deps.secrets.seal(newPassword()), rotatedAt: deps.clock.now() })
    .onConflictDoNothing()
    .returning();
  const row = inserted ?? (await deps.db.select().from(mailPostmarkWebhookCredentials).where(eq(mailPostmarkWebhookCredentials.customerId, customerId)))[0];
  if (!row) throw new Error(`webhook credentials of ${customerId} vanished`);
  return view(deps, row);
}

/** A new password; the current one stays valid for `graceSeconds` (0 = ends at once). */
export async function rotateWebhookCredentials(deps: CredentialDeps, customerId: string, graceSeconds: number): Promise<WebhookCredentials> {
  await webhookCredentials(deps, customerId);
  const now = deps.clock.now();
  const [row] = await deps.db
    .update(mailPostmarkWebhookCredentials)
    .set({
      previousPasswordSealed: sql`${mailPostmarkWebhookCredentials.passwordSealed}`,
      previousValidUntil: new Date(now.getTime() + graceSeconds * 1000),
      passwordSealed: deps.secrets.seal(newPassword()),
      rotatedAt: now,
    })
    .where(eq(mailPostmarkWebhookCredentials.customerId, customerId))
    .returning();
  if (!row) throw new Error(`webhook credentials of ${customerId} vanished`);
  return view(deps, row);
}

/**
 * Whether an `Authorization` header carries this customer's credentials: the current password, or the
 * previous one within its grace period. A customer without credentials accepts nothing. Both candidates
 * are always compared, in constant time.
 */
export async function webhookAuthorized(deps: CredentialDeps, customerId: string, header: string | undefined): Promise<boolean> {
  const [row] = await deps.db.select().from(mailPostmarkWebhookCredentials).where(eq(mailPostmarkWebhookCredentials.customerId, customerId));
  if (!row) return false;
  const current = basicAuthMatches(header, { username: row.username, password: deps.secrets.open(row.passwordSealed) });
  const inGrace = row.previousPasswordSealed !== null && row.previousValidUntil !== null && row.previousValidUntil.getTime() > deps.clock.now().getTime();
  const previous =
    row.previousPasswordSealed !== null && basicAuthMatches(header, { username: row.username, password: deps.secrets.open(row.previousPasswordSealed) });
  return current || (inGrace && previous);
}
