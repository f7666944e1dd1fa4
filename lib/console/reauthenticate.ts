import { eq } from "drizzle-orm";
import { verifyOperatorPassword } from "../admin/operators/accounts";
import { safeEqual } from "../core/secrets";
import type { Database } from "../db/client";
import { operators } from "../db/schema";
import type { ConsoleSession } from "./session";

/**
 * What re-authentication asks of the person behind a console session before a sensitive action
 * (`requireRecentAuth`, lib/admin/reauthentication.ts): the operator's password, or for a session of the
 * shared token the token. This is the one place a second factor joins in: a method that also needs, say, a
 * TOTP code reads its field from the same body here and refuses with its own `field` and `reason`.
 */
export type ReauthenticationRefusal = { field: string; reason: string; message: string };

export async function verifyReauthentication(
  deps: { db: Database; adminToken: string },
  session: ConsoleSession,
  body: Record<string, unknown>,
): Promise<true | ReauthenticationRefusal> {
  const text = (name: string) => (typeof body[name] === "string" ? (body[name] as string) : "");
  if (!session.operator) {
    return safeEqual(text("token").trim(), deps.adminToken) ? true : { field: "token", reason: "wrong_token", message: "This is not the operator token." };
  }
  const [row] = await deps.db.select({ email: operators.email }).from(operators).where(eq(operators.id, session.operator.id));
  const operator = row ? await verifyOperatorPassword(deps.db, row.email, text("password")) : null;
  return operator?.id === session.operator.id ? true : { field: "password", reason: "wrong_password", message: "The password is wrong." };
}
