import { randomInt } from "node:crypto";
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { and, asc, count, eq, isNotNull, isNull, lt, or } from "drizzle-orm";
import { Secret, TOTP } from "otpauth";
import type { Clock } from "../../base/clock";
import { NotFoundError, ValidationError } from "../../core/errors";
import { sha256Hex, type SecretBox } from "../../core/secrets";
import type { Database } from "../../db/client";
import { operatorRecoveryCodes, operators, operatorSecondFactors } from "../../db/schema";

/**
 * Second factors of password accounts: TOTP (RFC 6238 through `otpauth`: SHA-1, 6 digits, 30 s, one step of
 * skew either way), passkeys (WebAuthn through `@simplewebauthn/server`, no attestation asked, user
 * verification preferred), and ten one-time recovery codes made with the first factor and shown once.
 * Invariants: a TOTP code is taken at most once (the accepted time step only moves forward, by a conditional
 * update); a recovery code is spent by a conditional update, so two uses of one code cannot both pass; a
 * passkey's signature counter never goes back when the authenticator keeps one.
 */
const TOTP_PERIOD_S = 30;
const TOTP_WINDOW = 1;
const RECOVERY_CODES = 10;
const RECOVERY_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ";
const ISSUER = "Operator console";

export type SecondFactorView = {
  id: string;
  kind: "totp" | "passkey";
  label: string;
  created_at: string;
  last_used_at: string | null;
};

/** What the sign-in needs to know of an operator: the factors that count and the recovery codes left. */
export type SecondFactorStatus = { totp: boolean; passkeys: number; recoveryCodesLeft: number };

/** The relying party a passkey is bound to: this deployment's public origin and its host name. */
export type RelyingParty = { origin: string; id: string };

export function relyingPartyOf(publicBaseUrl: string): RelyingParty {
  // Deps built only to describe the routes (the OpenAPI document, the route-group checks) have no base URL;
  // a running deployment always has one (PUBLIC_BASE_URL, else http://localhost:PORT).
  const url = URL.canParse(publicBaseUrl) ? new URL(publicBaseUrl) : new URL("http://localhost");
  return { origin: url.origin, id: url.hostname };
}

export async function listSecondFactors(db: Database, operatorId: string): Promise<SecondFactorView[]> {
  const rows = await db
    .select()
    .from(operatorSecondFactors)
    .where(and(eq(operatorSecondFactors.operatorId, operatorId), isNotNull(operatorSecondFactors.confirmedAt)))
    .orderBy(asc(operatorSecondFactors.createdAt));
  return rows.map((row) => ({
    id: row.id,
    kind: row.kind,
    label: row.label,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
  }));
}

export async function secondFactorStatus(db: Database, operatorId: string): Promise<SecondFactorStatus> {
  const factors = await listSecondFactors(db, operatorId);
  const [codes] = await db
    .select({ left: count() })
    .from(operatorRecoveryCodes)
    .where(and(eq(operatorRecoveryCodes.operatorId, operatorId), isNull(operatorRecoveryCodes.usedAt)));
  return { totp: factors.some((f) => f.kind === "totp"), passkeys: factors.filter((f) => f.kind === "passkey").length, recoveryCodesLeft: codes?.left ?? 0 };
}

/** Removes one of the operator's factors; with the last one gone the recovery codes go too (they belong to a factor). */
export async function removeSecondFactor(db: Database, operatorId: string, factorId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const [gone] = await tx
      .delete(operatorSecondFactors)
      .where(and(eq(operatorSecondFactors.id, factorId), eq(operatorSecondFactors.operatorId, operatorId)))
      .returning({ id: operatorSecondFactors.id });
    if (!gone) throw new NotFoundError("Second factor");
    const [left] = await tx
      .select({ n: count() })
      .from(operatorSecondFactors)
      .where(and(eq(operatorSecondFactors.operatorId, operatorId), isNotNull(operatorSecondFactors.confirmedAt)));
    if ((left?.n ?? 0) === 0) await tx.delete(operatorRecoveryCodes).where(eq(operatorRecoveryCodes.operatorId, operatorId));
  });
}

