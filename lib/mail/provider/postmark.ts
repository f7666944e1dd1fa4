import { AsyncLocalStorage } from "node:async_hooks";
import type { Models, ServerClient } from "postmark";
import { postJsonOffThread } from "./batch-transport";
// Postmark's error texts name the addresses (`Invalid 'To' address: '…'`, `Found inactive addresses: …`).
// Outcomes are stored with the message, which outlives its address's retention, so addresses never leave
// this adapter in a text.
import { withoutAddresses } from "../../base/personal-data";
import { bulkRequestStatuses } from "../../db/schema";

/**
 * Our one way to talk to Postmark: the official `postmark` client, pointed at the real API or at the
 * simulator (`requestHost`). It turns every answer into an outcome the sending code can record; it never
 * throws for a provider answer.
 */
export type OutgoingEmail = {
  From: string;
  To: string;
  Subject: string;
  HtmlBody: string;
  /** The plain-text part (`textPartOf` the HTML); clients without HTML show it. */
  TextBody?: string;
  ReplyTo?: string;
  MessageStream: string;
  Metadata: Record<string, string>;
  TrackOpens?: boolean;
  TrackLinks?: Models.LinkTrackingOptions;
};

export type SendOutcome =
  | { kind: "accepted"; providerMessageId: string; submittedAt: string | null }
  /** 406: the address is inactive at Postmark (hard bounce, complaint, unsubscribe). Nothing was sent. */
  | { kind: "suppressed"; message: string }
  /** 300: Postmark refused the request as invalid (e.g. the address). Nothing was sent. */
  | { kind: "invalid"; message: string }
  /** Refused for another definite reason (token, rate limit, sender signature). Nothing was sent. */
  | { kind: "failed"; code: number; status: number; message: string }
  /**
   * 429 (or 503 with `Retry-After`): Postmark refused the request as a whole to slow us down; nothing was
   * sent. Send it again after `retryAfterSeconds` (Postmark's `Retry-After`, when it gave one).
   */
  | { kind: "throttled"; retryAfterSeconds: number | null; message: string }
  /** No answer or a 5xx: Postmark may or may not have accepted it. Never send again without evidence (./reconcile). */
  | { kind: "unknown"; message: string };

/**
 * The answer to a Bulk API request (`POST /email/bulk`), for all its messages at once: Postmark accepts or
 * refuses the request as a whole and compiles and sends the messages afterwards. The other kinds mean what
 * they mean for a message (`SendOutcome`).
 */
export type BulkOutcome =
  | { kind: "accepted"; requestId: string; status: BulkRequestStatus; submittedAt: string | null }
  | Extract<SendOutcome, { kind: "failed" | "throttled" | "unknown" }>;
type BulkRequestStatus = (typeof bulkRequestStatuses)[number];
export type BulkStatusOutcome = { kind: "answered"; status: BulkRequestStatus; percentageCompleted: number } | { kind: "unavailable"; message: string };

/** A message Postmark has, as its Messages API lists it. */
export type ProviderMessage = { providerMessageId: string; metadata: Record<string, unknown>; receivedAt: Date | null };

/** The newest message Postmark's search shows on the server: how far its index has caught up. */
export type NewestOutcome = { kind: "answered"; receivedAt: Date | null } | { kind: "unavailable"; message: string };

export type SearchOutcome =
  | { kind: "answered"; messages: ProviderMessage[] }
  /** Postmark could not be asked (no answer, 5xx, refused token): nothing can be concluded. */
  | { kind: "unavailable"; message: string };

/** Postmark's API token that validates requests without sending (used for sandbox mode). */
export const POSTMARK_TEST_TOKEN = "POSTMARK_API_TEST";

