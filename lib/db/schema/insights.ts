import { bigint, date, index, integer, pgTable, primaryKey, smallint, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { adsStages, customers } from "./core";

const at = () => timestamp({ withTimezone: true, mode: "date", precision: 3 });
const counter = () => bigint({ mode: "number" }).notNull();

/**
 * One ad's metrics for one day of the ad account's time zone, for one breakdown value. `dimension` is the
 * Graph `breakdowns` the row came from (`''` for the totals, `age`, `age,gender`, …); `value1`/`value2`
 * hold its one or two values (`''` when unused). Money is in hundredths of the account currency, exact
 * (Graph's strings are parsed, never float-added). A re-pulled day overwrites its row: idempotent.
 *
 * The primary key leads with (customer, dimension, date), the shape of every insights query: one customer,
 * one dimension, a date range; the metrics sit in the same heap rows, so a 90-day query reads one
 * contiguous index range.
 */
/** The additive metrics, the same columns in snapshots and their day-block roll-ups. */
/**
 * The insights breakdowns (`''` = none), written once: the values of `breakdown` in the blocks and windows,
 * the breakdowns the API accepts and documents (`lib/ads/insights/schema.ts`, read by the query).
 */
export const INSIGHT_BREAKDOWNS = [
  "",
  "age",
  "gender",
  "country",
  "publisher_platform",
  "platform_position",
  "impression_device",
  "device_platform",
  "age,gender",
] as const;
export type InsightBreakdown = (typeof INSIGHT_BREAKDOWNS)[number];

const metricColumns = () => ({
  impressions: counter(),
  reach: counter(),
  clicks: counter(),
  spendMinor: counter(),
  conversions: counter(),
  conversionValueMinor: counter(),
});

export const adsInsightSnapshots = pgTable(
  "ads_insight_snapshots",
  {
    customerId: uuid()
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    dimension: text().notNull(),
    date: date({ mode: "string" }).notNull(),
    adId: uuid().notNull(),
    adSetId: uuid().notNull(),
    value1: text().notNull(),
    value2: text().notNull(),
    ...metricColumns(),
    pulledAt: at().notNull(),
  },
  (t) => [primaryKey({ columns: [t.customerId, t.dimension, t.date, t.adId, t.value1, t.value2] }), index().on(t.adId)],
);

/**
 * Snapshot progress per customer's ad account. `syncedThrough` is the last day of the account's time zone
 * pulled completely; a run that fails leaves it, so the next run pulls the same days again (nothing is lost).
 */
export const adsInsightSyncs = pgTable("ads_insight_syncs", {
  customerId: uuid()
    .primaryKey()
    .references(() => customers.id, { onDelete: "cascade" }),
  timezoneName: text().notNull(),
  currency: text().notNull(),
  syncedThrough: date({ mode: "string" }),
  lastRunAt: at(),
  lastError: text(),
  /** Raised before and after every rebuild of the customer's blocks: a cached window is good only for the version it was computed from. */
  blocksVersion: integer().notNull().default(0),
  updatedAt: at().notNull().defaultNow(),
});

/**
 * The stage the customer chose, effective from the start of a cycle (a calendar month, UTC). An upgrade is
 * effective from the running cycle's start, a downgrade from the next one. The latest row not in the future
 * is the selection; without any row the operator's `ads_settings.stage` is.
 */
export const adsPlanSelections = pgTable(
  "ads_plan_selections",
  {
    customerId: uuid()
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    effectiveFrom: date({ mode: "string" }).notNull(),
    stage: text({ enum: adsStages }).notNull(),
    createdAt: at().notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.customerId, t.effectiveFrom] })],
);

/**
 * The snapshots rolled up per API breakdown (`''`, `age`, …, `platform_position`, `age,gender`), entity kind
 * (`ad` or `adset`) and aligned power-of-two block of days (level L covers 2^L days starting at a multiple
 * of 2^L days after 2000-01-01; level 0 is one day). Sums are sums; `reach` is the highest single-day reach
 * in the block. Any date range is the union of at most ~2·log2(days) such blocks, the same blocks for every
 * entity, so an insights query reads about ten rows per entity and breakdown value instead of one per day.
 */
export const adsInsightBlocks = pgTable(
  "ads_insight_blocks",
  {
    customerId: uuid()
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    breakdown: text({ enum: INSIGHT_BREAKDOWNS }).notNull(),
    entityKind: text({ enum: ["ad", "adset"] }).notNull(),
    level: smallint().notNull(),
    blockStart: date({ mode: "string" }).notNull(),
    entityId: uuid().notNull(),
    adSetId: uuid().notNull(),
    key1: text().notNull(),
    key2: text().notNull(),
    ...metricColumns(),
  },
  (t) => [primaryKey({ columns: [t.customerId, t.breakdown, t.entityKind, t.level, t.blockStart, t.entityId, t.key1, t.key2] })],
);

/**
 * Read-through cache of preset insight queries without an entity filter: the aggregated rows of one
 * breakdown, entity kind and date range as the JSON the query hands over, computed from the blocks at
 * `version` (`ads_insight_syncs.blocks_version`). A window whose version is not the current one is never
 * read; the rebuild removes those. Dashboards ask the same presets all day, and the blocks change once a day.
 */
export const adsInsightWindows = pgTable(
  "ads_insight_windows",
  {
    customerId: uuid()
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    breakdown: text({ enum: INSIGHT_BREAKDOWNS }).notNull(),
    entityKind: text({ enum: ["ad", "adset"] }).notNull(),
    since: date({ mode: "string" }).notNull(),
    until: date({ mode: "string" }).notNull(),
    version: integer().notNull(),
    rows: text().notNull(),
    createdAt: at().notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.customerId, t.breakdown, t.entityKind, t.since, t.until] })],
);
