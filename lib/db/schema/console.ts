import { index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { operators } from "./operators";

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
    /** The signed-in operator; null for a session opened with the bootstrap or break-glass token. */
    operatorId: uuid().references(() => operators.id, { onDelete: "cascade" }),
    userAgent: text(),
    address: text(),
    /** The last request made with the session (moved at most once a minute): the idle timeout counts from here. */
    lastSeenAt: timestamp({ withTimezone: true, mode: "date", precision: 3 }).notNull().defaultNow(),
    /** When the operator last proved who they are (sign-in or re-authentication): sensitive actions need it recent. */
    authenticatedAt: timestamp({ withTimezone: true, mode: "date", precision: 3 }).notNull().defaultNow(),
  },
  (table) => [index().on(table.expiresAt), index().on(table.operatorId)],
);