// --- TOTP ---

function totpOf(secretBase32: string, email: string): TOTP {
  return new TOTP({ issuer: ISSUER, label: email, algorithm: "SHA1", digits: 6, period: TOTP_PERIOD_S, secret: Secret.fromBase32(secretBase32) });
}

async function emailOf(db: Database, operatorId: string): Promise<string> {
  const [row] = await db.select({ email: operators.email }).from(operators).where(eq(operators.id, operatorId));
  if (!row) throw new NotFoundError("Operator");
  return row.email;
}

/**
 * Starts a TOTP factor: a new 160-bit secret, sealed at rest, not yet counted. The secret and its
 * `otpauth://` URI are returned this once, for the authenticator app; `confirmTotp` makes it count.
 */
export async function startTotp(
  db: Database,
  secrets: SecretBox,
  operatorId: string,
  label: string,
): Promise<{ id: string; secret: string; otpauth_uri: string }> {
  const email = await emailOf(db, operatorId);
  const secret = new Secret({ size: 20 }).base32;
  // Unconfirmed factors of this operator are abandoned set-ups: one at a time.
  await db
    .delete(operatorSecondFactors)
    .where(and(eq(operatorSecondFactors.operatorId, operatorId), eq(operatorSecondFactors.kind, "totp"), isNull(operatorSecondFactors.confirmedAt)));
  const [row] = await db
    .insert(operatorSecondFactors)
    .values({ operatorId, kind: "totp", label, totpSecret: secrets.seal(secret) })
    .returning({ id: operatorSecondFactors.id });
  if (!row) throw new Error("second factor insert returned nothing");
  return { id: row.id, secret, otpauth_uri: totpOf(secret, email).toString() };
}

/** A started, not yet confirmed TOTP factor of the operator with its secret (to show it again), or null. */
export async function unconfirmedTotp(
  db: Database,
  secrets: SecretBox,
  operatorId: string,
  factorId: string,
): Promise<{ id: string; secret: string; otpauth_uri: string } | null> {
  const [row] = await db
    .select()
    .from(operatorSecondFactors)
    .where(
      and(
        eq(operatorSecondFactors.id, factorId),
        eq(operatorSecondFactors.operatorId, operatorId),
        eq(operatorSecondFactors.kind, "totp"),
        isNull(operatorSecondFactors.confirmedAt),
      ),
    );
  if (!row?.totpSecret) return null;
  const secret = secrets.open(row.totpSecret);
  return { id: row.id, secret, otpauth_uri: totpOf(secret, await emailOf(db, operatorId)).toString() };
}

/** The time step a code matches now (one step of skew either way), or null. */
function matchingStep(secret: string, email: string, code: string, now: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpOf(secret, email).validate({ token: code, timestamp: now.getTime(), window: TOTP_WINDOW });
  return delta === null ? null : Math.floor(now.getTime() / 1000 / TOTP_PERIOD_S) + delta;
}

/** Takes a step for a factor if it is later than the last one taken (a conditional update: a code works once). */
async function takeStep(db: Database, clock: Clock, factorId: string, step: number, confirm: boolean): Promise<boolean> {
  const taken = await db
    .update(operatorSecondFactors)
    .set({ totpLastStep: step, lastUsedAt: clock.now(), ...(confirm ? { confirmedAt: clock.now() } : {}) })
    .where(
      and(
        eq(operatorSecondFactors.id, factorId),
        confirm ? isNull(operatorSecondFactors.confirmedAt) : isNotNull(operatorSecondFactors.confirmedAt),
        or(isNull(operatorSecondFactors.totpLastStep), lt(operatorSecondFactors.totpLastStep, step)),
      ),
    )
    .returning({ id: operatorSecondFactors.id });
  return taken.length > 0;
}

/**
 * Confirms a started TOTP factor with a code from the app. The first factor of an account also makes its
 * recovery codes, returned this once; a later factor returns none (the codes made earlier still hold).
 */
