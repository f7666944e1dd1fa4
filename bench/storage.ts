import { rmSync } from "node:fs";
import { loadavg } from "node:os";
import { sql } from "drizzle-orm";
import { openDatabase, type Database } from "../lib/db/client";
import { recipientHash } from "../lib/mail/sending/address";
import { timeOrderedUuid } from "../lib/mail/send-jobs/ids";
import { benchPostgres } from "./postgres";
import { queryRows } from "../lib/db/sql";
import { migrationsUpTo } from "../tests/helpers/migrations";

/**
 * Storage per message (DESIGN's cost that grows with every mail): one send job of 100,000 recipients
 * written into `mail_messages` with the statements the engine makes, in its order — the recipients
 * added 1,000 rows per insert, each batch of 500 marked `sending` and then recorded `accepted` with
 * Postmark's id, then the provider's events one update each (delivered 96 %, bounced 3 %, complained
 * 0.1 %, opened 30 %, clicked 6 %) — then `VACUUM` as autovacuum would, then the 90-day retention step
 * (`pruneMessageHistory`'s statements on this table), `VACUUM` again, then a second job of as many
 * messages to the same list a week later, `VACUUM`. Prints bytes per message for the table, its TOAST and each
 * index, after the job, after retention and what the second job added, per 100,000 messages in MB.
 * The same data goes into two databases on one PostgreSQL server: one migrated to 0038 (the schema
 * before the change of 0041 and 0042) and one migrated to the end, so "before" and "after" are one run's
 * figures. Since 0042 a job's messages store no subject (the job has it): the current schema's rows are
 * written without one, as the engine writes them.
 * Targets: ≤ 35 MB per 100,000 after the job, ≤ 25 MB after retention. `node --import tsx bench/storage.ts`;
 * `BENCH_STORAGE_MESSAGES` changes the size, `BENCH_STORAGE_ONLY=0038|current` runs one schema,
 * `BENCH_STORAGE_FILLFACTOR` sets the table's fillfactor before the fill (to compare settings),
 * `BENCH_STORAGE_DROP_INDEXES=a,b` drops those indexes before the fill (what-if runs).
 */
const MESSAGES = Number(process.env.BENCH_STORAGE_MESSAGES ?? 100_000);
const INSERT_ROWS = 1000;
const BATCH = 500;
const LAST_OLD_MIGRATION = 38;
const MB = 1024 * 1024;

type Flavour = "0038" | "current";

async function exec(db: Database, query: ReturnType<typeof sql>): Promise<void> {
  await db.execute(query);
}