export type PostmarkProvider = {
  send(serverToken: string, email: OutgoingEmail): Promise<SendOutcome>;
  /**
   * `POST /email/batch` with a body the caller assembled: a JSON array of `count` messages of the
   * `OutgoingEmail` shape. Send jobs build it from pre-escaped template chunks (see
   * `lib/mail/send-jobs/batch-payload.ts`) instead of serialising 500 copies of the same HTML. The body is
   * handed over (it may be moved to the sending thread): do not use it afterwards.
   */
  sendBatchJson(serverToken: string, body: Uint8Array, count: number): Promise<SendOutcome[]>;
  /** `POST /email/bulk` with a body the caller assembled (`lib/mail/send-jobs/bulk-payload.ts`); handed over like `sendBatchJson`'s. */
  sendBulkJson(serverToken: string, body: Uint8Array): Promise<BulkOutcome>;
  /** `GET /email/bulk/{id}`: the progress of a Bulk API request. */
  bulkStatus(serverToken: string, requestId: string): Promise<BulkStatusOutcome>;
  /**
   * What Postmark received with `Metadata[key] === value` (Messages API, `metadata_<key>=<value>`, pages of
   * 500). Its search index lags behind the send, so an empty answer is only conclusive some time after
   * the send (the caller's grace period).
   */
  searchByMetadata(serverToken: string, key: string, value: string): Promise<SearchOutcome>;
  /**
   * The receive time of the newest message the Messages API lists for the server (newest first, one
   * message): a search made after this answer sees everything Postmark received up to that time.
   */
  newestReceivedAt(serverToken: string): Promise<NewestOutcome>;
  /**
   * One message to Postmark's black-hole address (`PROBE_ADDRESS`: accepted and kept like any message,
   * delivered to no one) on `stream`, `Metadata.probe_id = probeId`: reconciliation's own traffic on a
   * server without other mail, so its search can be shown current (lib/mail/send-jobs/provider-health.ts).
   * Gives up sooner than a send (`PROBE_TIMEOUT_SECONDS`).
   */
  probe(serverToken: string, probe: { from: string; stream: string; probeId: string }): Promise<SendOutcome>;
};

/**
 * Postmark's black-hole address: Postmark accepts mail to it and delivers it to no one (Postmark's sandbox
 * and testing guides). It still counts towards the server's monthly volume, as every accepted message does.
 */
const PROBE_ADDRESS = "test@blackhole.postmarkapp.com";
/** A probe Postmark has not answered within this is taken as not answered normally. */
const PROBE_TIMEOUT_SECONDS = 10;

/**
 * The `Retry-After` header of the answer to the call running in this async context: the `postmark` client
 * keeps response headers to itself, so its `fetch` (a client option) notes the header here for `send`.
 */
const answerHeaders = new AsyncLocalStorage<{ retryAfter: string | null }>();
const notingFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const response = await fetch(input, init);
  const slot = answerHeaders.getStore();
  if (slot) slot.retryAfter = response.headers.get("retry-after");
  return response;
};

/** The Messages API pages by `count` (≤ 500) and `offset`, and `count + offset` may not pass 10,000. */
const SEARCH_PAGE = 500;
const SEARCH_WINDOW = 10_000;

type PostmarkModule = typeof import("postmark");
let postmarkModule: PostmarkModule | undefined;

/**
 * The `postmark` package, imported at the first call that needs it: a cold start that calls no
 * Postmark API (an ads function, most mail requests) does not compile and run its 0.05 MB. Once loaded, it stays.
 */
export async function loadPostmark(): Promise<PostmarkModule> {
  if (postmarkModule) return postmarkModule;
  // A CommonJS package: Node and the functions' bundle (its own chunk) give its exports as `default`.
  const imported: PostmarkModule & { default?: PostmarkModule } = await import("postmark");
  postmarkModule = imported.default ?? imported;
  return postmarkModule;
}

