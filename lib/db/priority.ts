import { AsyncLocalStorage } from "node:async_hooks";

/*
 * Background database work (a send job's batches, reconciliation) gives way to the requests being served, on
 * the embedded database. PGlite is one connection that runs each statement synchronously on the main thread,
 * and it hands its lock from one waiter to the next inside the microtask queue: while three lanes of batches
 * have statements queued (a claim or a record of 500 rows takes 30–300 ms), the event loop does not turn and a
 * transactional send's dozen short queries each wait behind whatever was queued before them (measured with
 * bench:scale: event-loop stalls of 1–3 s, transactional p99 4–14× idle). Through this gate:
 *   - a foreground statement (anything not marked background) goes before every waiting background one;
 *   - before each background statement or transaction the gate yields to the event loop (`setImmediate`), so
 *     timers, sockets and newly arrived requests run, and the queries they issue meanwhile go first;
 *   - background work is never starved: after BACKGROUND_MAX_WAIT_MS of waiting, or FOREGROUND_RUN foreground
 *     grants in a row, the next grant is background.
 * The database sees the same statements in the same transactions; only the order of waiting callers changes.
 * A server's pool (pg, Neon) has connections of its own per caller and needs none of this.
 */

const background = new AsyncLocalStorage<true>();

/** Runs `work` with its database calls marked as background (see above); elsewhere than PGlite this changes nothing. */
export function asBackgroundWork<T>(work: () => Promise<T>): Promise<T> {
  return background.run(true, work);
}

const BACKGROUND_MAX_WAIT_MS = 250;
const FOREGROUND_RUN = 16;

type Waiter = { grant: () => void; since: number };

/** One caller at a time, foreground first (see the top of this file). */
class PriorityGate {
  #busy = false;
  #yielding = false;
  #foreground: Waiter[] = [];
  #background: Waiter[] = [];
  /** Foreground grants since the last background one, counted while background work waits. */
  #foregroundRun = 0;

  /** Runs `work` when its turn comes; as background when called inside `asBackgroundWork`. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await new Promise<void>((grant) => {
      (background.getStore() === true ? this.#background : this.#foreground).push({ grant, since: performance.now() });
      this.#next();
    });
    try {
      return await work();
    } finally {
      this.#busy = false;
      this.#next();
    }
  }

  #backgroundOverdue(): boolean {
    const [oldest] = this.#background;
    return oldest !== undefined && (this.#foregroundRun >= FOREGROUND_RUN || performance.now() - oldest.since >= BACKGROUND_MAX_WAIT_MS);
  }

  #next(): void {
    if (this.#busy) return;
    const foreground = this.#backgroundOverdue() ? undefined : this.#foreground.shift();
    if (foreground) {
      this.#busy = true;
      if (this.#background.length > 0) this.#foregroundRun += 1;
      foreground.grant();
      return;
    }
    if (this.#background.length === 0 || this.#yielding) return;
    // The event loop turns first: what it runs may queue foreground work, which then goes first.
    this.#yielding = true;
    setImmediate(() => {
      this.#yielding = false;
      // Taken meanwhile by foreground work: its release calls `#next` again.
      if (this.#busy) return;
      if (this.#foreground.length > 0 && !this.#backgroundOverdue()) return this.#next();
      const waiter = this.#background.shift();
      if (!waiter) return this.#next();
      this.#busy = true;
      this.#foregroundRun = 0;
      waiter.grant();
    });
  }
}

type Pglite = import("@electric-sql/pglite").PGlite;

/** The PGlite client with its three entry points (what drizzle calls) behind one `PriorityGate`. */
export function prioritised(client: Pglite): Pglite {
  const gate = new PriorityGate();
  const { query, exec, transaction } = client;
  Object.assign(client, {
    query: (...args: Parameters<Pglite["query"]>) => gate.run(() => query.apply(client, args)),
    exec: (...args: Parameters<Pglite["exec"]>) => gate.run(() => exec.apply(client, args)),
    transaction: (...args: Parameters<Pglite["transaction"]>) => gate.run(() => transaction.apply(client, args)),
  });
  return client;
}