async function fill(db: Database, flavour: Flavour, week: number): Promise<void> {
  const [customer] = await queryRows<{ id: string }>(db, sql`insert into customers (name) values ('Storage bench') returning id`);
  const customerId = customer?.id ?? "";
  const templateId = crypto.randomUUID();
  const [job] = await queryRows<{ id: string }>(
    db,
    sql`insert into mail_send_jobs (customer_id, template_id, mode, "from", subject, status, total)
      values (${customerId}, ${templateId}, 'live', '{"email":"news@example.com"}'::jsonb, 'Our November newsletter: what is new this month', 'running', ${MESSAGES}) returning id`,
  );
  const jobId = job?.id ?? "";
  const ids: string[] = [];
  const t0 = Date.UTC(2026, 10, 1) + week * 7 * 86_400_000;
  for (let from = 0; from < MESSAGES; from += INSERT_ROWS) {
    const rowIds: string[] = [];
    const hashes: string[] = [];
    for (let i = from; i < Math.min(MESSAGES, from + INSERT_ROWS); i++) {
      rowIds.push(timeOrderedUuid(t0 + i));
      hashes.push(recipientHash(`reader${i}@example.com`));
    }
    ids.push(...rowIds);
    await exec(
      db,
      sql`insert into mail_messages (id, customer_id, kind, mode, status, template_id, send_job_id, subject, recipient_hash, error, created_at)
        select unnest(${sql.param(rowIds)}::uuid[]), ${customerId}, 'newsletter', 'live', 'pending', ${templateId}, ${jobId}, ${flavour === "0038" ? "Our November newsletter: what is new this month" : null},
               decode(unnest(${sql.param(hashes)}::text[]), 'hex'), null, ${new Date(t0).toISOString()}::timestamptz`,
    );
  }
  for (let from = 0; from < MESSAGES; from += BATCH) {
    const batch = sql.param(ids.slice(from, from + BATCH));
    const at = new Date(t0 + 3_600_000 + from).toISOString();
    await exec(db, sql`update mail_messages set status = 'sending', attempts = attempts + 1 where id = any(${batch}::uuid[]) and status = 'pending'`);
    await exec(
      db,
      sql`update mail_messages set status = 'accepted', provider_message_id = gen_random_uuid()::text, error = null, accepted_at = ${at}::timestamptz
          where id = any(${batch}::uuid[]) and status = 'sending'`,
    );
  }
  // The provider's events, in the order they arrive: deliveries and bounces first, then opens, clicks and
  // complaints over the next days.
  const share = (every: number, offset: number) => ids.filter((_, i) => i % every === offset);
  // Each event at its own moment, as they arrive: an offset of up to a minute (deliveries) or days.
  const spread = (max: string) => sql`accepted_at + (hashtext(id::text) & 65535) / 65536.0 * interval ${sql.raw(`'${max}'`)}`;
  const events: [string[], ReturnType<typeof sql>][] = [
    [ids.filter((_, i) => i % 100 >= 4), sql`status = 'delivered', delivered_at = ${spread("1 minute")}`],
    [ids.filter((_, i) => i % 100 < 3), sql`status = 'bounced', bounced_at = ${spread("1 minute")}, bounce_type = 'HardBounce', bounce_final = true`],
    [ids.filter((_, i) => i % 10 < 3 && i % 100 >= 4), sql`first_opened_at = ${spread("3 days")}`],
    [share(50, 7).concat(share(50, 17), share(50, 27)), sql`first_clicked_at = ${spread("3 days")}`],
    [share(1000, 500), sql`status = 'complained', complained_at = ${spread("5 days")}`],
  ];
  // A webhook updates its one message in a transaction of its own, so a page never has to hold more than one
  // new version at a time and the previous ones can be pruned. 500 updates per statement keep the bench short;
  // each statement takes every n-th message, so no two of its rows share a page and the page space each
  // statement needs is what single updates would need.
  for (const [targets, set] of events) {
    const statements = Math.ceil(targets.length / BATCH);
    for (let k = 0; k < statements; k++) {
      const some = targets.filter((_, i) => i % statements === k);
      await exec(db, sql`update mail_messages set ${set} where id = any(${sql.param(some)}::uuid[])`);
    }
  }
}

type Sizes = { table: number; toast: number; total: number; indexes: Record<string, number>; heap: Heap | null };
/** What the table's pages hold (`pgstattuple`, in PostgreSQL's contrib): live row versions, dead ones, free space. */
type Heap = { live: number; dead: number; free: number; liveRows: number };

async function sizes(db: Database): Promise<Sizes> {
  await exec(db, sql`vacuum analyze mail_messages`);
  const [row] = await queryRows<{ table: string; total: string; indexes: string; toast: string }>(
    db,
    sql`select pg_relation_size('mail_messages') as "table", pg_total_relation_size('mail_messages') as total,
      pg_indexes_size('mail_messages') as indexes,
      coalesce((select pg_total_relation_size(reltoastrelid) from pg_class where oid = 'mail_messages'::regclass and reltoastrelid <> 0), 0) as toast`,
  );
  const each = await queryRows<{ name: string; bytes: string }>(
    db,
    sql`select indexrelid::regclass::text as name, pg_relation_size(indexrelid) as bytes from pg_index where indrelid = 'mail_messages'::regclass order by 2 desc`,
  );
  // Where the table's bytes go; skipped where the contrib extension is not installed (a managed server).
  let heap: Heap | null = null;
  try {
    await exec(db, sql`create extension if not exists pgstattuple`);
    const [stat] = await queryRows<{ live: string; dead: string; free: string; rows: string }>(
      db,
      sql`select tuple_len as live, dead_tuple_len as dead, free_space as free, tuple_count as rows from pgstattuple('mail_messages')`,
    );
    heap = { live: Number(stat?.live), dead: Number(stat?.dead), free: Number(stat?.free), liveRows: Number(stat?.rows) };
  } catch {
    heap = null;
  }
  return {
    heap,
    table: Number(row?.table),
    toast: Number(row?.toast),
    total: Number(row?.total),
    indexes: Object.fromEntries(each.map((i) => [i.name, Number(i.bytes)])),
  };
}

/**
 * The 90-day retention (`pruneMessageHistory`) deletes events, contents and webhook deliveries: nothing of
 * `mail_messages` (its state is kept permanently). Its statements run here on the same database, so the
 * figure after it is measured rather than assumed.
 */