export function createPostmarkProvider(options: { apiUrl: string; timeoutSeconds?: number }): PostmarkProvider {
  const url = new URL(options.apiUrl);
  const timeoutSeconds = options.timeoutSeconds ?? 20;
  const clientOptions = { useHttps: url.protocol === "https:", requestHost: url.host, timeout: timeoutSeconds, fetch: notingFetch };
  const probeOptions = { ...clientOptions, timeout: Math.min(timeoutSeconds, PROBE_TIMEOUT_SECONDS) };
  const batchUrl = new URL("/email/batch", url);
  const bulkUrl = new URL("/email/bulk", url);
  const clients = new Map<string, ServerClient>();
  const probeClients = new Map<string, ServerClient>();
  const client = async (token: string, options = clientOptions, cache = clients) => {
    let c = cache.get(token);
    if (!c) {
      c = new (await loadPostmark()).ServerClient(token, options);
      cache.set(token, c);
    }
    return c;
  };

  return {
    async send(serverToken, email) {
      const answered = { retryAfter: null as string | null };
      try {
        const sender = await client(serverToken);
        const response = await answerHeaders.run(answered, () => sender.sendEmail(email));
        return itemOutcome(response.ErrorCode, response.Message, response.MessageID, response.SubmittedAt);
      } catch (error) {
        return errorOutcome(error, parseRetryAfter(answered.retryAfter));
      }
    },
    async probe(serverToken, probe) {
      try {
        const response = await (await client(serverToken, probeOptions, probeClients)).sendEmail({
          From: probe.from,
          To: PROBE_ADDRESS,
          Subject: "Delivery check",
          TextBody: "An automatic check of the sending service; delivered to no one.",
          MessageStream: probe.stream,
          Metadata: { probe_id: probe.probeId },
          TrackOpens: false,
        });
        return itemOutcome(response.ErrorCode, response.Message, response.MessageID, response.SubmittedAt);
      } catch (error) {
        return errorOutcome(error);
      }
    },
    async searchByMetadata(serverToken, key, value) {
      const messages: ProviderMessage[] = [];
      try {
        for (let offset = 0; offset + SEARCH_PAGE <= SEARCH_WINDOW; offset += SEARCH_PAGE) {
          const filter: Models.OutboundMessagesFilteringParameters = { count: SEARCH_PAGE, offset, [`metadata_${key}`]: value };
          const page = await (await client(serverToken)).getOutboundMessages(filter);
          for (const message of page.Messages ?? []) {
            const receivedAt = message.ReceivedAt ? new Date(message.ReceivedAt) : null;
            messages.push({
              providerMessageId: message.MessageID,
              metadata: message.Metadata ?? {},
              receivedAt: receivedAt && !Number.isNaN(receivedAt.getTime()) ? receivedAt : null,
            });
          }
          if ((page.Messages ?? []).length < SEARCH_PAGE || messages.length >= Number(page.TotalCount)) break;
        }
      } catch (error) {
        return { kind: "unavailable", message: withoutAddresses(error instanceof Error ? error.message : String(error)) };
      }
      return { kind: "answered", messages };
    },
    async newestReceivedAt(serverToken) {
      try {
        const page = await (await client(serverToken)).getOutboundMessages({ count: 1, offset: 0 });
        const newest = page.Messages?.[0]?.ReceivedAt;
        const at = newest ? new Date(newest) : null;
        return { kind: "answered", receivedAt: at && !Number.isNaN(at.getTime()) ? at : null };
      } catch (error) {
        return { kind: "unavailable", message: withoutAddresses(error instanceof Error ? error.message : String(error)) };
      }
    },
    async bulkStatus(serverToken, requestId) {
      try {
        const answer = await (await client(serverToken)).getBulkEmailStatus(requestId);
        const status = bulkRequestStatuses.find((s) => s === answer.Status);
        if (!status) return { kind: "unavailable", message: "Postmark answered an unknown bulk status." };
        const percentage = Math.max(0, Math.min(100, Math.floor(Number(answer.PercentageCompleted) || 0)));
        return { kind: "answered", status, percentageCompleted: percentage };
      } catch (error) {
        return { kind: "unavailable", message: withoutAddresses(error instanceof Error ? error.message : String(error)) };
      }
    },
    async sendBulkJson(serverToken, body) {
      let answer: { status: number; text: string; retryAfter: string | null };
      try {
        const headers = { accept: "application/json", "content-type": "application/json", "x-postmark-server-token": serverToken };
        answer = await postJsonOffThread(bulkUrl, headers, body, timeoutSeconds * 1000);
      } catch (error) {
        const outcome = errorOutcome(error);
        return outcome.kind === "failed" || outcome.kind === "throttled" || outcome.kind === "unknown"
          ? outcome
          : { kind: "unknown", message: "No usable answer from Postmark." };
      }
      const retryAfterSeconds = parseRetryAfter(answer.retryAfter);
      if (answer.status === 429) return { kind: "throttled", retryAfterSeconds, message: "Postmark answered 429 (rate limit)." };
      if (answer.status === 503 && retryAfterSeconds !== null) return { kind: "throttled", retryAfterSeconds, message: "Postmark answered 503." };
      if (answer.status >= 500) return { kind: "unknown", message: `Postmark answered ${answer.status}.` };
      const parsed = parseJson(answer.text);
      if (answer.status !== 200) {
        const error = isPostmarkAnswer(parsed) ? parsed : { ErrorCode: -1, Message: `Postmark answered ${answer.status} without an error body.` };
        return { kind: "failed", code: error.ErrorCode, status: answer.status, message: withoutAddresses(error.Message) };
      }
      const accepted = parsed as { Id?: unknown; Status?: unknown; SubmittedAt?: unknown } | null;
      // A 200 we cannot read may still have sent everything.
      if (typeof accepted?.Id !== "string") return { kind: "unknown", message: "Postmark answered 200 with an unreadable body." };
      const status = bulkRequestStatuses.find((s) => s === accepted.Status) ?? "Accepted";
      return { kind: "accepted", requestId: accepted.Id, status, submittedAt: typeof accepted.SubmittedAt === "string" ? accepted.SubmittedAt : null };
    },
    async sendBatchJson(serverToken, body, count) {
      const all = (outcome: SendOutcome) => Array.from({ length: count }, () => outcome);
      let answer: { status: number; text: string; retryAfter: string | null };
      try {
        const headers = { accept: "application/json", "content-type": "application/json", "x-postmark-server-token": serverToken };
        answer = await postJsonOffThread(batchUrl, headers, body, timeoutSeconds * 1000);
      } catch (error) {
        return all(errorOutcome(error));
      }
      const retryAfterSeconds = parseRetryAfter(answer.retryAfter);
      if (answer.status === 429) return all({ kind: "throttled", retryAfterSeconds, message: "Postmark answered 429 (rate limit)." });
      // A 503 with Retry-After is Postmark turning requests away (maintenance): nothing was taken in.
      if (answer.status === 503 && retryAfterSeconds !== null) return all({ kind: "throttled", retryAfterSeconds, message: "Postmark answered 503." });
      if (answer.status >= 500) return all({ kind: "unknown", message: `Postmark answered ${answer.status}.` });
      const parsed = parseJson(answer.text);
      if (answer.status !== 200) {
        // The request as a whole was refused (token, JSON, batch size): nothing was sent.
        const error = isPostmarkAnswer(parsed) ? parsed : { ErrorCode: -1, Message: `Postmark answered ${answer.status} without an error body.` };
        return all({ kind: "failed", code: error.ErrorCode, status: answer.status, message: withoutAddresses(error.Message) });
      }
      // A 200 we cannot read may still have sent everything.
      if (!Array.isArray(parsed)) return all({ kind: "unknown", message: "Postmark answered 200 with an unreadable body." });
      return Array.from({ length: count }, (_, i): SendOutcome => {
        const r: unknown = parsed[i];
        if (!isPostmarkAnswer(r)) return { kind: "unknown", message: "No result for this message in the batch answer." };
        return itemOutcome(r.ErrorCode, r.Message, r.MessageID, r.SubmittedAt);
      });
    },
  };
}

