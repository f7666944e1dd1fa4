import { AsyncLocalStorage } from "node:async_hooks";

/*
 * Background database work (a send job's batches, reconciliation) gives way to the requests being served.
 *
 * On the embedded database: PGlite is one connection that runs each statement synchronously on the main
 * thread and hands its lock from one waiter to the next inside the microtask queue. While background work
 * has statements queued (a claim or a record of a whole batch is one long statement), the event loop does
 * not turn, and every short query of a request waits behind whatever was queued before it. Through the gate:
 *   - a foreground statement (anything not marked background) goes before every waiting background one;
 *   - before each background statement or transaction the gate yields to the event loop (`setImmediate`), so
 *     timers, sockets and newly arrived requests run, and the queries they issue meanwhile go first;
 *   - background work is never starved: after BACKGROUND_MAX_WAIT_MS of waiting, or FOREGROUND_RUN foreground
 *     grants in a row, the next grant is background.
 * The database sees the same statements in the same transactions; only the order of waiting callers changes.
 *
 * Priority requests (a transactional send: `asPriorityRequest`) go further, on every driver. A server's pool
 * gives each caller a connection of its own, but the CPU is shared by the server, the service and whatever
 * else runs there, so background statements still lengthen a priority request's round trips. While a
 * priority request runs, background work starts no new statement or transaction (what is under way
 * finishes): it waits until no priority request runs, or PRIORITY_PAUSE_MAX_MS at most, then goes on; a
 * batch also waits so before its provider call (the assembly's CPU, the upload). The pause is bounded, so a
 * steady stream of priority requests slows background work down without stopping it. In production the
 * batches run in the queue function's instances, whose pools see no priority request, so nothing changes
 * there.
 *
 * The state (who waits, whether priority requests run) belongs to one gate, created once per process with
 * the core deps (`createPriorityGate`) and handed to the database it guards and to the code that marks work;
 * two deployments in one process (test files sharing a worker) never see each other's traffic. Its windows
 * are read on a monotonic clock (`now`, milliseconds), not the business clock: they measure how long the
 * machine has been busy, which a test's clock standing still must not stretch (docs/adr/0105).
 */

type Pglite = import("@electric-sql/pglite").PGlite;
type PoolConnect<Client> = { (): Promise<Client>; (callback: (error: Error | undefined, client: Client | undefined, done: () => void) => void): void };

