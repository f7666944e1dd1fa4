import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { bootRuntime, type Runtime } from "../../lib/bootstrap";
import { migrationsFolder } from "../../lib/db/client";
import { PGLITE_INITDB_PARAMS } from "../../lib/db/pglite-snapshot";
import { recipientHash } from "../../lib/mail/sending/address";
import { queryRows } from "../../lib/db/sql";

/*
 * Migrations 0034 (the recipient hash stored as its 32-byte digest, one index for both searches by address)
 * and 0035 (fillfactor 50) on a database written by the schema before them: an embedded data directory
 * migrated to 0033 only, filled with messages the way that schema stored them (hex hashes), then started
 * by the service, which applies them. Every field of a message is then read back through the mail API, the recipient search (customer's
 * and operator's) finds the messages by address, and the overview's counts kept by triggers still move.
 */

const ADDRESS = "Old.Reader@Example.com";
const OTHER = "someone-else@example.com";
let dir: string;
let runtime: Runtime;
const ids = { customer: "", job: "", template: crypto.randomUUID(), delivered: "", bounced: "", transactional: "", invalid: "" };

/** `drizzle/` with the journal ending at `last`: migrating with it gives the schema as it was then. */
function migrationsUpTo(last: number): string {
  const copy = mkdtempSync(join(tmpdir(), "migrations-"));
  cpSync(migrationsFolder, copy, { recursive: true });
  const file = join(copy, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(file, "utf8")) as { entries: { idx: number }[] };
  journal.entries = journal.entries.filter((e) => e.idx <= last);
  writeFileSync(file, JSON.stringify(journal));
  return copy;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "storage-migration-"));
  const old = migrationsUpTo(33);
  const client = new PGlite(join(dir, "pglite"), { initDbStartParams: PGLITE_INITDB_PARAMS });
  try {
    const db = drizzle(client);
    await migrate(db, { migrationsFolder: old });
    const [hashType] = (
      await client.query<{ t: string }>(
        "select data_type as t from information_schema.columns where table_name = 'mail_messages' and column_name = 'recipient_hash'",
      )
    ).rows;
    expect(hashType?.t).toBe("text");
    const one = async <T>(query: ReturnType<typeof sql>) => ((await db.execute(query)).rows as T[])[0] as T;
    ids.customer = (await one<{ id: string }>(sql`insert into customers (name) values ('Stored before 0034') returning id`)).id;
    await db.execute(sql`insert into mail_settings (customer_id) values (${ids.customer})`);
    await db.execute(sql`insert into ads_settings (customer_id) values (${ids.customer})`);
    ids.job = (
      await one<{ id: string }>(sql`insert into mail_send_jobs (customer_id, template_id, mode, "from", subject, status, total, accepted, completed_at)
        values (${ids.customer}, ${ids.template}, 'live', '{"email":"news@example.com"}'::jsonb, 'Autumn news', 'completed', 2, 2, '2026-10-02T10:00:00Z') returning id`)
    ).id;
    const hash = recipientHash(ADDRESS);
    const message = (values: ReturnType<typeof sql>) =>
      one<{
        id: string;
      }>(sql`insert into mail_messages (customer_id, kind, mode, status, template_id, send_job_id, subject, recipient_hash, provider_message_id,
          bounce_type, bounce_final, error, attempts, created_at, accepted_at, delivered_at, first_opened_at, first_clicked_at, bounced_at, complained_at) values ${values} returning id`);
    ids.delivered = (
      await message(sql`(${ids.customer}, 'newsletter', 'live', 'delivered', ${ids.template}, ${ids.job}, 'Autumn news', ${hash}, '0a129aee-e1cd-480d-b08d-4f48548ff48d',
        null, false, null, 1, '2026-10-01T09:00:00Z', '2026-10-02T10:00:00Z', '2026-10-02T10:00:05Z', '2026-10-02T12:00:00Z', '2026-10-02T12:01:00Z', null, null)`)
    ).id;
    ids.bounced = (
      await message(sql`(${ids.customer}, 'newsletter', 'live', 'bounced', ${ids.template}, ${ids.job}, 'Autumn news', ${recipientHash(OTHER)}, 'b7c2e1a0-1d2c-4e5f-8a9b-0c1d2e3f4a5b',
        'HardBounce', true, null, 1, '2026-10-01T09:00:00Z', '2026-10-02T10:00:00Z', null, null, null, '2026-10-02T10:00:09Z', null)`)
    ).id;
    ids.transactional = (
      await message(sql`(${ids.customer}, 'transactional', 'live', 'complained', ${ids.template}, null, 'Your receipt', ${hash}, 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
        null, false, null, 0, '2026-10-03T08:00:00Z', '2026-10-03T08:00:01Z', '2026-10-03T08:00:03Z', null, null, null, '2026-10-04T07:00:00Z')`)
    ).id;
    ids.invalid = (
      await message(sql`(${ids.customer}, 'transactional', 'sandbox', 'invalid', ${ids.template}, null, 'Your receipt', ${recipientHash("not an address")}, null,
        null, false, 'The recipient address could not be parsed.', 0, '2026-10-03T09:00:00Z', null, null, null, null, null, null)`)
    ).id;
    await db.execute(sql`insert into mail_message_events (message_id, customer_id, type, occurred_at, identity, details)
      values (${ids.delivered}, ${ids.customer}, 'delivered', '2026-10-02T10:00:05Z', 'delivery:1', '{"server":"mx.example.com"}'::jsonb)`);
  } finally {
    await client.close();
    rmSync(old, { recursive: true, force: true });
  }
  runtime = await bootRuntime({ ...process.env, DATABASE_URL: "", DATA_DIR: dir, LOG_LEVEL: "silent", ADMIN_TOKEN_BREAK_GLASS: "true" });
}, 120_000);

