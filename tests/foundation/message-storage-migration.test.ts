import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { bootRuntime, type Runtime } from "../../lib/bootstrap";
import { PGLITE_INITDB_PARAMS } from "../../lib/db/pglite-snapshot";
import { recipientHash } from "../../lib/mail/sending/address";
import { queryRows } from "../../lib/db/sql";
import { migrationsUpTo } from "../helpers/migrations";

/*
 * The storage migrations on a database written by the schemas before them: an embedded data directory
 * migrated to 0033 and filled the way that schema stored messages (hex hashes), then migrated to 0038 and
 * filled the way that one did (32-byte hashes, a subject on every row, the time-series indexes), then
 * started by the service, which applies 0041 (time series from trigger-kept counts, hash indexes, a job's
 * messages indexed by job) and 0042 (a job's messages without a subject of their own). Every field of a
 * message is then read back through the mail API, both searches by address (customer's and operator's)
 * find the messages, the overview's counts and the operator's time series count the old rows and still
 * move with updates, and a message written after the upgrade reads its job's subject.
 */

const ADDRESS = "Old.Reader@Example.com";
const OTHER = "someone-else@example.com";
let dir: string;
let runtime: Runtime;
const ids = { customer: "", job: "", template: crypto.randomUUID(), delivered: "", bounced: "", transactional: "", invalid: "", at38: "" };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "storage-migration-"));
  const old = migrationsUpTo(33);
  const at38 = migrationsUpTo(38);
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

    // The schema of 0038: the hash as its digest, the job's subject on every message of it.
    await migrate(db, { migrationsFolder: at38 });
    ids.at38 = (
      await one<{
        id: string;
      }>(sql`insert into mail_messages (customer_id, kind, mode, status, template_id, send_job_id, subject, recipient_hash, provider_message_id,
          attempts, created_at, accepted_at, delivered_at, first_opened_at) values (${ids.customer}, 'newsletter', 'live', 'delivered', ${ids.template}, ${ids.job},
          'Autumn news', decode(${hash}, 'hex'), 'd4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f70', 1, '2026-10-05T09:00:00Z', '2026-10-05T09:30:00Z', '2026-10-05T09:30:04Z',
          '2026-10-05T11:15:00Z') returning id`)
    ).id;
  } finally {
    await client.close();
    rmSync(old, { recursive: true, force: true });
    rmSync(at38, { recursive: true, force: true });
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

describe("migrations 0034 to 0042 on a database the older schemas filled", () => {
  test("the hash is stored as 32 bytes, one hash index serves both searches by address, no index holds a column events change", async () => {
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
    const indexes = await queryRows<{ name: string; def: string }>(
      db,
      sql`select indexname as name, indexdef as def from pg_indexes where tablename = 'mail_messages' order by 1`,
    );
    expect(indexes.filter((i) => i.def.includes("recipient_hash")).map((i) => i.name)).toEqual(["mail_messages_recipient_hash_index"]);
    expect(indexes.find((i) => i.name === "mail_messages_recipient_hash_index")?.def).toContain("USING hash");
    // What the claim and the provider's events change (status, the event times, the bounce) is in no index.
    for (const column of ["status", "delivered_at", "bounced_at", "complained_at", "first_opened_at", "first_clicked_at", "bounce_type", "attempts"]) {
      expect(indexes.filter((i) => i.def.includes(column)).map((i) => i.name)).toEqual([]);
    }
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
    expect((found.json.data as { id: string }[]).map((m) => m.id)).toEqual([ids.at38, ids.transactional, ids.delivered]);
    expect(await read(ids.at38)).toMatchObject({
      send_job_id: ids.job,
      subject: "Autumn news",
      status: "delivered",
      created_at: "2026-10-05T09:00:00.000Z",
      delivered_at: "2026-10-05T09:30:04.000Z",
      first_opened_at: "2026-10-05T11:15:00.000Z",
    });

    // Written after the upgrade as the engine writes it: no subject of its own, its job's is answered.
    const [fresh] = await queryRows<{ id: string }>(
      runtime.deps.db,
      sql`insert into mail_messages (customer_id, kind, mode, status, template_id, send_job_id, recipient_hash, created_at)
        values (${ids.customer}, 'newsletter', 'live', 'pending', ${ids.template}, ${ids.job}, decode(${recipientHash("new@example.com")}, 'hex'), '2026-10-06T08:00:00Z') returning id`,
    );
    expect(await read(fresh?.id ?? "")).toMatchObject({ subject: "Autumn news", status: "pending", send_job_id: ids.job });
    const listed = await call(`/mail/v1/messages?recipient=new%40example.com`, key);
    expect(listed.json.data).toEqual([expect.objectContaining({ id: fresh?.id, subject: "Autumn news" })]);
  });

  test("the operator's search finds them by address and by id; the overview's counts still move with updates", async () => {
    const token = runtime.deps.adminToken;
    const byAddress = await call(`/admin/v1/search?q=${encodeURIComponent(ADDRESS)}&kind=message`, token);
    expect(byAddress.status).toBe(200);
    const messages = (byAddress.json.data as { messages: { id: string }[] }).messages;
    expect(messages.map((m) => m.id).sort()).toEqual([ids.delivered, ids.transactional, ids.at38].sort());
    const byProviderId = await call(`/admin/v1/search?q=d4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f70&kind=message`, token);
    expect((byProviderId.json.data as { messages: { id: string; subject: string }[] }).messages).toEqual([
      expect.objectContaining({ id: ids.at38, subject: "Autumn news" }),
    ]);
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
  test("the operator's time series count the rows written before and move with later updates", async () => {
    const token = runtime.deps.adminToken;
    const series = async () => {
      const r = await call(`/admin/v1/customers/${ids.customer}/mail/stats?granularity=day&from=2026-10-01T00:00:00Z&to=2026-10-06T00:00:00Z`, token);
      expect(r.status).toBe(200);
      return r.json.data as { totals: Record<string, number>; buckets: ({ start: string } & Record<string, number>)[] };
    };
    const before = await series();
    expect(before.totals).toEqual({ accepted: 4, delivered: 3, bounced: 1, complained: 1, opened: 2, clicked: 1 });
    expect(before.buckets.find((b) => b.start === "2026-10-05T00:00:00.000Z")).toMatchObject({ accepted: 1, delivered: 1, opened: 1, clicked: 0 });

    await runtime.deps.db.execute(sql`update mail_messages set first_clicked_at = '2026-10-05T12:00:00Z' where id = ${ids.at38}`);
    await runtime.deps.db.execute(sql`update mail_messages set delivered_at = null, bounced_at = '2026-10-02T10:00:07Z' where id = ${ids.delivered}`);
    const after = await series();
    expect(after.totals).toEqual({ accepted: 4, delivered: 2, bounced: 2, complained: 1, opened: 2, clicked: 2 });
    expect(after.buckets.find((b) => b.start === "2026-10-05T00:00:00.000Z")).toMatchObject({ clicked: 1 });
  });
});
