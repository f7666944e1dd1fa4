import type { Hono } from "hono";
import { systemClock, type Clock } from "../../../base/clock";
import { SimulatorAccount } from "./account";
import { parseAddressList } from "./addresses";
import { droppedResponses, type SimulatorEnv } from "./env";
import {
  INVALID_SUPPRESSION_ADDRESS,
  POSTMARK_ERRORS,
  SPAM_COMPLAINT_DELETE_REFUSED,
  SimulatorControlError,
  allRecipientsInactive,
  someRecipientsInactive,
} from "./errors";
import { planBulk, type BulkSendingResponse, type BulkStatusResponse } from "./bulk";
import { isPostmarkError, validateOutbound, type ValidatedMessage } from "./outbound";
import type {
  DeliveryType,
  PostmarkError,
  SendResponse,
  StreamType,
  Suppression,
  SuppressionStatus,
  SuppressionOrigin,
  SuppressionReason,
  WebhookPayload,
} from "./postmark-shapes";
import {
  SimulatorStore,
  type MessageFilter,
  type OutboundMessageView,
  type SimulatedMessage,
  type SimulatedMessageDetail,
  type SimulatorServer,
  type SimulatorStream,
  type StoredMessage,
} from "./store";
import { journalMessage, SimulatorJournal, type JournalEntry, type JournalServer } from "./journal";
import { classifyTestAddress, type BounceType, type TestOutcome } from "./test-addresses";
import { WebhookDispatcher, type WebhookDelivery, type WebhookTarget } from "./webhook-dispatcher";
import {
  bouncePayload,
  clickPayload,
  deliveryPayload,
  openPayload,
  spamComplaintPayload,
  subscriptionChangePayload,
  suppressedByMessagePayload,
} from "./webhook-payloads";

/** Postmark's documented test token: the request is validated and answered, nothing is sent (API overview). */
export const POSTMARK_API_TEST_TOKEN = "POSTMARK_API_TEST";
/** Token of the server a simulator gets when no `servers` are configured. */
const SIMULATOR_SERVER_TOKEN = "simulator-server-token";
const MAX_BATCH_MESSAGES = 500;
/** Bulk requests whose status stays answerable (the latest this many). */
const MAX_BULK_REQUESTS = 1000;

const BULK_API_NOT_ENABLED: PostmarkError = { ErrorCode: 300, Message: "The Bulk API is not enabled for this account. Contact support to enable it." };
type BulkRequestRecord = { id: string; server: SimulatorServer; submittedAt: string; subject: string; total: number; messages: StoredMessage[] };

export type SimulatorServerConfig = {
  token: string;
  /** `ServerID` in webhooks; defaults to one more than the highest so far (1 for the first). */
  id?: number;
  name?: string;
  /** Sandbox servers accept and record mail but deliver nothing (no Delivery webhooks). */
  deliveryType?: DeliveryType;
  streams: { id: string; type: StreamType }[];
  /** This server's webhook (URL and HTTP Basic credentials); unset = the simulator's default target. */
  webhook?: WebhookTarget | null;
};

export type PostmarkSimulatorOptions = {
  servers?: SimulatorServerConfig[];
  /** Where provider events are POSTed; null keeps them in the log only (`GET /__sim/webhooks`). */
  webhook?: WebhookTarget | null;
  /** False turns webhook posting off entirely (state changes still happen), e.g. for benchmarks. */
  webhooks?: boolean;
  /** Time between accepting a request and its Delivery/Bounce events. */
  deliveryDelayMs?: number;
  /** Bodies (HtmlBody/TextBody) are kept only for this many latest messages. */
  maxStoredMessages?: number;
  /**
   * Messages (everything but the bodies) kept for the control API, reader actions (open, click, bounce …)
   * and `message(id)`: the latest this many, 10,000 by default; an older id answers 404. `stats()` and the
   * per-`Metadata.message_id` counts cover every message ever accepted. A bound keeps a long-running
   * simulator's memory flat, and its garbage collector fast: 100,000 kept messages made a quarter of the
   * simulator's CPU time on the send-job bench.
   */
  maxTrackedMessages?: number;
  clock?: Clock;
  webhookConcurrency?: number;
  webhookRetryDelaysMs?: readonly number[];
  webhookTimeoutMs?: number;
  /**
   * Where the state is kept across restarts (`npm start` passes `<DATA_DIR>/postmark-simulator.jsonl`):
   * servers, accepted messages (without bodies) and suppressions. Unset: memory only (tests, `npm run simulators`).
   */
  stateFile?: string;
};

const DEFAULT_SIMULATOR_SERVERS: SimulatorServerConfig[] = [
  {
    token: SIMULATOR_SERVER_TOKEN,
    name: "Simulator",
    deliveryType: "Live",
    // Postmark's default stream ids for a new server's transactional and broadcast streams.
    streams: [
      { id: "outbound", type: "Transactional" },
      { id: "broadcast", type: "Broadcasts" },
    ],
  },
];

/**
 * Faults of the send endpoints, for crash and time-out tests:
 * - `slow`: wait `delayMs`, then handle the request (also when the caller has gone meanwhile: the body
 *   arrived, so Postmark has the mail); with `afterAccept`, handle it first and delay only the answer.
 * - `stall`: wait `delayMs`, then handle the request only if the caller is still connected: a caller that
 *   died meanwhile never reached the provider.
 * - `error500`: answer 500 without handling. `drop`: drop the connection (with `afterAccept`, after
 *   handling: the provider sent, the caller cannot know).
 * - `late`: drop the connection once the body arrived and keep the call: it is handled only when
 *   `takeInLateCalls()` is called, as a stalled Postmark takes in a call whose connection closed long ago.
 */