afterAll(async () => {
  await runtime?.close();
  rmSync(dir, { recursive: true, force: true });
});

const call = async (path: string, token: string, init: RequestInit = {}) => {
  const response = await runtime.fetch(
    new Request(`http://migration.test${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers },
    }),
  );
  return { status: response.status, json: (await response.json()) as { data: never } };
};

describe("migration 0034 on a database the older schema filled", () => {
  test("the hash is stored as 32 bytes, one index serves both searches by address", async () => {
    const { db } = runtime.deps;
    const [column] = await queryRows<{ t: string }>(
      db,
      sql`select data_type as t from information_schema.columns where table_name = 'mail_messages' and column_name = 'recipient_hash'`,
    );
    expect(column?.t).toBe("bytea");
    const [stored] = await queryRows<{ hex: string; n: number }>(
      db,
      sql`select encode(recipient_hash, 'hex') as hex, octet_length(recipient_hash) as n from mail_messages where id = ${ids.delivered}`,
    );
    expect(stored).toEqual({ hex: recipientHash(ADDRESS), n: 32 });
    const indexes = (
      await queryRows<{ indexname: string }>(db, sql`select indexname from pg_indexes where tablename = 'mail_messages' and indexdef like '%recipient_hash%'`)
    ).map((r) => r.indexname);
    expect(indexes).toEqual(["mail_messages_recipient_hash_customer_id_created_at_id_index"]);
    // Migration 0035: half of each new page kept free for the row versions updates make.
    const [options] = await queryRows<{ options: string[] | null }>(db, sql`select reloptions as options from pg_class where oid = 'mail_messages'::regclass`);
    expect(options?.options).toEqual(["fillfactor=50"]);
  });

  test("every field of every message is answered through the mail API as before", async () => {
    const issued = await call(`/admin/v1/customers/${ids.customer}/keys`, runtime.deps.adminToken, {
      method: "POST",
      body: JSON.stringify({ service: "mail", scope: "reporting" }),
    });
    expect(issued.status, JSON.stringify(issued.json)).toBe(201);
    const key = (issued.json.data as { key: string }).key;
    const read = async (id: string) => {
      const r = await call(`/mail/v1/messages/${id}`, key);
      expect(r.status).toBe(200);
      return r.json.data as Record<string, unknown>;
    };
    expect(await read(ids.delivered)).toMatchObject({
      id: ids.delivered,
      kind: "newsletter",
      mode: "live",
      status: "delivered",
      template_id: ids.template,
      send_job_id: ids.job,
      subject: "Autumn news",
      bounce_type: null,
      error: null,
      created_at: "2026-10-01T09:00:00.000Z",
      delivered_at: "2026-10-02T10:00:05.000Z",
      first_opened_at: "2026-10-02T12:00:00.000Z",
      first_clicked_at: "2026-10-02T12:01:00.000Z",
      bounced_at: null,
      complained_at: null,
      events: [expect.objectContaining({ type: "delivered", at: "2026-10-02T10:00:05.000Z" })],
    });
    expect(await read(ids.bounced)).toMatchObject({ status: "bounced", bounce_type: "HardBounce", bounced_at: "2026-10-02T10:00:09.000Z", delivered_at: null });
    expect(await read(ids.transactional)).toMatchObject({
      kind: "transactional",
      status: "complained",
      send_job_id: null,
      complained_at: "2026-10-04T07:00:00.000Z",
    });
    expect(await read(ids.invalid)).toMatchObject({ mode: "sandbox", status: "invalid", error: "The recipient address could not be parsed." });

    // The customer's search by address finds the messages stored with the old hex hash, newest first.
    const found = await call(`/mail/v1/messages?recipient=${encodeURIComponent(ADDRESS.toLowerCase())}`, key);
    expect(found.status).toBe(200);
    expect((found.json.data as { id: string }[]).map((m) => m.id)).toEqual([ids.transactional, ids.delivered]);
  });

  test("the operator's search finds them by address and by id; the overview's counts still move with updates", async () => {
    const token = runtime.deps.adminToken;
    const byAddress = await call(`/admin/v1/search?q=${encodeURIComponent(ADDRESS)}&kind=message`, token);
    expect(byAddress.status).toBe(200);
    const messages = (byAddress.json.data as { messages: { id: string }[] }).messages;
    expect(messages.map((m) => m.id).sort()).toEqual([ids.delivered, ids.transactional].sort());
    const byId = await call(`/admin/v1/search?q=${ids.bounced}&kind=message`, token);
    expect((byId.json.data as { messages: { id: string }[] }).messages.map((m) => m.id)).toEqual([ids.bounced]);

    const { db } = runtime.deps;
    const counted = async () =>
      (
        await queryRows<{ n: number }>(
          db,
          sql`select coalesce(sum(n), 0)::int as n from (select count from mail_message_counts where customer_id = ${ids.customer} and status = 'complained'
        union all select delta from mail_message_count_deltas where customer_id = ${ids.customer} and status = 'complained') as c(n)`,
        )
      )[0]?.n;
    const before = await counted();
    await db.execute(sql`update mail_messages set status = 'complained', complained_at = now() where id = ${ids.delivered}`);
    expect(await counted()).toBe((before ?? 0) + 1);
  });
});
