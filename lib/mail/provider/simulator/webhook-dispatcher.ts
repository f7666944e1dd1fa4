import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { WebhookPayload } from "./postmark-shapes";

/**
 * Where provider events go. Postmark does not sign webhooks (PROVIDER-FACTS P1); it authenticates with
 * HTTP Basic credentials written into the webhook URL. `fetch` refuses URLs with credentials, so they are
 * taken out of the URL and sent as an `Authorization: Basic` header, which is what a receiver sees from
 * Postmark.
 */
export type WebhookTarget = { url: string; username?: string; password?: string };

type WebhookDeliveryStatus = "pending" | "delivered" | "failed" | "skipped" | "cancelled";

/** One posted (or skipped) event, kept in a bounded log for `GET /__sim/webhooks`. */
export type WebhookDelivery = {
  RecordType: WebhookPayload["RecordType"];
  MessageID: string | null;
  Recipient: string;
  Status: WebhookDeliveryStatus;
  Attempts: number;
  LastStatusCode: number | null;
  Payload: WebhookPayload;
};

export type WebhookDispatcherOptions = {
  /** Simultaneous POSTs; bounds the load 100,000 Delivery events put on a receiver. */
  concurrency: number;
  /**
   * Waits before each retry. Postmark retries 10 times over ~10.5 h (P2); the simulator keeps the rule
   * (non-2xx or network error -> retry, 403 -> stop at once) on a short schedule so tests see it.
   */
  retryDelaysMs: readonly number[];
  timeoutMs: number;
  logSize: number;
};

type Prepared = { url: URL; authorization: string | null };

function prepare(target: WebhookTarget): Prepared {
  const url = new URL(target.url);
  const username = target.username ?? decodeURIComponent(url.username);
  const password = target.password ?? decodeURIComponent(url.password);
  url.username = "";
  url.password = "";
  const authorization = username || password ? `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}` : null;
  return { url, authorization };
}

/** A FIFO that does not shift arrays: 100,000 waiters would make `Array#shift` quadratic. */
class Fifo<T> {
  #items: T[] = [];
  #head = 0;
  get size(): number {
    return this.#items.length - this.#head;
  }
  push(item: T): void {
    this.#items.push(item);
  }
  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head];
    this.#head += 1;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }
  drain(): T[] {
    const rest = this.#items.slice(this.#head);
    this.#items = [];
    this.#head = 0;
    return rest;
  }
}

/**
 * Posts events one per request, as Postmark does (P3). Invariants:
 * - `enqueue` never waits: the send path only hands events over;
 * - events with the same key (a MessageID) are posted in order, one after the other, retries included;
 *   different keys run concurrently up to `concurrency`;
 * - `cancel` (reset/close) drops everything queued or waiting to retry, so a test never sees events
 *   from an earlier test.
 */
export class WebhookDispatcher {
  #options: WebhookDispatcherOptions;
  #target: Prepared | null = null;
  #prepared = new WeakMap<WebhookTarget, Prepared>();
  #chains = new Map<string, Promise<void>>();
  #active = 0;
  #waiters = new Fifo<(granted: boolean) => void>();
  #sleepers = new Set<{ timer: NodeJS.Timeout; wake: () => void }>();
  #generation = 0;
  #pending = 0;
  #idleWaiters: (() => void)[] = [];
  #log: WebhookDelivery[] = [];
  #httpAgent: HttpAgent;
  #httpsAgent: HttpsAgent;
  readonly counts = { delivered: 0, failed: 0, skipped: 0 };

  constructor(options: WebhookDispatcherOptions, target: WebhookTarget | null) {
    this.#options = options;
    this.#httpAgent = new HttpAgent({ keepAlive: true, maxSockets: options.concurrency });
    this.#httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: options.concurrency });
    this.setTarget(target);
  }

  setTarget(target: WebhookTarget | null): void {
    this.#target = target ? prepare(target) : null;
  }

  get pending(): number {
    return this.#pending;
  }

