import { index, pgTable, timestamp, uuid } from "drizzle-orm/pg-core";

/**
 * Operator console sessions. The cookie carries the id, its expiry and an HMAC over both; the row is what
 * sign-out deletes, so a copied cookie stops working the moment its session is ended (a signed cookie
 * alone would stay valid until it expires).
 */
export const consoleSessions = pgTable(
  "console_sessions",
  {
    id: uuid().primaryKey().defaultRandom(),
    createdAt: timestamp({ withTimezone: true, mode: "date", precision: 3 }).notNull().defaultNow(),
    expiresAt: timestamp({ withTimezone: true, mode: "date", precision: 3 }).notNull(),
  },
  (table) => [index().on(table.expiresAt)],
);
