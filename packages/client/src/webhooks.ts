/**
 * Verifying our webhook deliveries (mail and ads use one scheme, like Stripe's and Svix's):
 * `X-Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, the key being the
 * signing secret exactly as shown (`whsec_…`, UTF-8, prefix included). During a secret rotation a header
 * carries one `v1` per secret; any one matching verifies. Uses Web Crypto, so it runs in Node ≥ 20,
 * Deno, Bun, edge runtimes and browsers alike (and is therefore async).
 */

/**
 * `job.completed`, `message.bounced`, `suppression.changed`: `{ event, delivery_id, …fields, occurred_at }`;
 * `webhook.test` is a test event someone sent to the endpoint (`POST /v1/webhooks/{id}/test`).
 */
export type MailWebhookEvent =
  | {
      event: "job.completed";
      delivery_id: string;
      send_job_id: string;
      recipients: { total: number; accepted: number; suppressed: number };
      occurred_at: string;
    }
  | {
      event: "message.bounced";
      delivery_id: string;
      message_id: string;
      send_job_id: string | null;
      kind: string;
      bounce_type: string;
      final: boolean;
      bounced_at: string;
      occurred_at: string;
    }
  | {
      event: "suppression.changed";
      delivery_id: string;
      email: string;
      stream: string;
      active: boolean;
      reason: string;
      reactivatable: boolean;
      changed_at: string;
      occurred_at: string;
    }
  | { event: "webhook.test"; delivery_id: string; webhook_id: string; test: true; message: string; occurred_at: string };

/**
 * `ad.status_changed`: `{ id, type, created, data }`; `id` is the event id (the same for every endpoint and retry).
 * A test event sent with `POST /v1/webhooks/{id}/test` has `type: "webhook.test"` and
 * `data: { webhook_id, test: true, message }` instead: check `type` before reading `data` (the type stays a
 * single object so existing receivers keep compiling).
 */
export type AdsWebhookEvent = {
  id: string;
  type: "ad.status_changed";
  created: number;
  data: { ad_id: string; effective_status: string; reason: string | null; previous_status: string };
};

export type WebhookEvent = MailWebhookEvent | AdsWebhookEvent;

export const SIGNATURE_HEADER = "x-service-signature";
export const EVENT_HEADER = "x-service-event";
export const DELIVERY_HEADER = "x-service-delivery";
/** Five minutes, as the services document. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type WebhookVerificationErrorCode =
  /** No `X-Service-Signature` header. */
  | "missing_signature"
  /** The header is not `t=<seconds>,v1=<64 hex>[,v1=…]`. */
  | "malformed_signature"
  /** No `v1` matches: wrong secret, or the body was changed (re-serialised, re-encoded, trimmed). */
  | "signature_mismatch"
  /** Signed correctly, but `t` is further from now than the tolerance: a replay, or a clock that is off. */
  | "timestamp_out_of_tolerance"
  /** An object was passed instead of the raw body: the signature covers the bytes as received. */
  | "parsed_body"
  /** The secret is empty. */
  | "missing_secret";

export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  readonly code: WebhookVerificationErrorCode;
  constructor(code: WebhookVerificationErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

export type RawBody = string | Uint8Array | ArrayBuffer;
/** A Fetch `Headers`, or Node's `req.headers` (lower-case names; arrays for repeated headers). */
export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined>;

export type VerifyWebhookOptions = {
  /** Largest allowed |now − t| in seconds (default 300); 0 turns the timestamp check off (not recommended). */
  tolerance?: number;
  /** "Now" in unix seconds (default the clock), for tests. */
  now?: number;
};

function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | readonly string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(",") : (value as string | undefined);
}

function bytesOf(rawBody: RawBody): Uint8Array {
  if (typeof rawBody === "string") return new TextEncoder().encode(rawBody);
  if (rawBody instanceof ArrayBuffer) return new Uint8Array(rawBody);
  return rawBody;
}

