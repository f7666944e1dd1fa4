import { and, asc, desc, eq, gt, ilike, like, lt, or, sql, type SQL } from "drizzle-orm";
import type { Database } from "../db/client";
import { adsSettings, customers, mailSettings } from "../db/schema";
import type { z } from "@hono/zod-openapi";
import { BadRequestError, NotFoundError } from "../core/errors";
import { selectedStageSql, setSelectedStage } from "../ads";
import { decodeKeyCursor, toKeyPage } from "../core/pagination";
import type { AdsSettings, Customer, MailSettings } from "./customers/schema";

/** The service speaks the API's shapes: one schema per resource (`customers/schema.ts`). */
export type MailSettingsInput = Partial<z.infer<typeof MailSettings>>;
export type AdsSettingsInput = Partial<z.infer<typeof AdsSettings>>;
export type CustomerRecord = z.infer<typeof Customer>;

/** The customer with its settings; `ads.stage` is the running cycle's selected stage (the plan's one source). */
async function load(db: Database, id: string, now: Date): Promise<CustomerRecord | null> {
  const [row] = await db
    .select({ customer: customers, mail: mailSettings, ads: adsSettings, stage: selectedStageSql(customers.id, adsSettings.stage, now) })
    .from(customers)
    .innerJoin(mailSettings, eq(mailSettings.customerId, customers.id))
    .innerJoin(adsSettings, eq(adsSettings.customerId, customers.id))
    .where(eq(customers.id, id));
  return row ? toCustomerView(row) : null;
}

function toCustomerView(row: {
  customer: typeof customers.$inferSelect;
  mail: typeof mailSettings.$inferSelect;
  ads: typeof adsSettings.$inferSelect;
  stage: CustomerRecord["ads"]["stage"];
}): CustomerRecord {
  return {
    id: row.customer.id,
    name: row.customer.name,
    created_at: row.customer.createdAt.toISOString(),
    mail: {
      sending_blocked: row.mail.sendingBlocked,
      mode: row.mail.mode,
      monthly_limit: row.mail.monthlyLimit,
      max_per_job: row.mail.maxPerJob,
    },
    ads: { account_state: row.ads.accountState, stage: row.stage, enterprise_included_ads: row.ads.enterpriseIncludedAds },
  };
}

/** A customer always has both settings rows, created in the same transaction. */
export async function createCustomer(
  db: Database,
  input: { name: string; mail?: MailSettingsInput; ads?: AdsSettingsInput },
  now: Date,
): Promise<CustomerRecord> {
  const id = await db.transaction(async (tx) => {
    const [customer] = await tx.insert(customers).values({ name: input.name }).returning({ id: customers.id });
    if (!customer) throw new Error("customer insert returned nothing");
    await tx.insert(mailSettings).values({ customerId: customer.id, ...mailColumns(input.mail ?? {}) });
    await tx.insert(adsSettings).values({ customerId: customer.id, ...adsColumns(input.ads ?? {}) });
    return customer.id;
  });
  const created = await load(db, id, now);
  if (!created) throw new Error("created customer vanished");
  return created;
}

export async function getCustomer(db: Database, id: string, now: Date): Promise<CustomerRecord | null> {
  return load(db, id, now);
}

export const customerSorts = ["created_at", "-created_at", "name", "-name"] as const;
export type CustomerSort = (typeof customerSorts)[number];

/** `%`, `_` and `\\` taken literally in a LIKE pattern. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Server-side search and keyset pagination: `q` matches a part of the name (case-insensitive) or the
 * start of the id; `sort` orders by creation time or name, case-insensitively (a leading `-` reverses), the id breaking ties.
 */