/** One process's priority gate: see the top of this file. */
export type PriorityGate = {
  /** Runs `work` with its database calls marked as background; elsewhere than PGlite this changes nothing but the pauses. */
  asBackgroundWork<T>(work: () => Promise<T>): Promise<T>;
  /** Runs `work` (a request's whole handling) as a priority request: background database work pauses meanwhile. */
  asPriorityRequest<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Whether priority requests are being served (one runs, or one ended less than PRIORITY_TRAFFIC_WINDOW_MS
   * ago): background work then goes in smaller steps (a send job's batch, ../mail/send-jobs/batch.ts).
   */
  trafficFlows(): boolean;
  /** Resolves once `trafficFlows()` is false (at once when it is). */
  trafficStopped(): Promise<void>;
  /**
   * Runs `work`, a step of background work (a send job's batch): one at a time while priority traffic flows,
   * as many at once as the callers start otherwise (the queue bounds them). Waiting steps go in the order
   * they came.
   */
  asBackgroundStep<T>(work: () => Promise<T>): Promise<T>;
  /** A step boundary of background work (a batch's provider call): goes on once no priority request runs, or after a pause. */
  yieldToPriorityRequests(): Promise<void>;
  /** The PGlite client with its three entry points (what drizzle calls) behind this gate. */
  prioritised(client: Pglite): Pglite;
  /**
   * A server's pool (`pg`, Neon) with its checkout behind the priority pause: `pool.query` checks a client
   * out through `connect` too, so a background statement or transaction waits there while priority requests run.
   */
  prioritisedPool<Pool extends { connect: PoolConnect<unknown> }>(pool: Pool): Pool;
};

/** Longest pause of background work behind priority requests. */
const PRIORITY_PAUSE_MAX_MS = 250;
/** Priority traffic "flows" while a priority request runs and for this long after one ended. */
const PRIORITY_TRAFFIC_WINDOW_MS = 1_000;
const BACKGROUND_MAX_WAIT_MS = 250;
const FOREGROUND_RUN = 16;

type Waiter = { grant: () => void; since: number };

/** One caller at a time, foreground first (see the top of this file). */
class StatementQueue {
  #busy = false;
  #yielding = false;
  #foreground: Waiter[] = [];
  #background: Waiter[] = [];
  /** Foreground grants since the last background one, counted while background work waits. */
  #foregroundRun = 0;

  readonly isBackground: () => boolean;
  readonly now: () => number;

  constructor(isBackground: () => boolean, now: () => number) {
    this.isBackground = isBackground;
    this.now = now;
  }

  /** Runs `work` when its turn comes; as background when called inside `asBackgroundWork`. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await new Promise<void>((grant) => {
      (this.isBackground() ? this.#background : this.#foreground).push({ grant, since: this.now() });
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
    return oldest !== undefined && (this.#foregroundRun >= FOREGROUND_RUN || this.now() - oldest.since >= BACKGROUND_MAX_WAIT_MS);
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

/**
 * A new gate. `now`: a monotonic reading in milliseconds (`performance.now` unless a test gives its own).
 * Created once per process by the runtime (lib/bootstrap.ts) before it opens the database.
 */
export function createPriorityGate(options: { now?: () => number } = {}): PriorityGate {
  const now = options.now ?? (() => performance.now());
  const background = new AsyncLocalStorage<true>();
  const isBackground = () => background.getStore() === true;
  let priorityRequests = 0;
  const pausedBackground = new Set<() => void>();
  /** When the last priority request ended (`now`). */
  let lastPriorityEnded = Number.NEGATIVE_INFINITY;
  let stepsRunning = 0;
  const stepsWaiting: (() => void)[] = [];

  const trafficFlows = () => priorityRequests > 0 || now() - lastPriorityEnded < PRIORITY_TRAFFIC_WINDOW_MS;

  /** Null when the caller may go on at once; else the pause of background work behind priority requests. */
  function priorityPause(): Promise<void> | null {
    if (priorityRequests === 0 || !isBackground()) return null;
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

  /** `work` once background work may start a statement (at once for anything else). */
  function afterPriority<T>(work: () => Promise<T>): Promise<T> {
    const pause = priorityPause();
    return pause ? pause.then(work) : work();
  }

  return {
    asBackgroundWork: (work) => background.run(true, work),
    async asPriorityRequest(work) {
      priorityRequests += 1;
      try {
        return await work();
      } finally {
        lastPriorityEnded = now();
        priorityRequests -= 1;
        if (priorityRequests === 0) for (const resume of [...pausedBackground]) resume();
      }
    },
    trafficFlows,
    async trafficStopped() {
      // A timer per remaining window: a priority request started meanwhile extends it.
      while (trafficFlows()) {
        const left = priorityRequests > 0 ? PRIORITY_PAUSE_MAX_MS : PRIORITY_TRAFFIC_WINDOW_MS - (now() - lastPriorityEnded);
        await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.ceil(left))));
      }
    },
    async asBackgroundStep(work) {
      while (stepsRunning > 0 && trafficFlows()) await new Promise<void>((go) => stepsWaiting.push(go));
      stepsRunning += 1;
      try {
        return await work();
      } finally {
        stepsRunning -= 1;
        // The next in line; all of them once priority traffic has stopped.
        if (trafficFlows()) stepsWaiting.shift()?.();
        else for (const go of stepsWaiting.splice(0)) go();
      }
    },
    async yieldToPriorityRequests() {
      await priorityPause();
    },
    prioritised(client) {
      const queue = new StatementQueue(isBackground, now);
      const { query, exec, transaction } = client;
      Object.assign(client, {
        query: (...args: Parameters<Pglite["query"]>) => afterPriority(() => queue.run(() => query.apply(client, args))),
        exec: (...args: Parameters<Pglite["exec"]>) => afterPriority(() => queue.run(() => exec.apply(client, args))),
        transaction: (...args: Parameters<Pglite["transaction"]>) => afterPriority(() => queue.run(() => transaction.apply(client, args))),
      });
      return client;
    },
    prioritisedPool(pool) {
      const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
      pool.connect = ((...args: unknown[]) => {
        const pause = priorityPause();
        if (!pause) return connect(...args);
        const next = pause.then(() => connect(...args));
        return typeof args[0] === "function" ? undefined : next;
      }) as typeof pool.connect;
      return pool;
    },
  };
}