async function retention(db: Database): Promise<void> {
  await exec(db, sql`delete from mail_message_events where occurred_at < now() - interval '90 days'`);
}

function print(label: string, s: Sizes): void {
  const per = (bytes: number) => `${(bytes / MESSAGES).toFixed(0)} B/msg`;
  const per100k = (bytes: number) => `${(((bytes / MESSAGES) * 100_000) / MB).toFixed(1)} MB/100k`;
  const target = label.includes("retention") ? 25 : 35;
  console.log(`storage, ${label}: total ${per(s.total)} = ${per100k(s.total)} (target ≤ ${target} MB/100k; table ${per(s.table)}, TOAST ${per(s.toast)})`);
  if (s.heap) {
    const { live, dead, free, liveRows } = s.heap;
    const other = s.table - live - dead - free;
    console.log(
      `  table: live rows ${per(live)} (${(live / Math.max(1, liveRows)).toFixed(0)} B a row), dead versions ${per(dead)}, free space ${per(free)}, page and line-pointer overhead ${per(other)}`,
    );
  }
  for (const [name, bytes] of Object.entries(s.indexes)) console.log(`  ${name.padEnd(62)} ${per(bytes).padStart(12)}`);
}

async function main(): Promise<void> {
  const postgres = await benchPostgres();
  console.log(
    `storage: ${MESSAGES} messages of one send job on ${postgres.label}; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  const oldMigrations = migrationsUpTo(LAST_OLD_MIGRATION);
  try {
    const only = process.env.BENCH_STORAGE_ONLY;
    for (const flavour of (["0038", "current"] as const).filter((f) => !only || f === only)) {
      const url = await postgres.database(`bench_storage_${flavour}`);
      // `database()` migrated to the end: the 0038 flavour starts from a database of its own migrated less far.
      const target = flavour === "0038" ? url.replace(/bench_storage_0038$/, "bench_storage_old") : url;
      if (flavour === "0038") {
        const admin = await openDatabase({ url, migrate: false });
        await admin.db.execute(sql`create database bench_storage_old`);
        await admin.close();
      }
      const handle = await openDatabase({ url: target, migrate: false });
      try {
        if (flavour === "0038") {
          const { migrate } = await import("drizzle-orm/node-postgres/migrator");
          await migrate(handle.db as never, { migrationsFolder: oldMigrations });
        }
        // What-if runs: indexes left out before the fill (e.g. the two the record changes, to see it HOT).
        for (const name of (process.env.BENCH_STORAGE_DROP_INDEXES ?? "").split(",").filter(Boolean)) {
          await exec(handle.db, sql`drop index if exists ${sql.identifier(name)}`);
        }
        const fillfactor = process.env.BENCH_STORAGE_FILLFACTOR;
        if (fillfactor) await exec(handle.db, sql`alter table mail_messages set (fillfactor = ${sql.raw(String(Number(fillfactor)))})`);
        const started = performance.now();
        await fill(handle.db, flavour, 0);
        const label = flavour === "0038" ? "schema of 0038 (before)" : "current schema (after)";
        console.log(`storage, ${label}: written in ${Math.round(performance.now() - started)} ms`);
        // Statistics reach the shared counters within a second of each statement's end.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const [updates] = await queryRows<{ all: string; hot: string }>(
          handle.db,
          sql`select n_tup_upd as all, n_tup_hot_upd as hot from pg_stat_user_tables where relname = 'mail_messages'`,
        );
        console.log(`storage, ${label}: ${updates?.all} row updates, ${updates?.hot} of them heap-only (HOT: no index entry, the version on its own page)`);
        print(`${label}, after the job`, await sizes(handle.db));
        await retention(handle.db);
        const first = await sizes(handle.db);
        print(`${label}, after the 90-day retention`, first);
        // The next week's job to the same list, on the table the first one left: the pages its rows moved out
        // of (free once vacuumed) take the new rows, so this is what each further message adds.
        await fill(handle.db, flavour, 1);
        const second = await sizes(handle.db);
        const grown: Sizes = {
          table: second.table - first.table,
          toast: second.toast - first.toast,
          total: second.total - first.total,
          indexes: Object.fromEntries(Object.entries(second.indexes).map(([name, bytes]) => [name, bytes - (first.indexes[name] ?? 0)])),
          heap: null,
        };
        print(`${label}, what a second job of as many messages adds (steady state)`, grown);
      } finally {
        await handle.close();
      }
    }
  } finally {
    rmSync(oldMigrations, { recursive: true, force: true });
    postgres.stop();
  }
}

await main();
