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
 *
 * Priority requests (a transactional send: `asPriorityRequest`) go further, on every driver. A server's pool
 * gives each caller a connection of its own, but the server's CPU is shared: with three jobs' batches in
 * flight a one-row query took 26 ms at p99 instead of 2 (bench:scale, PostgreSQL on the same 2 cores), and a
 * transactional send's dozen queries 60 ms. So while a priority request runs, background work starts no new
 * statement or transaction (what is under way finishes): it waits until no priority request runs, or
 * PRIORITY_PAUSE_MAX_MS at most, then goes on; a batch also waits so before its provider call (the
 * assembly's CPU, the upload). A steady 20 transactional sends a second pause the batches ~15 ms each.
 * In production the batches run in the queue function's instances, whose pools see no priority request,
 * so nothing changes there.
 */

const background = new AsyncLocalStorage<true>();

/** Runs `work` with its database calls marked as background (see above); elsewhere than PGlite this changes nothing. */
export function asBackgroundWork<T>(work: () => Promise<T>): Promise<T> {
  return background.run(true, work);
}

/** Priority requests running in this process (see the top of this file). */
let priorityRequests = 0;
const pausedBackground = new Set<() => void>();
const PRIORITY_PAUSE_MAX_MS = 250;

/** When the last priority request of this process ended (`performance.now()`). */
let lastPriorityEnded = Number.NEGATIVE_INFINITY;
/** Priority traffic "flows" while a priority request runs and for this long after one ended. */
const PRIORITY_TRAFFIC_WINDOW_MS = 1_000;

/** Runs `work` (a request's whole handling) as a priority request: background database work pauses meanwhile. */
export async function asPriorityRequest<T>(work: () => Promise<T>): Promise<T> {
  priorityRequests += 1;
  try {
    return await work();
  } finally {
    lastPriorityEnded = performance.now();
    priorityRequests -= 1;
    if (priorityRequests === 0) for (const resume of [...pausedBackground]) resume();
  }
}

/**
 * Whether priority requests are being served by this process (one runs, or one ended less than a second
 * ago): background work then goes in smaller steps (a send job's batch, ../mail/send-jobs/batch.ts).
 */
export function priorityTrafficFlows(): boolean {
  return priorityRequests > 0 || performance.now() - lastPriorityEnded < PRIORITY_TRAFFIC_WINDOW_MS;
}

let stepsRunning = 0;
const stepsWaiting: (() => void)[] = [];

/**
 * Runs `work`, a step of background work (a send job's batch): one at a time while priority traffic flows
 * (`priorityTrafficFlows`), as many at once as the callers start otherwise (the queue bounds them). Waiting
 * steps go in the order they came.
 */
export async function asBackgroundStep<T>(work: () => Promise<T>): Promise<T> {
  while (stepsRunning > 0 && priorityTrafficFlows()) await new Promise<void>((go) => stepsWaiting.push(go));
  stepsRunning += 1;
  try {
    return await work();
  } finally {
    stepsRunning -= 1;
    // The next in line; all of them once priority traffic has stopped.
    if (priorityTrafficFlows()) stepsWaiting.shift()?.();
    else for (const go of stepsWaiting.splice(0)) go();
  }
}

/** Null when the caller may go on at once; else the pause of background work behind priority requests. */
function priorityPause(): Promise<void> | null {
  if (priorityRequests === 0 || background.getStore() !== true) return null;
  return new Promise<void>((resolve) => {
    const resume = () => {
      clearTimeout(timer);
      pausedBackground.delete(resume);
      resolve();
    };
    const timer = setTimeout(resume, PRIORITY_PAUSE_MAX_MS);
    pausedBackground.add(resume);
  });
}

/** A step boundary of background work (a batch's provider call): goes on once no priority request runs, or after a pause. */
export async function yieldToPriorityRequests(): Promise<void> {
  await priorityPause();
}

/** `work` once background work may start a statement (at once for anything else). */
function afterPriority<T>(work: () => Promise<T>): Promise<T> {
  const pause = priorityPause();
  return pause ? pause.then(work) : work();
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
    query: (...args: Parameters<Pglite["query"]>) => afterPriority(() => gate.run(() => query.apply(client, args))),
    exec: (...args: Parameters<Pglite["exec"]>) => afterPriority(() => gate.run(() => exec.apply(client, args))),
    transaction: (...args: Parameters<Pglite["transaction"]>) => afterPriority(() => gate.run(() => transaction.apply(client, args))),
  });
  return client;
}

type PoolConnect<Client> = { (): Promise<Client>; (callback: (error: Error | undefined, client: Client | undefined, done: () => void) => void): void };

/**
 * A server's pool (`pg`, Neon) with its checkout behind the priority pause: `pool.query` checks a client
 * out through `connect` too, so a background statement or transaction waits there while priority requests run.
 */
export function prioritisedPool<Pool extends { connect: PoolConnect<unknown> }>(pool: Pool): Pool {
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  pool.connect = ((...args: unknown[]) => {
    const pause = priorityPause();
    if (!pause) return connect(...args);
    const next = pause.then(() => connect(...args));
    return typeof args[0] === "function" ? undefined : next;
  }) as Pool["connect"];
  return pool;
}
