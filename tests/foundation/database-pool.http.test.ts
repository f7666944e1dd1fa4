import { sql } from "drizzle-orm";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { isDatabaseUnavailable } from "../../lib/core/database-unavailable";
import { openDatabase, type DatabaseHandle } from "../../lib/db/client";

/*
 * The server's pool after a connection dies under a transaction (lib/db/pool-clients.ts): drizzle sends BEGIN
 * outside its try/finally, so without the guard a failed BEGIN kept its client checked out for good and
 * `pool.end()` hung (a CI run after `pg_ctl restart`). The connection is cut the moment the transaction
 * checks its client out (the pool's `acquire` event), before BEGIN is written.
 */

const skipReason = process.env.DATABASE_URL ? null : "DATABASE_URL is not set (PGlite has no pool of connections)";

describe.skipIf(skipReason !== null)(`the server's connection pool${skipReason ? ` — skipped: ${skipReason}` : ""}`, () => {
  let handle: DatabaseHandle;
  let pool: pg.Pool;
  let ended = false;
  beforeAll(async () => {
    handle = await openDatabase({ url: process.env.DATABASE_URL });
    pool = handle.pool as unknown as pg.Pool;
  });
  afterAll(async () => {
    if (!ended) await handle?.close();
  });

  test("a transaction whose connection dies before BEGIN gives its client back: nothing stays checked out, the pool serves on and ends", async () => {
    const checkedOut = () => pool.totalCount - pool.idleCount;
    for (let round = 0; round < 3; round++) {
      pool.once("acquire", (client: pg.PoolClient) => (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy());
      const failed = await handle.db
        .transaction(async (tx) => tx.execute(sql`select 1`))
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(failed, "the transaction on a dead connection fails").toBeInstanceOf(Error);
      // …as the database being unreachable: a request meeting it answers 503 with Retry-After, never a 500.
      expect(isDatabaseUnavailable(failed), String(failed)).toBe(true);
      expect(checkedOut(), `round ${round}: clients still checked out`).toBe(0);
    }
    const answer = (await handle.db.transaction(async (tx) => tx.execute(sql`select 41 + 1 as n`))) as unknown as { rows: { n: number }[] };
    expect(answer.rows[0]?.n).toBe(42);
    expect(checkedOut()).toBe(0);
    ended = true;
    const end = await Promise.race([handle.close().then(() => "ended"), new Promise((resolve) => setTimeout(() => resolve("hung"), 5_000).unref())]);
    expect(end).toBe("ended");
  });
});
