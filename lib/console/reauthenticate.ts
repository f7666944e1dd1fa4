import { eq } from "drizzle-orm";
import { verifyOperatorPassword } from "../admin/operators/accounts";
import { secondFactorStatus, useRecoveryCode, verifyTotp } from "../admin/operators/second-factor";
import type { Clock } from "../base/clock";
import { type SecretBox, safeEqual } from "../core/secrets";
import type { Database } from "../db/client";
import { operators } from "../db/schema";
import type { ConsoleSession } from "./session";

/**
 * What re-authentication asks of the person behind a console session before a sensitive action
 * (`requireRecentAuth`, lib/admin/reauthentication.ts): the operator's password and, when the operator has an
 * authenticator app (TOTP) enrolled, a current code from it or one of their recovery codes (`code`; a recovery
 * code is spent); for a session of the shared token, the token. A passkey is not asked for here (it needs a
 * browser ceremony of its own): an operator with passkeys only gives the password, and an account made by
 * single sign-on has no password to give (ADR 0080 names both gaps).
 */
export type ReauthenticationRefusal = { field: string; reason: string; message: string };

export async function verifyReauthentication(
  deps: { db: Database; adminToken: string; clock: Clock; secrets: SecretBox },
  session: ConsoleSession,
  body: Record<string, unknown>,
): Promise<true | ReauthenticationRefusal> {
  const text = (name: string) => (typeof body[name] === "string" ? (body[name] as string) : "");
  if (!session.operator) {
    return safeEqual(text("token").trim(), deps.adminToken) ? true : { field: "token", reason: "wrong_token", message: "This is not the operator token." };
  }
  const operatorId = session.operator.id;
  const [row] = await deps.db.select({ email: operators.email }).from(operators).where(eq(operators.id, operatorId));
  const operator = row ? await verifyOperatorPassword(deps.db, row.email, text("password")) : null;
  if (operator?.id !== operatorId) return { field: "password", reason: "wrong_password", message: "The password is wrong." };
  if (!(await secondFactorStatus(deps.db, operatorId)).totp) return true;
  const code = text("code").trim();
  const ok = /^\d{6}$/.test(code)
    ? await verifyTotp(deps.db, deps.clock, deps.secrets, operatorId, code)
    : code !== "" && (await useRecoveryCode(deps.db, deps.clock, operatorId, code));
  return ok
    ? true
    : {
        field: "code",
        reason: "wrong_code",
        message: "The code is wrong, expired or used already: type the current code of the authenticator app, or a recovery code.",
      };
}