function parseSignature(header: string): { timestamp: number; signatures: string[] } | null {
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const separator = part.indexOf("=");
    if (separator < 1) return null;
    const key = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (key === "t") {
      if (timestamp !== null || !/^\d{1,12}$/.test(value)) return null;
      timestamp = Number(value);
    } else if (key === "v1" && /^[0-9a-f]{64}$/.test(value)) {
      signatures.push(value);
    }
  }
  return timestamp === null || signatures.length === 0 ? null : { timestamp, signatures };
}

async function hmacHex(secret: string, timestamp: number, body: Uint8Array): Promise<string> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const prefix = encoder.encode(`${timestamp}.`);
  const message = new Uint8Array(prefix.length + body.length);
  message.set(prefix, 0);
  message.set(body, prefix.length);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, message));
  return Array.from(mac, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Compares every character (no early exit), so the time taken does not tell how much matched. */
function equalHex(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/**
 * Verifies one delivery and returns its parsed event (like Stripe's `constructEvent` and Svix's
 * `verify`); throws `WebhookVerificationError` with a `code` otherwise. Pass the body exactly as
 * received (Express: `express.raw({ type: "application/json" })`; Fetch: `await request.text()`), the
 * request's headers and the endpoint's `signing_secret`. The signature is checked before the timestamp,
 * so `timestamp_out_of_tolerance` only ever reports a genuine delivery (a clock that is off, or a replay).
 */
export async function verifyWebhook<E extends WebhookEvent = WebhookEvent>(
  rawBody: RawBody,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<E> {
  if (typeof rawBody !== "string" && !(rawBody instanceof Uint8Array) && !(rawBody instanceof ArrayBuffer)) {
    throw new WebhookVerificationError(
      "parsed_body",
      "verifyWebhook needs the raw request body (string or bytes) as received, not a parsed object: the signature covers the exact bytes. Read the body raw (e.g. express.raw({ type: 'application/json' }) or await request.text()).",
    );
  }
  if (typeof secret !== "string" || secret === "") throw new WebhookVerificationError("missing_secret", "verifyWebhook needs the endpoint's signing_secret.");
  const header = headerValue(headers, SIGNATURE_HEADER);
  if (header === undefined || header.trim() === "") {
    throw new WebhookVerificationError("missing_signature", "The X-Service-Signature header is missing.");
  }
  const parsed = parseSignature(header);
  if (!parsed) throw new WebhookVerificationError("malformed_signature", "The X-Service-Signature header is not t=<seconds>,v1=<hex>.");
  const body = bytesOf(rawBody);
  const expected = await hmacHex(secret, parsed.timestamp, body);
  let matched = false;
  for (const signature of parsed.signatures) if (equalHex(signature, expected)) matched = true;
  if (!matched) {
    throw new WebhookVerificationError(
      "signature_mismatch",
      "No signature matches: check the signing secret, and that the body is the raw one (not re-serialised or re-encoded).",
    );
  }
  const tolerance = options.tolerance ?? DEFAULT_TOLERANCE_SECONDS;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (tolerance > 0 && Math.abs(now - parsed.timestamp) > tolerance) {
    throw new WebhookVerificationError(
      "timestamp_out_of_tolerance",
      `The signature's timestamp is ${Math.abs(now - parsed.timestamp)} s from now (tolerance ${tolerance} s): a replayed delivery, or a clock that is off.`,
    );
  }
  return JSON.parse(new TextDecoder().decode(body)) as E;
}

/** `verifyWebhook` for a mail endpoint: the event is the mail union, so `switch (event.event)` narrows. */
export function verifyMailWebhook(rawBody: RawBody, headers: WebhookHeaders, secret: string, options?: VerifyWebhookOptions): Promise<MailWebhookEvent> {
  return verifyWebhook<MailWebhookEvent>(rawBody, headers, secret, options);
}

/** `verifyWebhook` for an ads endpoint: the event is the ads union, so `switch (event.type)` narrows. */
export function verifyAdsWebhook(rawBody: RawBody, headers: WebhookHeaders, secret: string, options?: VerifyWebhookOptions): Promise<AdsWebhookEvent> {
  return verifyWebhook<AdsWebhookEvent>(rawBody, headers, secret, options);
}