/** `Retry-After` in seconds (a number of seconds or an HTTP date), at most an hour; null when absent or unreadable. */
function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === "") return null;
  const seconds = /^\d+$/.test(value.trim()) ? Number(value.trim()) : (Date.parse(value) - now) / 1000;
  if (!Number.isFinite(seconds)) return null;
  return Math.min(3600, Math.max(0, Math.ceil(seconds)));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** Postmark's answer object (a whole-request error, or one batch item): `ErrorCode` and `Message` at least. */
function isPostmarkAnswer(value: unknown): value is { ErrorCode: number; Message: string; MessageID?: string; SubmittedAt?: string } {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { ErrorCode?: unknown }).ErrorCode === "number" &&
    typeof (value as { Message?: unknown }).Message === "string"
  );
}

function itemOutcome(code: number, rawMessage: string, messageId: string | undefined, submittedAt: string | undefined): SendOutcome {
  if (code === 0 && messageId) return { kind: "accepted", providerMessageId: messageId, submittedAt: submittedAt ?? null };
  const message = withoutAddresses(rawMessage);
  if (code === 406) return { kind: "suppressed", message };
  if (code === 300) return { kind: "invalid", message };
  return { kind: "failed", code, status: 422, message };
}

/**
 * An error of the `postmark` client as an outcome; `retryAfterSeconds`: the answer's `Retry-After`, when
 * the caller could note it (`send`).
 */
function errorOutcome(error: unknown, retryAfterSeconds: number | null = null): SendOutcome {
  const message = withoutAddresses(error instanceof Error ? error.message : "No answer from Postmark.");
  // Not loaded yet: no client was called, so this is no answer of Postmark's (the off-thread transport's error).
  if (!postmarkModule) return { kind: "unknown", message };
  const { Errors } = postmarkModule;
  if (error instanceof Errors.InactiveRecipientsError) return { kind: "suppressed", message };
  // A 503 with Retry-After is Postmark turning requests away (maintenance): nothing was taken in, as with a 429.
  if (error instanceof Errors.ServiceUnavailablerError && retryAfterSeconds !== null) {
    return { kind: "throttled", retryAfterSeconds, message: "Postmark answered 503." };
  }
  if (error instanceof Errors.InvalidEmailRequestError) return { kind: "invalid", message };
  if (error instanceof Errors.InternalServerError || error instanceof Errors.ServiceUnavailablerError || error instanceof Errors.UnknownError) {
    return { kind: "unknown", message: `Postmark answered ${error.statusCode}.` };
  }
  // 429: Postmark turned the request away as a whole, nothing was taken in.
  if (error instanceof Errors.RateLimitExceededError) return { kind: "throttled", retryAfterSeconds, message: "Postmark answered 429 (rate limit)." };
  if (error instanceof Errors.HttpError) return { kind: "failed", code: error.code, status: error.statusCode, message };
  // No HTTP answer at all (time-out, dropped connection): the request may have been processed.
  return { kind: "unknown", message };
}