export async function confirmTotp(
  db: Database,
  clock: Clock,
  secrets: SecretBox,
  operatorId: string,
  factorId: string,
  code: string,
): Promise<{ factor: SecondFactorView; recovery_codes: string[] | null }> {
  const [row] = await db
    .select()
    .from(operatorSecondFactors)
    .where(and(eq(operatorSecondFactors.id, factorId), eq(operatorSecondFactors.operatorId, operatorId), eq(operatorSecondFactors.kind, "totp")));
  if (!row?.totpSecret || row.confirmedAt) throw new NotFoundError("Unconfirmed TOTP factor");
  const step = matchingStep(secrets.open(row.totpSecret), await emailOf(db, operatorId), code.trim(), clock.now());
  if (step === null || !(await takeStep(db, clock, factorId, step, true))) {
    throw new ValidationError("The code does not match.", [
      {
        path: "code",
        message: "This code does not match the authenticator's secret now (or was used already); check the phone's clock and type the current code.",
      },
    ]);
  }
  return finishEnrolment(db, operatorId, factorId);
}

async function finishEnrolment(db: Database, operatorId: string, factorId: string): Promise<{ factor: SecondFactorView; recovery_codes: string[] | null }> {
  const factors = await listSecondFactors(db, operatorId);
  const factor = factors.find((f) => f.id === factorId);
  if (!factor) throw new NotFoundError("Second factor");
  const [codes] = await db.select({ n: count() }).from(operatorRecoveryCodes).where(eq(operatorRecoveryCodes.operatorId, operatorId));
  return { factor, recovery_codes: (codes?.n ?? 0) === 0 ? await replaceRecoveryCodes(db, operatorId) : null };
}

/** Checks a TOTP code against the operator's confirmed TOTP factors; true when one took it (never the same code twice). */
export async function verifyTotp(db: Database, clock: Clock, secrets: SecretBox, operatorId: string, code: string): Promise<boolean> {
  const rows = await db
    .select()
    .from(operatorSecondFactors)
    .where(and(eq(operatorSecondFactors.operatorId, operatorId), eq(operatorSecondFactors.kind, "totp"), isNotNull(operatorSecondFactors.confirmedAt)));
  const email = await emailOf(db, operatorId);
  for (const row of rows) {
    if (!row.totpSecret) continue;
    const step = matchingStep(secrets.open(row.totpSecret), email, code.trim(), clock.now());
    if (step !== null && (await takeStep(db, clock, row.id, step, false))) return true;
  }
  return false;
}

// --- Recovery codes ---

function normalCode(code: string): string {
  return code.toUpperCase().replace(/[^0-9A-Z]/g, "");
}