type FaultMode = "slow" | "stall" | "error500" | "drop" | "late" | "none";
export type FaultSettings = {
  mode: FaultMode;
  /** How many of the next send requests (`/email`, `/email/batch`) the fault applies to; default 1. */
  count?: number;
  /** For `slow` and `stall`: how long to wait. Default 2000. */
  delayMs?: number;
  /** For `drop` and `slow`: handle (accept) the request first, then drop the connection or delay the answer. */
  afterAccept?: boolean;
  /** Only requests to this endpoint take the fault (default: both send endpoints). */
  path?: "/email" | "/email/batch" | "/email/bulk";
};
export type ActiveFault = { mode: Exclude<FaultMode, "none">; delayMs: number; afterAccept: boolean };

export type SimulatorStats = {
  received: number;
  rejected: number;
  api_test: number;
  duplicates_by_metadata_message_id: Record<string, number>;
  webhooks: { pending: number; delivered: number; failed: number; skipped: number };
  /** Send requests a slow or stalling fault holds right now, their bodies received. */
  faults_held: number;
  /** Send requests held so far (never decreases): tests wait for it to grow before they kill a caller. */
  faults_held_total: number;
  /** Send requests a freeze holds right now (`setFreeze`), and how many it has held so far. */
  frozen_held: number;
  frozen_held_total: number;
  /** Of `frozen_held_total`, how many per endpoint (`/email`, `/email/batch`, `/email/bulk`). */
  frozen_held_by_path: Record<string, number>;
  /** When the current freeze ends (epoch ms; null: not frozen), so a test can time from it. */
  frozen_until_ms: number | null;
  /** Send requests a `late` fault keeps, not yet taken in (`takeInLateCalls`). */
  late_held: number;
  /** Send requests turned away with 429 by `setThrottle` so far. */
  throttled: number;
  /** Of `received`, the messages that came through `POST /email/bulk` (the Bulk API path). */
  received_via_bulk: number;
  /** Bytes of send request bodies (`/email`, `/email/batch`, `/email/bulk`) received so far: what went on the wire. */
  request_bytes: number;
};

export type ApiResult<T> = { status: 200 | 401 | 422; body: T | PostmarkError };
export type Authenticated = SimulatorServer | typeof POSTMARK_API_TEST_TOKEN;

export type RecipientOption = { recipient?: string };
export type EngagementOptions = RecipientOption & { platform?: string };
export type ClickOptions = EngagementOptions & { url: string; location?: "HTML" | "Text" };
export type BounceOptions = RecipientOption & { type?: BounceType };
/** What a control action caused: the webhook bodies it emitted, in order (empty when nothing changed). */
export type ControlResult = { webhooks: WebhookPayload[] };

const DEFAULT_FAULT_DELAY_MS = 2000;

/**
 * An in-memory Postmark: the send and suppression endpoints the `postmark` client calls, Postmark's error
 * codes, per-stream suppressions, and webhooks for delivery, bounces, complaints, opens, clicks and
 * subscription changes. Portal developers run it offline; our tests use it as the provider.
 */
export class PostmarkSimulator {
  readonly app: Hono<SimulatorEnv>;
  /** The Hono app's fetch, wrapped so that a dropped connection rejects like a network error. */
  readonly fetch: (request: Request, env?: SimulatorEnv["Bindings"]) => Promise<Response>;
  #servers = new Map<string, SimulatorServer>();
  readonly store: SimulatorStore;
  /** The Account API's domains, sender signatures and account tokens (./account.ts); memory only. */
  readonly account = new SimulatorAccount();
  #clock: Clock;
  #dispatcher: WebhookDispatcher;
  #webhooksEnabled: boolean;
  #deliveryDelayMs: number;
  #timers = new Set<NodeJS.Timeout>();
  #timerWaiters: (() => void)[] = [];
  #generation = 0;
  #bounceId = 0;
  /** Armed faults, at most one per endpoint (`path` null: any send endpoint), the first match taken. */
  #faults: (ActiveFault & { remaining: number; path: string | null })[] = [];
  #searchDelayMs = 0;
  #journal: SimulatorJournal | null = null;
  #latencyMs = 0;
  #bulk = new Map<string, BulkRequestRecord>();
  #bulkApiEnabled = true;
  #receivedViaBulk = 0;
  #requestBytes = 0;
  #throttle: { rate: number; untilMs: number; retryAfterSeconds: number | null; status: 429 | 503; cut: boolean; seen: number } | null = null;

