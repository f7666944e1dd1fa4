import { randomUUID } from "node:crypto";
import { eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { WebSocket } from "ws";
import { openDatabase, type DatabaseHandle } from "../../lib/db/client";
import { loopbackTarget, startNeonLocalProxy, type NeonLocalProxy } from "../../lib/db/neon-local-proxy";
import { customers } from "../../lib/db/schema";
import { queryRows } from "../../lib/db/sql";

/** What the proxy answers to a WebSocket upgrade: 101 when it connects, else the refusal's status. */
async function upgradeStatus(proxy: NeonLocalProxy, address: string): Promise<number> {
  const ws = new WebSocket(`ws://${proxy.address}/v2?address=${address}`);
  return new Promise((resolve, reject) => {
    ws.once("open", () => {
      ws.terminate();
      resolve(101);
    });
    ws.once("unexpected-response", (_request, response) => {
      ws.terminate();
      resolve(response.statusCode ?? 0);
    });
    ws.once("error", (error) => reject(error));
  });
}

describe("the local Neon proxy relays to loopback only", () => {
  test.each([
    ["/v2?address=127.0.0.1:5432", { host: "127.0.0.1", port: 5432 }],
    ["/v2?address=127.8.9.10:5432", { host: "127.8.9.10", port: 5432 }],
    ["/v2?address=localhost:5432", { host: "127.0.0.1", port: 5432 }],
    ["/v2?address=[::1]:5432", { host: "::1", port: 5432 }],
    ["/v2?address=::1:5432", { host: "::1", port: 5432 }],
    ["/v2?address=10.0.0.1:5432", null],
    ["/v2?address=169.254.169.254:80", null],
    ["/v2?address=ep-cool-name.eu-central-1.aws.neon.tech:5432", null],
    ["/v2?address=localhost.example.com:5432", null],
    ["/v2?address=[::ffff:10.0.0.1]:5432", null],
    ["/v2?address=127.0.0.1:0", null],
    ["/v2?address=127.0.0.1:70000", null],
    ["/v2?address=127.0.0.1", null],
    ["/v1?address=127.0.0.1:5432", null],
    ["/v2", null],
  ])("%s → %j", (url, expected) => {
    expect(loopbackTarget(url)).toEqual(expected);
  });

  test("a non-loopback target is refused with 403 before the upgrade; a loopback one is relayed", async () => {
    const proxy = await startNeonLocalProxy();
    try {
      expect(await upgradeStatus(proxy, "10.0.0.1:5432")).toBe(403);
      expect(await upgradeStatus(proxy, "example.com:5432")).toBe(403);
      expect(await upgradeStatus(proxy, proxy.address)).toBe(101);
    } finally {
      await proxy.close();
    }
  });
});

// Needs a PostgreSQL server: `.ci/run` gives one in DATABASE_URL; `npm test` (embedded PGlite) has none,
// and PGlite speaks no wire protocol the proxy could relay.
describe.skipIf(!process.env.DATABASE_URL)(
  `the Neon driver through the local proxy against PostgreSQL${process.env.DATABASE_URL ? "" : " — skipped: DATABASE_URL is not set (PGlite has no wire protocol to relay)"}`,
  () => {
    let proxy: NeonLocalProxy;
    let handle: DatabaseHandle;

    beforeAll(async () => {
      proxy = await startNeonLocalProxy({ port: 0 });
      handle = await openDatabase({ url: process.env.DATABASE_URL, neonLocalProxy: proxy.address });
    }, 60_000);

    afterAll(async () => {
      await handle?.close();
      await proxy?.close();
    });

    test("the handle uses the Neon driver and the migrations are applied", async () => {
      expect(handle.driver).toBe("neon");
      const applied = await queryRows<{ count: number }>(handle.db, sql`SELECT count(*)::int AS count FROM drizzle.__drizzle_migrations`);
      expect(applied[0]?.count).toBeGreaterThan(0);
    });

    test("a transaction commits; one that throws rolls back and leaves no row", async () => {
      const committed = `committed ${randomUUID()}`;
      const rolledBack = `rolled back ${randomUUID()}`;
      await handle.db.transaction(async (tx) => {
        await tx.insert(customers).values({ name: committed });
      });
      await expect(
        handle.db.transaction(async (tx) => {
          await tx.insert(customers).values({ name: rolledBack });
          throw new Error("abort");
        }),
      ).rejects.toThrow("abort");
      const rows = await handle.db
        .select({ name: customers.name })
        .from(customers)
        .where(inArray(customers.name, [committed, rolledBack]));
      expect(rows).toEqual([{ name: committed }]);
    });

    test("concurrent transactions: SKIP LOCKED passes over the row another transaction holds", async () => {
      const inserted = await handle.db
        .insert(customers)
        .values([{ name: `locked ${randomUUID()}` }, { name: `free ${randomUUID()}` }])
        .returning({ id: customers.id });
      const [held, free] = inserted.map((row) => row.id);
      let signalLocked = () => {};
      let release = () => {};
      const locked = new Promise<void>((resolve) => (signalLocked = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      const holder = handle.db.transaction(async (tx) => {
        await tx.select({ id: customers.id }).from(customers).where(eq(customers.id, held)).for("update");
        signalLocked();
        await released;
      });
      await locked;
      const claimed = await handle.db.transaction((tx) =>
        tx
          .select({ id: customers.id })
          .from(customers)
          .where(inArray(customers.id, [held, free]))
          .for("update", { skipLocked: true }),
      );
      release();
      await holder;
      expect(claimed).toEqual([{ id: free }]);
      const afterRelease = await handle.db.transaction((tx) =>
        tx.select({ id: customers.id }).from(customers).where(eq(customers.id, held)).for("update", { skipLocked: true }),
      );
      expect(afterRelease).toEqual([{ id: held }]);
    });
  },
);
