import { boolean, index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { operators } from "./operators";

const at = () => timestamp({ withTimezone: true, mode: "date", precision: 3 });

export const secondFactorKinds = ["totp", "passkey"] as const;
/** `sso`: waiting for the identity provider; `second_factor`: a password matched, the factor is next; `enrol`: a password matched, a factor must be set up first; `passkey_registration`: a registration ceremony of a signed-in operator. */
export const signInAttemptKinds = ["sso", "second_factor", "enrol", "passkey_registration"] as const;

/**
 * An operator's second factors. A TOTP factor keeps its secret sealed (AES-256-GCM, `SecretBox`) and the last
 * time step it accepted, so a code is never taken twice; it counts once `confirmed_at` is set (the operator
 * typed a code from the new authenticator). A passkey keeps its credential id, public key (COSE, base64url) and
 * signature counter.
 */
export const operatorSecondFactors = pgTable(
  "operator_second_factors",
  {
    id: uuid().primaryKey().defaultRandom(),
    operatorId: uuid()
      .notNull()
      .references(() => operators.id, { onDelete: "cascade" }),
    kind: text({ enum: secondFactorKinds }).notNull(),
    label: text().notNull(),
    totpSecret: text(),
    totpLastStep: integer(),
    credentialId: text().unique(),
    publicKey: text(),
    signCount: integer(),
    transports: jsonb().$type<string[]>(),
    createdAt: at().notNull().defaultNow(),
    confirmedAt: at(),
    lastUsedAt: at(),
  },
  (t) => [index().on(t.operatorId)],
);

/** One-time recovery codes: shown once, stored as SHA-256 (they are random, 50 bits each), spent by `used_at`. */
export const operatorRecoveryCodes = pgTable(
  "operator_recovery_codes",
  {
    id: uuid().primaryKey().defaultRandom(),
    operatorId: uuid()
      .notNull()
      .references(() => operators.id, { onDelete: "cascade" }),
    hash: text().notNull(),
    createdAt: at().notNull().defaultNow(),
    usedAt: at(),
  },
  (t) => [index().on(t.operatorId)],
);

/**
 * A sign-in under way: a single sign-on waiting for the provider's answer (state, nonce and PKCE verifier), or
 * a password sign-in waiting for its second factor or its enrolment, or a passkey ceremony's challenge. The
 * browser holds only a signed cookie naming the row; a row is used once and lives minutes.
 */
export const signInAttempts = pgTable(
  "sign_in_attempts",
  {
    id: uuid().primaryKey().defaultRandom(),
    kind: text({ enum: signInAttemptKinds }).notNull(),
    operatorId: uuid().references(() => operators.id, { onDelete: "cascade" }),
    data: jsonb().$type<Record<string, string>>().notNull(),
    failures: integer().notNull().default(0),
    expiresAt: at().notNull(),
  },
  (t) => [index().on(t.expiresAt)],
);

/**
 * The one sign-in policy row (`id` 1): whether password accounts need a second factor, and whether password
 * sign-in is open to everyone or only to one break-glass owner (possible only with single sign-on set up).
 */
export const signInPolicy = pgTable("sign_in_policy", {
  id: integer().primaryKey(),
  requireSecondFactor: boolean().notNull().default(false),
  passwordSignIn: text({ enum: ["everyone", "break_glass_only"] })
    .notNull()
    .default("everyone"),
  breakGlassOperatorId: uuid().references(() => operators.id),
  updatedAt: at().notNull().defaultNow(),
});