  /** `createApp` is the simulator's HTTP surface (`./app.ts`), built on this instance. */
  constructor(options: PostmarkSimulatorOptions, createApp: (simulator: PostmarkSimulator) => Hono<SimulatorEnv>) {
    for (const server of options.servers ?? DEFAULT_SIMULATOR_SERVERS) this.addServer(server);
    this.store = new SimulatorStore(options.maxStoredMessages ?? 1000, options.maxTrackedMessages ?? 10_000);
    this.#clock = options.clock ?? systemClock;
    this.#webhooksEnabled = options.webhooks ?? true;
    this.#deliveryDelayMs = options.deliveryDelayMs ?? 50;
    this.#dispatcher = new WebhookDispatcher(
      {
        concurrency: options.webhookConcurrency ?? 8,
        retryDelaysMs: options.webhookRetryDelaysMs ?? [100, 500, 2000],
        timeoutMs: options.webhookTimeoutMs ?? 10_000,
        logSize: 1000,
      },
      options.webhook ?? null,
    );
    if (options.stateFile) this.#restore(new SimulatorJournal(options.stateFile));
    this.app = createApp(this);
    this.fetch = async (request, env) => {
      const response = await this.app.fetch(request, env);
      if (!env?.incoming && droppedResponses.has(response)) throw new TypeError("fetch failed: connection dropped by the Postmark simulator");
      return response;
    };
  }

  /** Replays the journal (nothing is journaled meanwhile), then journals every change from now on. */
  #restore(journal: SimulatorJournal): void {
    for (const entry of journal.read()) {
      if (entry.t === "reset") this.store.reset();
      else if (entry.t === "server") this.addServer({ ...entry.server });
      else if (entry.t === "messages") {
        for (const { token, streamId, ...message } of entry.messages) {
          const server = this.#servers.get(token);
          const stream = server?.streams.get(streamId);
          if (server && stream) this.store.record({ ...message, server, stream, settled: true }, { HtmlBody: null, TextBody: null });
        }
      } else {
        const server = this.#servers.get(entry.token);
        const stream = server?.streams.get(entry.streamId);
        if (!server || !stream) continue;
        if (entry.t === "suppress")
          this.store.suppress(server, stream, entry.entry.EmailAddress, entry.entry.SuppressionReason, entry.entry.Origin, new Date(entry.entry.CreatedAt));
        else this.store.unsuppress(server, stream, entry.address);
      }
    }
    this.#journal = journal;
    if (journal.lines > 2 * (this.store.kept().length + this.#servers.size) + 1000) journal.rewrite(this.#snapshot());
  }

  /** The state as journal entries: servers, their suppressions, the kept messages. */
  #snapshot(): JournalEntry[] {
    const entries: JournalEntry[] = [];
    for (const server of this.#servers.values()) {
      entries.push({ t: "server", server: journalServer(server) });
      for (const stream of server.streams.values()) {
        for (const entry of this.store.suppressions(server, stream)) entries.push({ t: "suppress", token: server.token, streamId: stream.id, entry });
      }
    }
    const messages = this.store.kept().map(journalMessage);
    for (let i = 0; i < messages.length; i += 500) entries.push({ t: "messages", messages: messages.slice(i, i + 500) });
    return entries;
  }

  #suppress(server: SimulatorServer, stream: SimulatorStream, address: string, reason: SuppressionReason, origin: SuppressionOrigin, at: Date) {
    const suppression = this.store.suppress(server, stream, address, reason, origin, at);
    if (suppression) this.#journal?.append({ t: "suppress", token: server.token, streamId: stream.id, entry: suppression });
    return suppression;
  }

  #unsuppress(server: SimulatorServer, stream: SimulatorStream, address: string) {
    const removed = this.store.unsuppress(server, stream, address);
    if (removed) this.#journal?.append({ t: "unsuppress", token: server.token, streamId: stream.id, address });
    return removed;
  }

  /** Accepted messages reach the journal before the request is answered. */
  #journalAccepted(accepted: StoredMessage[]): void {
    if (accepted.length > 0) this.#journal?.append({ t: "messages", messages: accepted.map(journalMessage) });
  }

  get servers(): ReadonlyMap<string, SimulatorServer> {
    return this.#servers;
  }

  /**
   * Registers a Postmark server (the embedded mode adds one per customer as accounts are configured).
   * Adding a known token again updates it in place, keeping its ServerID, messages and suppressions.
   */
  addServer(config: SimulatorServerConfig): SimulatorServer {
    const streams = new Map(config.streams.map((stream) => [stream.id, { id: stream.id, type: stream.type }]));
    const existing = this.#servers.get(config.token);
    if (existing) {
      Object.assign(existing, {
        name: config.name ?? existing.name,
        deliveryType: config.deliveryType ?? existing.deliveryType,
        streams,
        webhook: config.webhook === undefined ? existing.webhook : config.webhook,
      });
      this.#journal?.append({ t: "server", server: journalServer(existing) });
      return existing;
    }
    const id = config.id ?? Math.max(0, ...[...this.#servers.values()].map((server) => server.id)) + 1;
    const server: SimulatorServer = {
      id,
      token: config.token,
      name: config.name ?? `Server ${id}`,
      deliveryType: config.deliveryType ?? "Live",
      streams,
      webhook: config.webhook,
    };
    this.#servers.set(config.token, server);
    this.#journal?.append({ t: "server", server: journalServer(server) });
    return server;
  }

  /** For the send endpoints, where Postmark's test token is valid too. */
  authenticate(token: string | undefined): Authenticated | PostmarkError {
    if (token === POSTMARK_API_TEST_TOKEN) return POSTMARK_API_TEST_TOKEN;
    return this.authenticateServer(token);
  }

  /** For every other endpoint: only a real server token works. */
  authenticateServer(token: string | undefined): SimulatorServer | PostmarkError {
    if (!token) return POSTMARK_ERRORS.missingToken;
    return this.#servers.get(token) ?? POSTMARK_ERRORS.invalidToken;
  }

  // ---- sending -------------------------------------------------------------------------------

  sendEmail(auth: Authenticated, input: unknown): ApiResult<SendResponse> {
    const accepted: StoredMessage[] = [];
    const result = this.#submit(auth, input, accepted);
    this.#journalAccepted(accepted);
    this.#scheduleOutcomes(accepted);
    return { status: result.ErrorCode === 0 ? 200 : 422, body: result };
  }

  /** One result per message, in order; each carries its own ErrorCode and the HTTP status stays 200 (P12). */
  sendBatch(auth: Authenticated, input: unknown): ApiResult<(SendResponse | PostmarkError)[]> {
    if (!Array.isArray(input)) return { status: 422, body: POSTMARK_ERRORS.incompatibleJson };
    if (input.length > MAX_BATCH_MESSAGES) return { status: 422, body: POSTMARK_ERRORS.tooManyBatchMessages };
    const accepted: StoredMessage[] = [];
    const results = input.map((message: unknown) => this.#submit(auth, message, accepted));
    this.#journalAccepted(accepted);
    this.#scheduleOutcomes(accepted);
    return { status: 200, body: results };
  }

  /**
   * `POST /email/bulk`: each recipient's message compiled with Mustachio (see `bulk.ts`), then sent like an
   * `/email` message (suppressed or invalid recipients are dropped, as Postmark's asynchronous bulk send
   * cannot report them per message). Answers the request id and "Accepted".
   */
  sendBulk(auth: Authenticated, input: unknown): ApiResult<BulkSendingResponse> {
    if (!this.#bulkApiEnabled) return { status: 422, body: BULK_API_NOT_ENABLED };
    const plan = planBulk(input);
    if ("ErrorCode" in plan) {
      this.store.rejected += 1;
      return { status: 422, body: plan };
    }
    const submittedAt = this.#clock.now().toISOString();
    const id = crypto.randomUUID();
    if (auth === POSTMARK_API_TEST_TOKEN) {
      this.store.apiTest += plan.messages.length;
      return { status: 200, body: { Id: id, Status: "Accepted", SubmittedAt: submittedAt } };
    }
    const accepted: StoredMessage[] = [];
    for (const message of plan.messages) this.#submit(auth, message, accepted);
    this.#receivedViaBulk += accepted.length;
    this.#journalAccepted(accepted);
    this.#scheduleOutcomes(accepted);
    this.#bulk.set(id, { id, server: auth, submittedAt, subject: plan.subject, total: plan.messages.length, messages: accepted });
    if (this.#bulk.size > MAX_BULK_REQUESTS) this.#bulk.delete(this.#bulk.keys().next().value as string);
    return { status: 200, body: { Id: id, Status: "Accepted", SubmittedAt: submittedAt } };
  }

  /**
   * Whether the account has the Bulk API (Postmark support enables it per account). Off, `/email/bulk`
   * refuses every request as a whole; the wording is the simulator's, Postmark documents none.
   */
  setBulkApiEnabled(enabled: boolean): void {
    this.#bulkApiEnabled = enabled;
  }

  /** `GET /email/bulk/{id}`: "Accepted" until the first message settles, "Processing", then "Completed". */
  bulkStatus(server: SimulatorServer, id: string): { status: 200 | 404; body: BulkStatusResponse | PostmarkError } {
    const request = this.#bulk.get(id);
    if (!request || request.server !== server) return { status: 404, body: { ErrorCode: 404, Message: `Bulk request '${id}' was not found.` } };
    const settled = request.messages.filter((message) => message.settled).length + (request.total - request.messages.length);
    const percentage = request.total === 0 ? 100 : Math.floor((settled * 100) / request.total);
    const status = percentage >= 100 ? "Completed" : settled === request.total - request.messages.length ? "Accepted" : "Processing";
    return {
      status: 200,
      body: {
        Id: id,
        Status: status,
        SubmittedAt: request.submittedAt,
        TotalMessages: request.total,
        PercentageCompleted: percentage,
        Subject: request.subject,
      },
    };
  }

  #submit(auth: Authenticated, input: unknown, accepted: StoredMessage[]): SendResponse | PostmarkError {
    const validated = validateOutbound(input);
    if (isPostmarkError(validated)) {
      this.store.rejected += 1;
      return validated;
    }
    const now = this.#clock.now();
    const response = (messageId: string): SendResponse => ({
      To: validated.to,
      SubmittedAt: now.toISOString(),
      MessageID: messageId,
      ErrorCode: 0,
      Message: "OK",
    });
    if (auth === POSTMARK_API_TEST_TOKEN) {
      this.store.apiTest += 1;
      return response(crypto.randomUUID());
    }
    const stream = auth.streams.get(validated.streamId);
    if (!stream) {
      this.store.rejected += 1;
      return POSTMARK_ERRORS.unknownStream;
    }
    const inactive = validated.recipients.filter((recipient) => this.store.suppression(auth, stream, recipient));
    if (inactive.length === validated.recipients.length) {
      this.store.rejected += 1;
      return allRecipientsInactive(inactive);
    }
    const recipients = inactive.length === 0 ? validated.recipients : validated.recipients.filter((recipient) => !inactive.includes(recipient));
    const message = this.#record(auth, stream, validated, recipients, now);
    accepted.push(message);
    return inactive.length === 0 ? response(message.id) : { ...response(message.id), ...someRecipientsInactive(inactive) };
  }

  #record(server: SimulatorServer, stream: SimulatorStream, validated: ValidatedMessage, recipients: string[], now: Date): StoredMessage {
    const message: StoredMessage = {
      id: crypto.randomUUID(),
      server,
      stream,
      from: validated.from,
      to: validated.to,
      cc: validated.cc,
      bcc: validated.bcc,
      recipients,
      subject: validated.subject,
      tag: validated.tag,
      metadata: validated.metadata,
      trackOpens: validated.trackOpens,
      trackLinks: validated.trackLinks,
      receivedAtMs: now.getTime(),
      settled: false,
    };
    const outcomes = recipients.map((recipient) => classifyTestAddress(recipient, validated.bounceTypeHeader));
    if (outcomes.some((outcome) => outcome !== null)) message.testOutcomes = outcomes;
    this.store.record(message, {
      HtmlBody: validated.htmlBody,
      TextBody: validated.textBody,
      Headers: deliveredHeaders(stream, validated.headers, message.id),
    });
    return message;
  }

  /** One timer per request, not per message: a 500-message batch costs one setTimeout. */
  #scheduleOutcomes(messages: StoredMessage[]): void {
    if (messages.length === 0) return;
    const generation = this.#generation;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      if (generation === this.#generation) for (const message of messages) this.#deliver(message);
      if (this.#timers.size === 0) for (const resolve of this.#timerWaiters.splice(0)) resolve();
    }, this.#deliveryDelayMs);
    this.#timers.add(timer);
  }

  /**
   * What happens to each recipient after acceptance. Sandbox servers deliver nothing (no Delivery event),
   * but test addresses still bounce there, as Postmark's sandbox mode lets you test bounce handling.
   */
  #deliver(message: StoredMessage): void {
    if (message.settled) return;
    message.settled = true;
    const at = this.#clock.now();
    const live = message.server.deliveryType === "Live";
    message.recipients.forEach((recipient, index) => {
      const outcome = message.testOutcomes?.[index] ?? null;
      // A complaint comes from a reader, so the mail was delivered first.
      if (live && this.#webhooksEnabled && outcome?.kind !== "bounce") this.#emit(message.server, message.id, deliveryPayload(message, recipient, at));
      if (outcome) this.#applyOutcome(message, recipient, outcome, at);
    });
  }

  /**
   * P5: Bounce and SpamComplaint webhooks exist only on transactional streams; broadcast streams report
   * the resulting suppression through SubscriptionChange alone. Only hard bounces and complaints suppress.
   */
  #applyOutcome(message: StoredMessage, recipient: string, outcome: TestOutcome, at: Date): WebhookPayload[] {
    const emitted: WebhookPayload[] = [];
    const transactional = message.stream.type === "Transactional";
    this.#bounceId += 1;
    if (outcome.kind === "bounce") {
      if (transactional) emitted.push(bouncePayload(message, recipient, outcome.type, this.#bounceId, at));
      if (outcome.type === "HardBounce") emitted.push(...this.#suppressFromMessage(message, recipient, "HardBounce", "Recipient", at));
    } else {
      if (transactional) emitted.push(spamComplaintPayload(message, recipient, this.#bounceId, at));
      emitted.push(...this.#suppressFromMessage(message, recipient, "SpamComplaint", "Recipient", at));
    }
    for (const payload of emitted) this.#emit(message.server, message.id, payload);
    return emitted;
  }

  #suppressFromMessage(message: StoredMessage, recipient: string, reason: SuppressionReason, origin: SuppressionOrigin, at: Date): WebhookPayload[] {
    const suppression = this.#suppress(message.server, message.stream, recipient, reason, origin, at);
    return suppression ? [suppressedByMessagePayload(message, suppression)] : [];
  }

  #emit(server: SimulatorServer, key: string, payload: WebhookPayload): void {
    if (this.#webhooksEnabled) this.#dispatcher.enqueue(key, payload, server.webhook);
  }

  // ---- faults --------------------------------------------------------------------------------

  /**
   * Arms a fault. One with a `path` replaces only the fault armed for that endpoint, so faults on different
   * endpoints can be armed side by side; one without replaces every armed fault. `none` clears them all.
   */
  setFaults(settings: FaultSettings): void {
    if (settings.mode === "none") {
      this.#faults = [];
      this.#endFreeze();
      return;
    }
    const path = settings.path ?? null;
    const fault = {
      mode: settings.mode,
      remaining: settings.count ?? 1,
      delayMs: settings.delayMs ?? DEFAULT_FAULT_DELAY_MS,
      afterAccept: settings.afterAccept ?? false,
      path,
    };
    this.#faults = path === null ? [fault] : [...this.#faults.filter((f) => f.path !== path && f.path !== null), fault];
  }

  /**
   * A slow provider: every send request is held this long after its body arrived, then handled (also when
   * its caller has gone meanwhile, like the `slow` fault). 0 (the default) answers at once.
   */
  setLatency(ms: number): void {
    this.#latencyMs = Math.max(0, ms);
  }

  get latencyMs(): number {
    return this.#latencyMs;
  }

  /**
   * Postmark's rate limit: for `durationMs` from now, a `rate` share (0–1) of the send requests is turned
   * away with 429 (evenly spread: rate 0.5 refuses every second request), with `Retry-After` when given; `status`
   * 503: turned away as Postmark does in maintenance (a 503 with `Retry-After`, nothing taken in). `cut`: a
   * gateway's refusal, the connection closed before the upload ended: nothing taken in, and the caller
   * gets no answer at all (a reset connection).
   */
  setThrottle(settings: { rate: number; durationMs: number; retryAfterSeconds?: number | null; status?: 429 | 503; cut?: boolean }): void {
    const rate = Math.min(1, Math.max(0, settings.rate));
    this.#throttle =
      rate > 0 && settings.durationMs > 0
        ? {
            rate,
            untilMs: this.#clock.now().getTime() + settings.durationMs,
            retryAfterSeconds: settings.retryAfterSeconds ?? null,
            status: settings.status ?? 429,
            cut: settings.cut ?? false,
            seen: 0,
          }
        : null;
  }

  #throttled = 0;

  /** Whether this send request is turned away by the rate limit (and its Retry-After); counts it. */
  /** A send request's body arrived (counted in `stats().request_bytes`). */
  noteRequestBytes(bytes: number): void {
    this.#requestBytes += bytes;
  }

  takeThrottle(): { retryAfterSeconds: number | null; status: 429 | 503; cut: boolean } | null {
    const throttle = this.#throttle;
    if (!throttle) return null;
    if (this.#clock.now().getTime() >= throttle.untilMs) {
      this.#throttle = null;
      return null;
    }
    throttle.seen += 1;
    if (Math.floor(throttle.seen * throttle.rate) === Math.floor((throttle.seen - 1) * throttle.rate)) return null;
    this.#throttled += 1;
    return { retryAfterSeconds: throttle.retryAfterSeconds, status: throttle.status, cut: throttle.cut };
  }

  #held = 0;
  #heldTotal = 0;
  #freeze: { untilMs: number; drainMs: number } | null = null;
  #freezeTimers = new Set<NodeJS.Timeout>();
  #backlog: (() => void)[] = [];
  #frozenHeld = 0;
  #frozenHeldTotal = 0;
  #frozenHeldByPath: Record<string, number> = {};
  #freezeArmed: { durationMs: number; drainMs?: number; path: string } | null = null;

  /**
   * A provider that stalls and then works through its backlog: for `durationMs` from now every send
   * request is held once its body has arrived, whether or not its caller stays connected (a caller that
   * gave up or died meanwhile does not take the call back: Postmark has it). When the freeze ends, the
   * held requests are handled in the order they came, one every `drainMs` (0: all at once), while new
   * requests are handled at once: the backlog is worked through beside the new traffic, so mail sent
   * after the freeze can be taken in before mail held by it. With `onNextSendTo` the freeze is armed
   * and begins when the next send request to that path arrives (a call already in flight is held).
   */
  setFreeze(settings: { durationMs: number; drainMs?: number; onNextSendTo?: string }): void {
    if (settings.onNextSendTo !== undefined) {
      // Armed: the freeze begins when the next send request to that path has arrived, and holds it too.
      this.#freezeArmed = { durationMs: settings.durationMs, drainMs: settings.drainMs, path: settings.onNextSendTo };
      return;
    }
    this.#freezeArmed = null;
    const drainMs = Math.max(0, settings.drainMs ?? 0);
    this.#freeze = settings.durationMs > 0 ? { untilMs: Date.now() + settings.durationMs, drainMs } : null;
    const timer = setTimeout(
      () => {
        this.#freezeTimers.delete(timer);
        this.#thaw(drainMs);
      },
      Math.max(0, settings.durationMs),
    );
    this.#freezeTimers.add(timer);
  }

  /** Ends a freeze at once, its backlog handled now (reset, close). */
  #endFreeze(): void {
    this.#freezeArmed = null;
    for (const timer of this.#freezeTimers) clearTimeout(timer);
    this.#freezeTimers.clear();
    this.#thaw(0);
  }

  #thaw(drainMs: number): void {
    this.#freeze = null;
    const backlog = this.#backlog.splice(0);
    if (drainMs === 0) {
      for (const release of backlog) release();
      return;
    }
    backlog.forEach((release, i) => {
      const timer = setTimeout(
        () => {
          this.#freezeTimers.delete(timer);
          release();
        },
        drainMs * (i + 1),
      );
      this.#freezeTimers.add(timer);
    });
  }

  /** Resolves when a send request may be handled: at once, or when a freeze's backlog reaches it (`setFreeze`). */
  async untilThawed(path: string): Promise<void> {
    const armed = this.#freezeArmed;
    if (armed && armed.path === path) this.setFreeze({ durationMs: armed.durationMs, drainMs: armed.drainMs });
    if (!this.#freeze || Date.now() >= this.#freeze.untilMs) return;
    this.#frozenHeld++;
    this.#frozenHeldTotal++;
    this.#frozenHeldByPath[path] = (this.#frozenHeldByPath[path] ?? 0) + 1;
    try {
      await new Promise<void>((resolve) => this.#backlog.push(resolve));
    } finally {
      this.#frozenHeld--;
    }
  }

  #lateCalls: (() => void)[] = [];

  /** Keeps a call a `late` fault took (its connection already dropped) until `takeInLateCalls()`. */
  keepLate(handle: () => void): void {
    this.#lateCalls.push(handle);
  }

  /** Handles the calls `late` faults kept, in the order they came: Postmark takes them in now. Answers how many. */
  takeInLateCalls(): number {
    const calls = this.#lateCalls.splice(0);
    for (const handle of calls) handle();
    return calls.length;
  }

  /** Holds a send request for `ms` (a slow or stalling fault), counted in `stats().faults_held` meanwhile. */
  async hold(ms: number): Promise<void> {
    this.#held++;
    this.#heldTotal++;
    try {
      await this.delay(ms);
    } finally {
      this.#held--;
    }
  }

  /**
   * The slow provider's wait (`setLatency`): every send request, so not counted with the faults' holds (a test
   * waiting for its one armed fault to hold a call must not be misled by the latency of other calls).
   */
  delay(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  /** Consumes one use of the armed fault, if any; called once per send request (`path`: its endpoint). */
  takeFault(path?: string): ActiveFault | null {
    const fault = this.#faults.find((f) => f.path === null || path === undefined || f.path === path);
    if (!fault) return null;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.#faults = this.#faults.filter((f) => f !== fault);
    return { mode: fault.mode, delayMs: fault.delayMs, afterAccept: fault.afterAccept };
  }

  // ---- Messages API --------------------------------------------------------------------------

  /**
   * Postmark's search index lags behind the send ("the provider's search is not instant"): messages
   * received less than `ms` ago are left out of `GET /messages/outbound`. 0 (the default) shows them at once.
   */
  setSearchDelay(ms: number): void {
    this.#searchDelayMs = Math.max(0, ms);
  }

  /**
   * `GET /messages/outbound`: `count` (1–500) and `offset` are required and `count + offset` may not pass
   * 10,000, as in Postmark's Messages API; filters `recipient`, `fromemail`, `tag`, `subject`,
   * `messagestream` and one `metadata_<key>=<value>` (query names case-insensitive, values exact).
   */
  searchOutbound(server: SimulatorServer, query: Record<string, string>): ApiResult<{ TotalCount: number; Messages: OutboundMessageView[] }> {
    const lower = new Map(Object.entries(query).map(([key, value]) => [key.toLowerCase(), { key, value }]));
    const count = Number(lower.get("count")?.value);
    const offset = Number(lower.get("offset")?.value);
    if (!Number.isInteger(count) || count < 1 || count > 500) return { status: 422, body: POSTMARK_ERRORS.searchCount };
    if (!Number.isInteger(offset) || offset < 0 || count + offset > 10_000) return { status: 422, body: POSTMARK_ERRORS.searchOffset };
    const metadata = [...lower.entries()].filter(([key]) => key.startsWith("metadata_") && key.length > "metadata_".length);
    if (metadata.length > 1) return { status: 422, body: POSTMARK_ERRORS.searchOneMetadata };
    const [pair] = metadata;
    const result = this.store.outbound({
      serverId: server.id,
      count,
      offset,
      recipient: lower.get("recipient")?.value,
      fromEmail: lower.get("fromemail")?.value,
      tag: lower.get("tag")?.value,
      subject: lower.get("subject")?.value,
      stream: lower.get("messagestream")?.value,
      metadata: pair ? { key: pair[1].key.slice("metadata_".length), value: pair[1].value } : undefined,
      visibleBeforeMs: this.#clock.now().getTime() - this.#searchDelayMs,
    });
    return { status: 200, body: result };
  }

  // ---- inspection ----------------------------------------------------------------------------

  messages(filter: MessageFilter = {}): { total: number; messages: SimulatedMessage[] } {
    return this.store.list(filter);
  }

  message(messageId: string): SimulatedMessageDetail {
    return this.store.view(this.#lookup(messageId));
  }

  stats(): SimulatorStats {
    return {
      received: this.store.received,
      rejected: this.store.rejected,
      api_test: this.store.apiTest,
      duplicates_by_metadata_message_id: this.store.duplicatesByMetadataMessageId(),
      webhooks: { pending: this.#dispatcher.pending, ...this.#dispatcher.counts },
      faults_held: this.#held,
      faults_held_total: this.#heldTotal,
      frozen_held: this.#frozenHeld,
      frozen_held_total: this.#frozenHeldTotal,
      frozen_held_by_path: { ...this.#frozenHeldByPath },
      frozen_until_ms: this.#freeze?.untilMs ?? null,
      late_held: this.#lateCalls.length,
      throttled: this.#throttled,
      received_via_bulk: this.#receivedViaBulk,
      request_bytes: this.#requestBytes,
    };
  }

  metadataMessageIdCount(id: string): number {
    return this.store.metadataMessageIdCount(id);
  }

  webhookDeliveries(limit = 100): WebhookDelivery[] {
    return this.#dispatcher.log(limit);
  }

  setWebhook(target: WebhookTarget | null): void {
    this.#dispatcher.setTarget(target);
  }

  /** Forgets messages, suppressions, counters, faults and every event not yet posted. */
  reset(): void {
    this.#cancelPending();
    this.store.reset();
    this.account.reset();
    this.#journal?.rewrite(this.#snapshot());
    this.#dispatcher.clearLog();
    this.#faults = [];
    this.#lateCalls = [];
    this.#searchDelayMs = 0;
    this.#latencyMs = 0;
    this.#throttle = null;
    this.#throttled = 0;
    this.#receivedViaBulk = 0;
    this.#requestBytes = 0;
  }

  /** Resolves when no Delivery/Bounce timer is pending and every webhook was posted (or gave up). */
  async whenIdle(): Promise<void> {
    while (this.#timers.size > 0 || this.#dispatcher.pending > 0) {
      if (this.#timers.size > 0) await new Promise<void>((resolve) => this.#timerWaiters.push(resolve));
      else await this.#dispatcher.whenIdle();
    }
  }

  /** Stops timers and webhook posting; the HTTP server (if any) is closed by its owner. */
  close(): void {
    this.#endFreeze();
    this.#cancelPending();
    this.#dispatcher.close();
  }

  #cancelPending(): void {
    this.#generation += 1;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    for (const resolve of this.#timerWaiters.splice(0)) resolve();
    this.#dispatcher.cancel();
  }

  // ---- recipient actions ---------------------------------------------------------------------

  #lookup(messageId: string): StoredMessage {
    const message = this.store.get(messageId);
    if (!message) throw new SimulatorControlError(404, `No message with MessageID ${messageId}.`);
    return message;
  }

  /** A message for a reader's action; its delivery runs first if still pending, so events keep their real order. */
  #find(messageId: string): StoredMessage {
    const message = this.#lookup(messageId);
    this.#deliver(message);
    return message;
  }

  #recipientOf(message: StoredMessage, requested: string | undefined): string {
    if (requested === undefined) return message.recipients[0];
    const match = message.recipients.find((recipient) => recipient.toLowerCase() === requested.toLowerCase());
    if (!match) throw new SimulatorControlError(422, `${requested} is not a recipient of message ${message.id}.`);
    return match;
  }

  /** Every open is posted, with `FirstOpen` true only the first time (Postmark with PostFirstOpenOnly off, P10). */
  open(messageId: string, options: EngagementOptions = {}): ControlResult {
    const message = this.#find(messageId);
    const recipient = this.#recipientOf(message, options.recipient);
    message.opened ??= new Set();
    const firstOpen = !message.opened.has(recipient.toLowerCase());
    message.opened.add(recipient.toLowerCase());
    const payload = openPayload(message, recipient, firstOpen, options.platform ?? "Desktop", this.#clock.now());
    this.#emit(message.server, message.id, payload);
    return { webhooks: [payload] };
  }

  /** One Click per unique link per recipient (P10); a repeat click posts nothing. */
  click(messageId: string, options: ClickOptions): ControlResult {
    const message = this.#find(messageId);
    const recipient = this.#recipientOf(message, options.recipient);
    const key = `${recipient.toLowerCase()}\n${options.url}`;
    message.clicked ??= new Set();
    if (message.clicked.has(key)) return { webhooks: [] };
    message.clicked.add(key);
    const payload = clickPayload(message, recipient, options.url, options.location ?? "HTML", options.platform ?? "Desktop", this.#clock.now());
    this.#emit(message.server, message.id, payload);
    return { webhooks: [payload] };
  }

  /** The reader used the unsubscribe link: ManualSuppression with Origin Recipient on the message's stream (P7). */
  unsubscribe(messageId: string, options: RecipientOption = {}): ControlResult {
    const message = this.#find(messageId);
    const recipient = this.#recipientOf(message, options.recipient);
    const emitted = this.#suppressFromMessage(message, recipient, "ManualSuppression", "Recipient", this.#clock.now());
    for (const payload of emitted) this.#emit(message.server, message.id, payload);
    return { webhooks: emitted };
  }

  /** A bounce arriving later for an accepted message (default HardBounce). */
  bounce(messageId: string, options: BounceOptions = {}): ControlResult {
    const message = this.#find(messageId);
    const recipient = this.#recipientOf(message, options.recipient);
    return { webhooks: this.#applyOutcome(message, recipient, { kind: "bounce", type: options.type ?? "HardBounce" }, this.#clock.now()) };
  }

  /** The reader marks the message as spam. */
  complain(messageId: string, options: RecipientOption = {}): ControlResult {
    const message = this.#find(messageId);
    const recipient = this.#recipientOf(message, options.recipient);
    return { webhooks: this.#applyOutcome(message, recipient, { kind: "spam_complaint" }, this.#clock.now()) };
  }

  // ---- Suppressions API ----------------------------------------------------------------------

  /** `GET /message-streams/{stream}/suppressions/dump`; filters as Postmark's (query names case-insensitive). */
  dumpSuppressions(server: SimulatorServer, streamId: string, query: Record<string, string>): ApiResult<{ Suppressions: Suppression[] }> {
    const stream = server.streams.get(streamId);
    if (!stream) return { status: 422, body: POSTMARK_ERRORS.streamNotFound };
    const filter = Object.fromEntries(Object.entries(query).map(([key, value]) => [key.toLowerCase(), value]));
    const from = filter.fromdate ? new Date(filter.fromdate).getTime() : -Infinity;
    // A date-only `todate` includes that whole day.
    const to = filter.todate ? new Date(filter.todate).getTime() + (filter.todate.length <= 10 ? 86_400_000 : 1) : Infinity;
    const suppressions = this.store.suppressions(server, stream).filter((entry) => {
      const created = Date.parse(entry.CreatedAt);
      return (
        (!filter.suppressionreason || entry.SuppressionReason === filter.suppressionreason) &&
        (!filter.origin || entry.Origin === filter.origin) &&
        (!filter.emailaddress || entry.EmailAddress.toLowerCase() === filter.emailaddress.toLowerCase()) &&
        created >= from &&
        created < to
      );
    });
    return { status: 200, body: { Suppressions: suppressions } };
  }

  /** Suppressions made through the API are ManualSuppression with Origin Customer (P12). */
  createSuppressions(server: SimulatorServer, streamId: string, input: unknown): ApiResult<{ Suppressions: SuppressionStatus[] }> {
    return this.#changeSuppressions(server, streamId, input, (stream, address, at) => {
      const suppression = this.#suppress(server, stream, address, "ManualSuppression", "Customer", at);
      if (suppression) {
        const change = { suppressSending: true, reason: "ManualSuppression", origin: "Customer" } as const;
        this.#emit(server, `suppression:${address.toLowerCase()}`, subscriptionChangePayload(server, stream, address, change, at));
      }
      return { EmailAddress: address, Status: "Suppressed", Message: null };
    });
  }

  /**
   * A spam complaint cannot be lifted (P6, P12). Deleting a HardBounce is reactivating the bounce; an address
   * that was never suppressed deletes as `Deleted` too. A real deletion posts a reactivation SubscriptionChange.
   */
  deleteSuppressions(server: SimulatorServer, streamId: string, input: unknown): ApiResult<{ Suppressions: SuppressionStatus[] }> {
    return this.#changeSuppressions(server, streamId, input, (stream, address, at) => {
      if (this.store.suppression(server, stream, address)?.SuppressionReason === "SpamComplaint") {
        return { EmailAddress: address, Status: "Failed", Message: SPAM_COMPLAINT_DELETE_REFUSED };
      }
      if (this.#unsuppress(server, stream, address)) {
        const change = { suppressSending: false, reason: null, origin: "Customer" } as const;
        this.#emit(server, `suppression:${address.toLowerCase()}`, subscriptionChangePayload(server, stream, address, change, at));
      }
      return { EmailAddress: address, Status: "Deleted", Message: null };
    });
  }

  /** Postmark applies these asynchronously ("can take a minute"); the simulator applies them at once. */
  #changeSuppressions(
    server: SimulatorServer,
    streamId: string,
    input: unknown,
    change: (stream: SimulatorStream, address: string, at: Date) => SuppressionStatus,
  ): ApiResult<{ Suppressions: SuppressionStatus[] }> {
    const stream = server.streams.get(streamId);
    if (!stream) return { status: 422, body: POSTMARK_ERRORS.streamNotFound };
    const entries = suppressionEntries(input);
    if (!entries) return { status: 422, body: POSTMARK_ERRORS.incompatibleJson };
    const at = this.#clock.now();
    const results = entries.map((entry): SuppressionStatus => {
      const addresses = parseAddressList(entry);
      if (addresses?.length !== 1) return { EmailAddress: entry, Status: "Failed", Message: INVALID_SUPPRESSION_ADDRESS };
      return change(stream, addresses[0], at);
    });
    return { status: 200, body: { Suppressions: results } };
  }
}

/** `{ Suppressions: [{ EmailAddress }] }` → the addresses, or null when the body has another shape. */
function suppressionEntries(input: unknown): string[] | null {
  if (input === null || typeof input !== "object" || !("Suppressions" in input) || !Array.isArray(input.Suppressions)) return null;
  const addresses: string[] = [];
  for (const entry of input.Suppressions as unknown[]) {
    if (entry === null || typeof entry !== "object" || !("EmailAddress" in entry) || typeof entry.EmailAddress !== "string") return null;
    addresses.push(entry.EmailAddress);
  }
  return addresses;
}

function journalServer(server: SimulatorServer): JournalServer {
  return { token: server.token, id: server.id, name: server.name, deliveryType: server.deliveryType, streams: [...server.streams.values()] };
}

/**
 * The headers a message goes out with. On a broadcast stream Postmark manages unsubscribes by default and adds
 * the RFC 8058 pair itself, replacing any the sender set ("There is not a way to edit the List-Unsubscribe
 * headers when Postmark is managing your unsubscribes": docs/provider-facts.md, "One-click unsubscribe").
 */
function deliveredHeaders(stream: SimulatorStream, sent: readonly { Name: string; Value: string }[], messageId: string): { Name: string; Value: string }[] {
  if (stream.type !== "Broadcasts") return [...sent];
  const own = sent.filter((header) => !/^list-unsubscribe(-post)?$/i.test(header.Name));
  return [
    ...own,
    { Name: "List-Unsubscribe", Value: `<https://simulator.postmark.invalid/unsubscribe/${messageId}>` },
    { Name: "List-Unsubscribe-Post", Value: "List-Unsubscribe=One-Click" },
  ];
}
