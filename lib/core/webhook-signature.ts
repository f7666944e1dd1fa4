import { createHmac, timingSafeEqual } from "node:crypto";
import { randomToken } from "./secrets";

/**
 * The one signer/verifier for the webhooks we send (both services, DESIGN §4):
 * `X-Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`.
 * The timestamp is inside the MAC, so a captured delivery cannot be replayed outside the tolerance;
 * every attempt is signed afresh, so a retry hours later still verifies with a 5-minute tolerance.
 * The HMAC key is the secret string exactly as shown to the customer (UTF-8, `whsec_` prefix included),
 * so a receiver can verify with nothing but what we gave them.
 */

export const WEBHOOK_SIGNATURE_HEADER = "X-Service-Signature";
export const WEBHOOK_EVENT_HEADER = "X-Service-Event";
/** Stable across retries of one delivery, so receivers can deduplicate. */
export const WEBHOOK_DELIVERY_HEADER = "X-Service-Delivery";

const WEBHOOK_TOLERANCE_SECONDS = 300;

export type WebhookBody = string | Uint8Array;

export type WebhookVerification =
  | { ok: true }
  | { ok: false; reason: "missing_header" | "malformed_header" | "signature_mismatch" | "timestamp_out_of_tolerance" };

export function generateWebhookSecret(): string {
  return `whsec_${randomToken(32)}`;
}

function hmacHex(secret: string, timestamp: number, rawBody: WebhookBody): string {
  // Fed in two parts so a binary body is signed byte for byte, never re-encoded through a string.
  return createHmac("sha256", secret).update(`${timestamp}.`).update(rawBody).digest("hex");
}

/**
 * Header value for one delivery attempt. During a secret rotation pass both secrets: one `v1` entry
 * per secret, and a receiver holding either one verifies (Stripe's scheme).
 */
export function signWebhook(secret: string | readonly string[], rawBody: WebhookBody, nowSeconds: number): string {
  const timestamp = Math.floor(nowSeconds);
  const secrets = typeof secret === "string" ? [secret] : secret;
  if (secrets.length === 0) throw new Error("signWebhook needs at least one secret");
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${hmacHex(s, timestamp, rawBody)}`)].join(",");
}

type ParsedHeader = { timestamp: number; signatures: Buffer[] };

const TIMESTAMP = /^\d{1,12}$/;
const HEX_SHA256 = /^[0-9a-f]{64}$/;

/**
 * `t` exactly once, at least one well-formed `v1`. Unknown schemes (`v0`, a future `v2`) are skipped
 * so senders can add schemes without breaking receivers; a malformed `v1` is skipped the same way.
 */
function parseHeader(header: string): ParsedHeader | null {
  let timestamp: number | null = null;
  const signatures: Buffer[] = [];
  for (const part of header.split(",")) {
    const separator = part.indexOf("=");
    if (separator < 1) return null;
    const key = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (key === "t") {
      if (timestamp !== null || !TIMESTAMP.test(value)) return null;
      timestamp = Number(value);
    } else if (key === "v1" && HEX_SHA256.test(value)) {
      signatures.push(Buffer.from(value, "hex"));
    }
  }
  return timestamp === null || signatures.length === 0 ? null : { timestamp, signatures };
}

/**
 * The signature is checked before the timestamp, so `timestamp_out_of_tolerance` is only ever reported
 * for a delivery that really came from the secret's holder (a useful "your clock is off" signal).
 */
export function verifyWebhook(
  secret: string,
  rawBody: WebhookBody,
  header: string | null | undefined,
  options: { toleranceSeconds?: number; nowSeconds: number },
): WebhookVerification {
  if (header === null || header === undefined || header.trim() === "") return { ok: false, reason: "missing_header" };
  const parsed = parseHeader(header);
  if (!parsed) return { ok: false, reason: "malformed_header" };

  const expected = Buffer.from(hmacHex(secret, parsed.timestamp, rawBody), "hex");
  // Every entry is compared (no early exit), each in constant time; lengths are equal by the regex.
  let matched = false;
  for (const signature of parsed.signatures) {
    if (timingSafeEqual(signature, expected)) matched = true;
  }
  if (!matched) return { ok: false, reason: "signature_mismatch" };

  const tolerance = options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS;
  if (Math.abs(options.nowSeconds - parsed.timestamp) > tolerance) {
    return { ok: false, reason: "timestamp_out_of_tolerance" };
  }
  return { ok: true };
}
