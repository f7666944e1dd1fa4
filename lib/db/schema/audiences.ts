import { type AnyPgColumn, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { customers } from "./core";

const at = () => timestamp({ withTimezone: true, mode: "date", precision: 3 });

export const audienceTypes = ["CUSTOM", "LOOKALIKE"] as const;
export const audienceStatuses = ["POPULATING", "READY", "TOO_SMALL", "RESTRICTED", "UNAVAILABLE"] as const;

/** What the platform last said about an audience (kept briefly so a burst of reads costs one call). */
export type AudienceLiveRecord = {
  status: (typeof audienceStatuses)[number];
  description: string | null;
  lower_bound: number | null;
  upper_bound: number | null;
  operation_code: number | null;
  delivery_code: number | null;
};

/**
 * A custom or lookalike audience of one customer. Contacts are never stored, hashed or not: the platform
 * holds the members; we keep counts of what was sent. A lookalike keeps its origin (null once the origin
 * is deleted; the platform keeps the lookalike) and its spec; `ratio` in basis points (0.01 = 100).
 */
export const adsAudiences = pgTable(
  "ads_audiences",
  {
    id: uuid().primaryKey().defaultRandom(),
    customerId: uuid()
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    type: text({ enum: audienceTypes }).notNull(),
    name: text().notNull(),
    description: text(),
    platformAudienceId: text().notNull(),
    originAudienceId: uuid().references((): AnyPgColumn => adsAudiences.id, { onDelete: "set null" }),
    lookalikeCountry: text(),
    lookalikeRatioBp: integer(),
    contactsSent: integer().notNull().default(0),
    contactsRemoved: integer().notNull().default(0),
    contactsInvalid: integer().notNull().default(0),
    live: jsonb().$type<AudienceLiveRecord>(),
    liveFetchedAt: at(),
    createdAt: at().notNull(),
    updatedAt: at().notNull(),
  },
  (t) => [uniqueIndex().on(t.customerId, t.platformAudienceId), index().on(t.customerId, t.createdAt)],
);
