import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/pglite";
import type pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { migrateUnderLock, migrationsFolder, openDatabase, type Database, type DatabaseHandle } from "../../lib/db/client";
import { applyReleaseMigrations } from "../../lib/db/concurrent-indexes";
import { PGLITE_INITDB_PARAMS } from "../../lib/db/pglite-snapshot";
import { queryRows } from "../../lib/db/sql";
import { createPriorityGate } from "../../lib/db/priority";
import { migrationsUpTo } from "../helpers/migrations";

/*
 * The release step (`npm run db:release`, `applyReleaseMigrations`) on an existing database that lacks
 * migration 0026 (five indexes on `mail_messages`): the migrations before it are applied, its indexes are
 * built `CREATE INDEX CONCURRENTLY` outside any transaction (writes to the table go on), and the migrator
 * then records 0026 (its statements say IF NOT EXISTS) and applies the rest. A fresh database and one
 * already past 0026 take the migrations as written. On PGlite, which runs CONCURRENTLY as PostgreSQL does
 * (one backend: nothing to wait for). Migration 0041 drops these indexes again (the time series read
 * trigger-kept counts since), so the release is shown on the migrations up to 0038, the last that keeps them.
 * With `DATABASE_URL` naming a PostgreSQL server (CI's PostgreSQL
 * stage) the same release runs there too, each test on a database of its own, while another connection
 * holds a write to the table open: the build shows in `pg_stat_progress_create_index` as `CREATE INDEX
 * CONCURRENTLY` waiting for that writer, and a further insert meanwhile goes through (a plain CREATE
 * INDEX would take a SHARE lock and hold every insert behind it); and a real interrupted build (a
 * CONCURRENTLY build cancelled while it waits, which leaves its index INVALID) is repaired by a rerun.
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
  releaseFolder = migrationsUpTo(LAST_WITH_INDEXES);
});
afterAll(() => rmSync(releaseFolder, { recursive: true, force: true }));

const open: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

async function database(): Promise<{ client: PGlite; handle: DatabaseHandle; db: Database }> {
  const client = new PGlite({ initDbStartParams: PGLITE_INITDB_PARAMS });
  open.push(() => client.close());
  const db = drizzle(client) as unknown as Database;
  return { client, db, handle: { db, driver: "pglite", priority: createPriorityGate(), close: () => client.close() } };
}

async function migrateTo(handle: DatabaseHandle, last: number): Promise<void> {
  const copy = migrationsUpTo(last);
  try {
    await migrateUnderLock(handle, copy);
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

// On PGlite in the embedded run; the PostgreSQL stage runs the server's tests below (these ran before it).
describe.skipIf(Boolean(process.env.DATABASE_URL))("the release step builds migration 0026's indexes concurrently on an existing database", () => {
  test("a database at 0025 with messages: the five indexes built CONCURRENTLY and valid, every migration recorded, the rows indexed", async () => {
    const { db, handle } = await database();
    await migrateTo(handle, 25);
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
    await migrateTo(handle, 25);
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

const serverUrl = process.env.DATABASE_URL;

/** A database of its own on the server in `DATABASE_URL`, dropped after the test; `connect` opens a plain client to it. */
async function serverDatabase(): Promise<{ handle: DatabaseHandle; db: Database; connect: () => Promise<pg.Client> }> {
  const { default: pgModule } = await import("pg");
  const admin = new URL(serverUrl ?? "");
  admin.pathname = "/postgres";
  const name = `release_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const adminQuery = async (text: string) => {
    const client = new pgModule.Client({ connectionString: admin.toString() });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  await adminQuery(`create database ${name}`);
  open.push(() => adminQuery(`drop database if exists ${name} with (force)`));
  const url = new URL(serverUrl ?? "");
  url.pathname = `/${name}`;
  const handle = await openDatabase({ url: url.toString() });
  open.push(() => handle.close());
  const connect = async () => {
    const client = new pgModule.Client({ connectionString: url.toString() });
    await client.connect();
    open.push(() => client.end());
    return client;
  };
  return { handle, db: handle.db, connect };
}

/** The index builds running on the database now, as the server reports them. */
const builds = async (db: Database) =>
  queryRows<{ command: string; phase: string; index: string | null }>(
    db,
    sql`select p.command, p.phase, c.relname as index from pg_stat_progress_create_index p left join pg_class c on c.oid = p.index_relid
        where p.datname = current_database()`,
  );

const insertMessage = (customerId: string) =>
  `insert into mail_messages (customer_id, kind, mode, status, template_id, subject, recipient_hash, bounced_at)
   values ('${customerId}', 'newsletter', 'live', 'bounced', gen_random_uuid(), 'News', 'w', now())`;

describe.skipIf(!serverUrl)("on a PostgreSQL server (DATABASE_URL)", () => {
  test("the indexes are built CONCURRENTLY: the build waits for an open writer without blocking other inserts, and ends valid", async () => {
    const { db, handle, connect } = await serverDatabase();
    await migrateTo(handle, 25);
    const [customer] = await queryRows<{ id: string }>(db, sql`insert into customers (name) values ('Server before 0026') returning id`);
    const id = customer?.id ?? "";
    await db.execute(sql`insert into mail_messages (customer_id, kind, mode, status, template_id, subject, recipient_hash, created_at, accepted_at, delivered_at)
      select ${id}, 'newsletter', 'live', 'delivered', gen_random_uuid(), 'News', md5(i::text) || md5(i::text), now(), now(), now()
      from generate_series(1, 2000) as i`);
    // A writer with its transaction open: a CONCURRENTLY build waits for it before building.
    const writer = await connect();
    await writer.query("begin");
    await writer.query(insertMessage(id));

    const release = applyReleaseMigrations(handle, releaseFolder);
    release.catch(() => undefined);
    const waiting = await vi.waitFor(
      async () => {
        const [build] = await builds(db);
        if (!build) throw new Error("no index build yet");
        return build;
      },
      { timeout: 15_000, interval: 50 },
    );
    expect(waiting).toMatchObject({ command: "CREATE INDEX CONCURRENTLY", phase: "waiting for writers before build" });
    // Another insert goes through meanwhile: a plain CREATE INDEX would hold it behind its SHARE lock.
    const other = await connect();
    await other.query("set statement_timeout = 5000");
    await other.query(insertMessage(id));
    await writer.query("commit");
    expect(await release).toEqual([{ tag: "0026_mail_stats_indexes", path: "concurrently", indexes: expect.arrayContaining(INDEXES) }]);
    expect(await indexesOf(db)).toEqual(INDEXES.map((name) => `${name}:valid`));
    expect(await applied(db)).toBe(journal.length);
    expect(await builds(db)).toEqual([]);
  });

  test("a rerun after an interrupted build: the INVALID index a cancelled CONCURRENTLY build left is dropped and built again", async () => {
    const { db, handle, connect } = await serverDatabase();
    await migrateTo(handle, 25);
    const [customer] = await queryRows<{ id: string }>(db, sql`insert into customers (name) values ('Server interrupted') returning id`);
    const id = customer?.id ?? "";
    const writer = await connect();
    await writer.query("begin");
    await writer.query(insertMessage(id));
    // A release's build, interrupted: cancelled while it waits for the writer, after its index entered the catalog.
    const builder = await connect();
    const [{ pid } = { pid: 0 }] = (await builder.query<{ pid: number }>("select pg_backend_pid() as pid")).rows;
    const interrupted = builder.query(
      `CREATE INDEX CONCURRENTLY "mail_messages_customer_id_bounced_at_index" ON "mail_messages" USING btree ("customer_id","bounced_at") WHERE "mail_messages"."bounced_at" is not null`,
    );
    interrupted.catch(() => undefined);
    await vi.waitFor(
      async () => {
        // The phase after the index entered the catalog (its first transaction committed); cancelled earlier,
        // the build would leave nothing behind.
        const phases = (await builds(db)).map((b) => b.phase);
        if (!phases.includes("waiting for writers before build")) throw new Error(`the build is not waiting for the writer yet: ${phases.join(", ")}`);
      },
      { timeout: 15_000, interval: 50 },
    );
    await db.execute(sql`select pg_cancel_backend(${pid})`);
    await expect(interrupted).rejects.toMatchObject({ code: "57014" });
    await writer.query("commit");
    expect(await indexesOf(db)).toEqual(["mail_messages_customer_id_bounced_at_index:invalid"]);

    expect(await applyReleaseMigrations(handle, releaseFolder)).toEqual([
      { tag: "0026_mail_stats_indexes", path: "concurrently", indexes: expect.arrayContaining(INDEXES) },
    ]);
    expect(await indexesOf(db)).toEqual(INDEXES.map((name) => `${name}:valid`));
    expect(await applied(db)).toBe(journal.length);
  });
});
