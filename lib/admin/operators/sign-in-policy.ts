import { eq } from "drizzle-orm";
import type { Clock } from "../../base/clock";
import { ConflictError } from "../../core/errors";
import type { Database } from "../../db/client";
import { operators, signInPolicy } from "../../db/schema";

/**
 * The sign-in policy (one row): `require_second_factor` makes every password sign-in ask for a second factor
 * (an operator without one sets one up before the console opens); `password_sign_in: "break_glass_only"`
 * closes password sign-in to everyone but one named, enabled owner, and only while single sign-on is set up, so
 * the policy can never lock every operator out. Single sign-on accounts are not asked for a second factor here:
 * the identity provider's own policy (its MFA) applies to them.
 */
export type SignInPolicy = {
  require_second_factor: boolean;
  password_sign_in: "everyone" | "break_glass_only";
  break_glass_operator_id: string | null;
  updated_at: string | null;
};

const DEFAULT_POLICY: SignInPolicy = { require_second_factor: false, password_sign_in: "everyone", break_glass_operator_id: null, updated_at: null };

export async function readSignInPolicy(db: Database): Promise<SignInPolicy> {
  const [row] = await db.select().from(signInPolicy).where(eq(signInPolicy.id, 1));
  if (!row) return DEFAULT_POLICY;
  return {
    require_second_factor: row.requireSecondFactor,
    password_sign_in: row.passwordSignIn,
    break_glass_operator_id: row.breakGlassOperatorId,
    updated_at: row.updatedAt.toISOString(),
  };
}

export async function updateSignInPolicy(
  db: Database,
  clock: Clock,
  input: { ssoConfigured: boolean; change: Partial<Omit<SignInPolicy, "updated_at">> },
): Promise<SignInPolicy> {
  const current = await readSignInPolicy(db);
  const next = { ...current, ...input.change };
  if (next.password_sign_in === "break_glass_only") {
    if (!input.ssoConfigured) {
      throw new ConflictError("Password sign-in can be closed only while single sign-on is set up (OIDC_ISSUER_URL).", { reason: "sso_not_configured" });
    }
    if (!next.break_glass_operator_id) {
      throw new ConflictError("Name the break-glass owner (break_glass_operator_id) who keeps password sign-in.", { reason: "break_glass_owner_required" });
    }
    const [owner] = await db.select().from(operators).where(eq(operators.id, next.break_glass_operator_id));
    if (owner?.role !== "owner" || owner.disabledAt || !owner.passwordHash) {
      throw new ConflictError("The break-glass operator must be an enabled owner with a password.", { reason: "break_glass_owner_invalid" });
    }
  }
  const values = {
    requireSecondFactor: next.require_second_factor,
    passwordSignIn: next.password_sign_in,
    breakGlassOperatorId: next.break_glass_operator_id,
    updatedAt: clock.now(),
  };
  await db
    .insert(signInPolicy)
    .values({ id: 1, ...values })
    .onConflictDoUpdate({ target: signInPolicy.id, set: values });
  return readSignInPolicy(db);
}