  /** `target`: where this event goes (a server's own webhook, as Postmark configures them per server); else the default. */
  enqueue(key: string, payload: WebhookPayload, target?: WebhookTarget | null): void {
    const delivery = this.#remember(payload);
    const prepared = target ? this.#prepare(target) : this.#target;
    if (!prepared) {
      delivery.Status = "skipped";
      this.counts.skipped += 1;
      return;
    }
    const generation = this.#generation;
    this.#pending += 1;
    const previous = this.#chains.get(key);
    const run = (): Promise<void> => this.#deliver(delivery, prepared, generation);
    const chain = (previous ? previous.then(run) : run()).finally(() => {
      if (this.#chains.get(key) === chain) this.#chains.delete(key);
      this.#pending -= 1;
      if (this.#pending === 0) for (const resolve of this.#idleWaiters.splice(0)) resolve();
    });
    this.#chains.set(key, chain);
  }

  /** Resolves once nothing is queued, in flight or waiting to retry. */
  whenIdle(): Promise<void> {
    if (this.#pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Cancels everything and closes idle keep-alive sockets. */
  close(): void {
    this.cancel();
    this.#httpAgent.destroy();
    this.#httpsAgent.destroy();
  }

  cancel(): void {
    this.#generation += 1;
    for (const grant of this.#waiters.drain()) grant(false);
    for (const sleeper of this.#sleepers) {
      clearTimeout(sleeper.timer);
      sleeper.wake();
    }
    this.#sleepers.clear();
  }

  log(limit: number): WebhookDelivery[] {
    return this.#log.slice(-limit).reverse();
  }

  clearLog(): void {
    this.#log = [];
    this.counts.delivered = 0;
    this.counts.failed = 0;
    this.counts.skipped = 0;
  }

  #remember(payload: WebhookPayload): WebhookDelivery {
    const delivery: WebhookDelivery = {
      RecordType: payload.RecordType,
      MessageID: payload.MessageID,
      Recipient: "Email" in payload ? payload.Email : payload.Recipient,
      Status: "pending",
      Attempts: 0,
      LastStatusCode: null,
      Payload: payload,
    };
    this.#log.push(delivery);
    if (this.#log.length > this.#options.logSize * 2) this.#log = this.#log.slice(-this.#options.logSize);
    return delivery;
  }

  #prepare(target: WebhookTarget): Prepared {
    let prepared = this.#prepared.get(target);
    if (!prepared) {
      prepared = prepare(target);
      this.#prepared.set(target, prepared);
    }
    return prepared;
  }

  async #deliver(delivery: WebhookDelivery, target: Prepared, generation: number): Promise<void> {
    const body = JSON.stringify(delivery.Payload);
    for (let attempt = 0; ; attempt += 1) {
      if (generation !== this.#generation || !(await this.#acquire())) {
        delivery.Status = "cancelled";
        return;
      }
      let status: number;
      try {
        status = await this.#post(target, body);
      } finally {
        this.#release();
      }
      delivery.Attempts += 1;
      delivery.LastStatusCode = status;
      if (status >= 200 && status < 300) {
        delivery.Status = "delivered";
        this.counts.delivered += 1;
        return;
      }
      // 403 tells Postmark to stop retrying at once (P2).
      if (status === 403 || attempt >= this.#options.retryDelaysMs.length) {
        delivery.Status = "failed";
        this.counts.failed += 1;
        return;
      }
      await this.#sleep(this.#options.retryDelaysMs[attempt]);
    }
  }

  /**
   * The HTTP status, or 0 when the receiver could not be reached or timed out. `node:http` with keep-alive
   * rather than `fetch`: ~100 µs instead of ~550 µs per POST, which decides whether 100,000 Delivery events
   * drain in seconds or in a minute.
   */
  #post(target: Prepared, body: string): Promise<number> {
    const headers: Record<string, string | number> = {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
      "user-agent": "Postmark (simulator)",
    };
    if (target.authorization) headers.authorization = target.authorization;
    const https = target.url.protocol === "https:";
    const send = https ? httpsRequest : httpRequest;
    return new Promise((resolve) => {
      const request = send(
        target.url,
        { method: "POST", headers, agent: https ? this.#httpsAgent : this.#httpAgent, timeout: this.#options.timeoutMs },
        (response) => {
          response.resume();
          response.on("end", () => resolve(response.statusCode ?? 0));
          response.on("error", () => resolve(0));
        },
      );
      request.on("timeout", () => request.destroy());
      request.on("error", () => resolve(0));
      request.end(body);
    });
  }

  #acquire(): Promise<boolean> {
    if (this.#active < this.#options.concurrency) {
      this.#active += 1;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  #release(): void {
    const next = this.#waiters.shift();
    // The slot passes straight to the next waiter, so `#active` stays the same.
    if (next) next(true);
    else this.#active -= 1;
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const sleeper = {
        timer: setTimeout(() => {
          this.#sleepers.delete(sleeper);
          resolve();
        }, ms),
        wake: resolve,
      };
      this.#sleepers.add(sleeper);
    });
  }
}
