import { index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";

const at = () => timestamp({ withTimezone: true, mode: "date", precision: 3 });

export const operatorRoles = ["owner", "admin", "support"] as const;

/**
 * Named operator accounts. The e-mail is stored lower-case (unique); the password only as an argon2id hash
 * (`@node-rs/argon2`, PHC string); an account made by single sign-on has none. A disabled operator's tokens and sessions stop working at once (every
 * request joins this row); accounts are disabled, never deleted, so audit entries keep naming them.
 */
export const operators = pgTable(
  "operators",
  {
    id: uuid().primaryKey().defaultRandom(),
    email: text().notNull().unique(),
    role: text({ enum: operatorRoles }).notNull(),
    /** Null for an account made by a single sign-on: it has no password to sign in with. */
    passwordHash: text(),
    /** The identity provider's issuer and subject (`sub`) of an account that signs in through OpenID Connect. */
    ssoIssuer: text(),
    ssoSubject: text(),
    createdAt: at().notNull().defaultNow(),
    disabledAt: at(),
  },
  (t) => [uniqueIndex().on(t.ssoIssuer, t.ssoSubject)],
);

/**
 * Per-operator API tokens for automation: shown once, stored as a SHA-256 hash with a visible prefix
 * (`op_live_…`); revocable; `last_used_at` moves at most once a minute per token.
 */
export const operatorTokens = pgTable(
  "operator_tokens",
  {
    id: uuid().primaryKey().defaultRandom(),
    operatorId: uuid()
      .notNull()
      .references(() => operators.id, { onDelete: "cascade" }),
    label: text().notNull(),
    prefix: text().notNull(),
    hash: text().notNull().unique(),
    createdAt: at().notNull().defaultNow(),
    lastUsedAt: at(),
    revokedAt: at(),
  },
  (t) => [index().on(t.operatorId)],
);

/** Who made an audited request: the `OperatorActor` types and `anonymous` (a failed sign-in). */
export const auditActorTypes = ["operator", "token", "bootstrap", "break_glass", "cli", "anonymous"] as const;

/**
 * The append-only audit log: every admin write (API, console, CLI), every sign-in and failed sign-in. A
 * trigger (migration 0022) refuses UPDATE and DELETE, except the retention purge deleting entries older
 * than 400 days inside a transaction that set `app.audit_retention = 'purge'`.
 */
export const auditLog = pgTable(
  "audit_log",
  {
    id: uuid().primaryKey().defaultRandom(),
    at: at().notNull().defaultNow(),
    /** `operator` (console session), `token` (operator API token), `bootstrap`, `break_glass`, `cli`, or `anonymous` (a failed sign-in). */
    actorType: text({ enum: auditActorTypes }).notNull(),
    operatorId: uuid(),
    tokenId: uuid(),
    operationId: text().notNull(),
    method: text().notNull(),
    path: text().notNull(),
    status: integer().notNull(),
    customerId: uuid(),
    /** What the operation acted on: `{ customer, key, template, … }` from its path and, for creates, the new id. */
    target: jsonb().$type<Record<string, string>>().notNull(),
    requestId: text().notNull(),
    /** `{ request, before, after }` with secrets redacted to "changed"; null for reads and sign-ins. */
    change: jsonb().$type<Record<string, unknown>>(),
    address: text(),
    /** A refusal (401, 403, 429): why, in a word (`unknown_token`, `revoked_token`, `csrf`, `role_required`, …). Null for other entries. */
    reason: text(),
    /** A refusal of a presented credential: its visible start (`op_live_AbC1`), never more of it. */
    tokenPrefix: text(),
    /** Identical refusals within one minute are one entry: how many it stands for (1 for every other entry). */
    count: integer().notNull().default(1),
  },
  (t) => [index().on(t.at, t.id), index().on(t.customerId, t.at), index().on(t.operatorId, t.at), index().on(t.operationId, t.at)],
);

/**
 * Failed password sign-ins per account and client address: the sign-in back-off (`lib/admin/operators/sign-in-throttle.ts`)
 * reads it. Kept in the database so every instance sees the same count; a row with no failure for a day is
 * removed on the next failure anywhere.
 */
export const signInFailures = pgTable(
  "sign_in_failures",
  {
    email: text().notNull(),
    address: text().notNull(),
    failures: integer().notNull(),
    lastFailedAt: at().notNull(),
  },
  (t) => [primaryKey({ columns: [t.email, t.address] }), index().on(t.lastFailedAt)],
);