/** Ten new codes (`XXXXX-XXXXX`, 50 bits each) replacing any earlier ones; returned this once, stored hashed. */
export async function replaceRecoveryCodes(db: Database, operatorId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODES }, () => {
    const chars = Array.from({ length: 10 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join("");
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
  await db.transaction(async (tx) => {
    await tx.delete(operatorRecoveryCodes).where(eq(operatorRecoveryCodes.operatorId, operatorId));
    await tx.insert(operatorRecoveryCodes).values(codes.map((code) => ({ operatorId, hash: sha256Hex(normalCode(code)) })));
  });
  return codes;
}

/** Spends one recovery code; true when it was one of the operator's and not used before. */
export async function useRecoveryCode(db: Database, clock: Clock, operatorId: string, code: string): Promise<boolean> {
  const normal = normalCode(code);
  if (normal.length !== 10) return false;
  const spent = await db
    .update(operatorRecoveryCodes)
    .set({ usedAt: clock.now() })
    .where(and(eq(operatorRecoveryCodes.operatorId, operatorId), eq(operatorRecoveryCodes.hash, sha256Hex(normal)), isNull(operatorRecoveryCodes.usedAt)))
    .returning({ id: operatorRecoveryCodes.id });
  return spent.length > 0;
}

// --- Passkeys ---

async function passkeysOf(db: Database, operatorId: string) {
  return db
    .select()
    .from(operatorSecondFactors)
    .where(and(eq(operatorSecondFactors.operatorId, operatorId), eq(operatorSecondFactors.kind, "passkey"), isNotNull(operatorSecondFactors.confirmedAt)));
}

const transportsOf = (row: { transports: string[] | null }) => (row.transports ?? []) as AuthenticatorTransport[];

export async function passkeyRegistrationOptions(db: Database, rp: RelyingParty, operatorId: string): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const email = await emailOf(db, operatorId);
  return generateRegistrationOptions({
    rpName: ISSUER,
    rpID: rp.id,
    userName: email,
    userID: new TextEncoder().encode(operatorId),
    attestationType: "none",
    excludeCredentials: (await passkeysOf(db, operatorId)).flatMap((row) =>
      row.credentialId ? [{ id: row.credentialId, transports: transportsOf(row) }] : [],
    ),
    authenticatorSelection: { residentKey: "preferred", userVerification: "preferred" },
  });
}

const refusedPasskey = (message: string) => new ValidationError(message, [{ path: "response", message }]);

/** Verifies a registration ceremony against the challenge handed out and stores the passkey. */
export async function registerPasskey(
  db: Database,
  clock: Clock,
  rp: RelyingParty,
  input: { operatorId: string; challenge: string; label: string; response: RegistrationResponseJSON },
): Promise<{ factor: SecondFactorView; recovery_codes: string[] | null }> {
  const verification = await verifyRegistrationResponse({
    response: input.response,
    expectedChallenge: input.challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    requireUserVerification: false,
  }).catch((error: unknown) => {
    throw refusedPasskey(`The passkey's answer did not verify: ${error instanceof Error ? error.message : String(error)}`);
  });
  if (!verification.verified) throw refusedPasskey("The passkey's answer did not verify.");
  const { credential } = verification.registrationInfo;
  const [row] = await db
    .insert(operatorSecondFactors)
    .values({
      operatorId: input.operatorId,
      kind: "passkey",
      label: input.label,
      credentialId: credential.id,
      publicKey: Buffer.from(credential.publicKey).toString("base64url"),
      signCount: credential.counter,
      transports: credential.transports ?? [],
      confirmedAt: clock.now(),
    })
    .onConflictDoNothing({ target: operatorSecondFactors.credentialId })
    .returning({ id: operatorSecondFactors.id });
  if (!row) throw refusedPasskey("This passkey is registered already.");
  return finishEnrolment(db, input.operatorId, row.id);
}

export async function passkeyAuthenticationOptions(db: Database, rp: RelyingParty, operatorId: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return generateAuthenticationOptions({
    rpID: rp.id,
    allowCredentials: (await passkeysOf(db, operatorId)).flatMap((row) => (row.credentialId ? [{ id: row.credentialId, transports: transportsOf(row) }] : [])),
    userVerification: "preferred",
  });
}

/** Verifies an authentication ceremony with one of the operator's passkeys; true when it holds. */
export async function verifyPasskey(
  db: Database,
  clock: Clock,
  rp: RelyingParty,
  input: { operatorId: string; challenge: string; response: AuthenticationResponseJSON },
): Promise<boolean> {
  const row = (await passkeysOf(db, input.operatorId)).find((r) => r.credentialId === input.response.id);
  if (!row?.credentialId || !row.publicKey) return false;
  const verification = await verifyAuthenticationResponse({
    response: input.response,
    expectedChallenge: input.challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    credential: {
      id: row.credentialId,
      publicKey: new Uint8Array(Buffer.from(row.publicKey, "base64url")),
      counter: row.signCount ?? 0,
      transports: transportsOf(row),
    },
    requireUserVerification: false,
  }).catch(() => null);
  if (!verification?.verified) return false;
  const updated = await db
    .update(operatorSecondFactors)
    .set({ signCount: verification.authenticationInfo.newCounter, lastUsedAt: clock.now() })
    .where(eq(operatorSecondFactors.id, row.id))
    .returning({ id: operatorSecondFactors.id });
  return updated.length > 0;
}
