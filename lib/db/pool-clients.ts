/*
 * drizzle's transaction (its node-postgres and Neon sessions alike, drizzle-orm 0.45) checks a client out
 * of the pool and sends BEGIN before entering its try/finally: when BEGIN fails (the connection died between
 * the checkout and BEGIN, as when the server restarts) the client is never given back. The pool counts it
 * as busy for good: one connection fewer each time, and `pool.end()` never resolves (a CI run hung on it
 * after `pg_ctl restart`). Here a client checked out by a caller (promise-style `connect`, what drizzle's
 * transaction uses) is released with the error when its BEGIN fails, so the pool discards it; its `release`
 * does nothing after that, so no caller can give it back twice. Callback-style checkouts (`pool.query`)
 * release their client themselves and are left as they are.
 */

type PoolClient = { query: (...args: unknown[]) => unknown; release: (error?: Error | boolean) => void };
type PoolConnect = { (): Promise<unknown>; (callback: (error: Error | undefined, client: unknown, done: () => void) => void): void };

const BEGIN = /^\s*begin\b/i;

function isBegin(query: unknown): boolean {
  const text = typeof query === "string" ? query : (query as { text?: unknown } | null)?.text;
  return typeof text === "string" && BEGIN.test(text);
}

/** Clients whose `query` already releases them on a failed BEGIN (the pool hands the same client out again). */
const guarded = new WeakSet<PoolClient>();

/** The checkout's `release` made idempotent, and a failed BEGIN releasing the client (see above). */
function guardCheckout(client: PoolClient): PoolClient {
  const release = client.release.bind(client);
  let released = false;
  client.release = (error?: Error | boolean) => {
    if (released) return;
    released = true;
    release(error);
  };
  if (!guarded.has(client)) {
    guarded.add(client);
    // Whatever `query` is now (the driver's, or a wrapper of whoever observes the pool), wrapped once.
    const query = client.query;
    client.query = (...args: unknown[]) => {
      const result = query.apply(client, args);
      if (!isBegin(args[0]) || !(result instanceof Promise)) return result;
      // `client.release` is the current checkout's (set above at each checkout).
      return result.catch((error: unknown) => {
        client.release(error instanceof Error ? error : new Error(String(error)));
        throw error;
      });
    };
  }
  return client;
}

/** The pool with every promise-style checkout guarded (see the top of this file). */
export function releasingFailedBegin<Pool extends { connect: PoolConnect }>(pool: Pool): Pool {
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  pool.connect = ((...args: unknown[]) => {
    if (typeof args[0] === "function") return connect(...args);
    return (connect() as Promise<PoolClient>).then(guardCheckout);
  }) as Pool["connect"];
  return pool;
}