export async function listCustomers(
  db: Database,
  now: Date,
  input: { limit: number; after: string | undefined; q?: string | undefined; sort?: CustomerSort | undefined },
) {
  const sort = input.sort ?? "created_at";
  const descending = sort.startsWith("-");
  const byName = sort.endsWith("name");
  const cursor = decodeKeyCursor(input.after, sort);
  // Names sort case-insensitively (`lower(name)`), so "alpha" and "Alpha" sit together whatever the collation.
  const keyColumn: SQL = byName ? sql`lower(${customers.name})` : sql`${customers.createdAt}`;
  const needle = input.q?.trim() ?? "";
  const filters: (SQL | undefined)[] = [];
  if (needle !== "") {
    const idPrefix = needle.toLowerCase();
    filters.push(
      or(
        ilike(customers.name, `%${likeLiteral(needle)}%`),
        /^[0-9a-f-]{1,36}$/.test(idPrefix) ? like(sql`${customers.id}::text`, `${likeLiteral(idPrefix)}%`) : undefined,
      ),
    );
  }
  if (cursor) {
    const key = byName ? cursor.key : new Date(cursor.key);
    if (key instanceof Date && Number.isNaN(key.getTime()))
      throw new BadRequestError("Invalid `after` cursor; pass `paging.after` from the previous page unchanged.");
    const past = descending ? lt : gt;
    filters.push(or(past(keyColumn, key), and(eq(keyColumn, key), past(customers.id, cursor.id))));
  }
  const direction = descending ? desc : asc;
  const rows = await db
    .select({ customer: customers, mail: mailSettings, ads: adsSettings, stage: selectedStageSql(customers.id, adsSettings.stage, now) })
    .from(customers)
    .innerJoin(mailSettings, eq(mailSettings.customerId, customers.id))
    .innerJoin(adsSettings, eq(adsSettings.customerId, customers.id))
    .where(and(...filters))
    .orderBy(direction(keyColumn), direction(customers.id))
    .limit(input.limit + 1);
  return toKeyPage(rows.map(toCustomerView), input.limit, (c) => ({ sort, key: byName ? c.name.toLowerCase() : c.created_at, id: c.id }));
}

function mailColumns(input: MailSettingsInput) {
  return {
    ...(input.sending_blocked !== undefined && { sendingBlocked: input.sending_blocked }),
    ...(input.mode !== undefined && { mode: input.mode }),
    ...(input.monthly_limit !== undefined && { monthlyLimit: input.monthly_limit }),
    ...(input.max_per_job !== undefined && { maxPerJob: input.max_per_job }),
  };
}

function adsColumns(input: AdsSettingsInput) {
  return {
    ...(input.account_state !== undefined && { accountState: input.account_state }),
    ...(input.stage !== undefined && { stage: input.stage }),
    ...(input.enterprise_included_ads !== undefined && { enterpriseIncludedAds: input.enterprise_included_ads }),
  };
}

export async function updateCustomer(
  db: Database,
  id: string,
  input: { name?: string; mail?: MailSettingsInput; ads?: AdsSettingsInput },
  now: Date,
): Promise<CustomerRecord | null> {
  const found = await db.transaction(async (tx) => {
    const [customer] = await tx
      .update(customers)
      .set(input.name !== undefined ? { name: input.name } : { id })
      .where(eq(customers.id, id))
      .returning({ id: customers.id });
    if (!customer) return false;
    const mail = mailColumns(input.mail ?? {});
    if (Object.keys(mail).length > 0)
      await tx
        .update(mailSettings)
        .set({ ...mail, updatedAt: now })
        .where(eq(mailSettings.customerId, id));
    const ads = adsColumns(input.ads ?? {});
    if (Object.keys(ads).length > 0)
      await tx
        .update(adsSettings)
        .set({ ...ads, updatedAt: now })
        .where(eq(adsSettings.customerId, id));
    if (input.ads?.stage !== undefined) await setSelectedStage(tx, id, input.ads.stage, now);
    return true;
  });
  return found ? load(db, id, now) : null;
}

/** Every per-customer admin route answers 404 for an unknown customer before it touches anything else. */
export async function requireCustomer(db: Database, id: string): Promise<CustomerRecord> {
  // Existence is what is required here; the wall clock only picks the cycle whose stage `ads.stage` shows.
  const customer = await getCustomer(db, id, new Date());
  if (!customer) throw new NotFoundError("Customer");
  return customer;
}
