import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { migrationsFolder, type Database, type DatabaseHandle } from "../../lib/db/client";
import { applyReleaseMigrations } from "../../lib/db/concurrent-indexes";
import { PGLITE_INITDB_PARAMS } from "../../lib/db/pglite-snapshot";
import { queryRows } from "../../lib/db/sql";
import { createPriorityGate } from "../../lib/db/priority";

/*
 * The release step (`npm run db:release`, `applyReleaseMigrations`) on an existing database that lacks
 * migration 0026 (five indexes on `mail_messages`): the migrations before it are applied, its indexes are
 * built `CREATE INDEX CONCURRENTLY` outside any transaction (writes to the table go on), and the migrator
 * then records 0026 (its statements say IF NOT EXISTS) and applies the rest. A fresh database and one
 * already past 0026 take the migrations as written. On PGlite, which runs CONCURRENTLY as PostgreSQL does
 * (one backend: nothing to wait for); the statements are the same on a server. Migration 0041 drops these
 * indexes again (the time series read trigger-kept counts since), so the release is shown on the migrations
 * up to 0038, the last that keeps them.
 */

const INDEXES = [
  "mail_messages_customer_id_bounced_at_index",
  "mail_messages_customer_id_complained_at_index",
  "mail_messages_customer_id_delivered_at_index",
  "mail_messages_customer_id_first_clicked_at_index",
  "mail_messages_customer_id_first_opened_at_index",
];
const LAST_WITH_INDEXES = 38;
const journal = (JSON.parse(readFileSync(join(migrationsFolder, "meta", "_journal.json"), "utf8")) as { entries: { idx: number }[] }).entries.filter(
  (e) => e.idx <= LAST_WITH_INDEXES,
);
let releaseFolder = "";
beforeAll(() => {
  releaseFolder = migrationsCopy(LAST_WITH_INDEXES);
});
afterAll(() => rmSync(releaseFolder, { recursive: true, force: true }));

/** `drizzle/` with the journal ending at `last`. */
function migrationsCopy(last: number): string {
  const copy = mkdtempSync(join(tmpdir(), "migrations-"));
  cpSync(migrationsFolder, copy, { recursive: true });
  const file = join(copy, "meta", "_journal.json");
  const parsed = JSON.parse(readFileSync(file, "utf8")) as { entries: { idx: number }[] };
  parsed.entries = parsed.entries.filter((e) => e.idx <= last);
  writeFileSync(file, JSON.stringify(parsed));
  return copy;
}

const open: PGlite[] = [];
afterEach(async () => {
  for (const client of open.splice(0)) await client.close();
});

async function database(): Promise<{ client: PGlite; handle: DatabaseHandle; db: Database }> {
  const client = new PGlite({ initDbStartParams: PGLITE_INITDB_PARAMS });
  open.push(client);
  const db = drizzle(client) as unknown as Database;
  return { client, db, handle: { db, driver: "pglite", priority: createPriorityGate(), close: () => client.close() } };
}

async function migrateTo(db: Database, last: number): Promise<void> {
  const copy = migrationsCopy(last);
  try {
    await migrate(db as never, { migrationsFolder: copy });
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

const indexesOf = async (db: Database) =>
  (
    await queryRows<{ name: string; valid: boolean }>(
      db,
      sql`select c.relname as name, i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
      where i.indrelid = 'mail_messages'::regclass and c.relname like 'mail_messages_customer_id_%_at_index' and c.relname <> 'mail_messages_customer_id_accepted_at_index' order by 1`,
    )
  ).map((r) => `${r.name}:${r.valid ? "valid" : "invalid"}`);
const applied = async (db: Database) => (await queryRows<{ n: number }>(db, sql`select count(*)::int as n from drizzle.__drizzle_migrations`))[0]?.n;

describe("the release step builds migration 0026's indexes concurrently on an existing database", () => {
  test("a database at 0025 with messages: the five indexes built CONCURRENTLY and valid, every migration recorded, the rows indexed", async () => {
    const { db, handle } = await database();
    await migrateTo(db, 25);
    const [customer] = await queryRows<{ id: string }>(db, sql`insert into customers (name) values ('Before 0026') returning id`);
    await db.execute(sql`insert into mail_messages (customer_id, kind, mode, status, template_id, subject, recipient_hash, created_at, accepted_at, delivered_at, first_opened_at)
      select ${customer?.id}, 'newsletter', 'live', 'delivered', gen_random_uuid(), 'News', md5(i::text) || md5(i::text), now(), now(), now(), case when i % 3 = 0 then now() end
      from generate_series(1, 300) as i`);
    expect(await indexesOf(db)).toEqual([]);

    const builds = await applyReleaseMigrations(handle, releaseFolder);
    expect(builds).toEqual([{ tag: "0026_mail_stats_indexes", path: "concurrently", indexes: expect.arrayContaining(INDEXES) }]);
    expect(await indexesOf(db)).toEqual(INDEXES.map((name) => `${name}:valid`));
    expect(await applied(db)).toBe(journal.length);
    // The planner can use the partial index for a customer's deliveries: it holds every delivered row.
    const [counted] = await queryRows<{
      n: number;
    }>(db, sql`select count(*)::int as n from mail_messages where customer_id = ${customer?.id} and delivered_at is not null`);
    expect(counted?.n).toBe(300);

    // A second release finds nothing to do.
    expect(await applyReleaseMigrations(handle, releaseFolder)).toEqual([{ tag: "0026_mail_stats_indexes", path: "in-migration", indexes: expect.any(Array) }]);
    expect(await applied(db)).toBe(journal.length);
  });

  test("an index an interrupted build left invalid is dropped and built again", async () => {
    const { db, handle } = await database();
    await migrateTo(db, 25);
    const [customer] = await queryRows<{ id: string }>(db, sql`insert into customers (name) values ('Interrupted') returning id`);
    await db.execute(sql`insert into mail_messages (customer_id, kind, mode, status, template_id, subject, recipient_hash, bounced_at)
      values (${customer?.id}, 'newsletter', 'live', 'bounced', gen_random_uuid(), 'News', 'x', now())`);
    // What a cancelled CREATE INDEX CONCURRENTLY leaves: the index in the catalog, marked not valid.
    await db.execute(sql`create index "mail_messages_customer_id_bounced_at_index" on mail_messages (customer_id, bounced_at) where bounced_at is not null`);
    await db.execute(sql`update pg_index set indisvalid = false where indexrelid = 'mail_messages_customer_id_bounced_at_index'::regclass`);
    expect(await indexesOf(db)).toEqual(["mail_messages_customer_id_bounced_at_index:invalid"]);

    await applyReleaseMigrations(handle, releaseFolder);
    expect(await indexesOf(db)).toEqual(INDEXES.map((name) => `${name}:valid`));
  });

  test("a fresh database takes the migrations as written", async () => {
    const { db, handle } = await database();
    expect(await applyReleaseMigrations(handle, releaseFolder)).toEqual([{ tag: "0026_mail_stats_indexes", path: "in-migration", indexes: expect.any(Array) }]);
    expect(await indexesOf(db)).toEqual(INDEXES.map((name) => `${name}:valid`));
    expect(await applied(db)).toBe(journal.length);
  });
});
