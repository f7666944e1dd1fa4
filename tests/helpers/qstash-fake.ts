import { createHash, randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { SignJWT } from "jose";

/**
 * An HTTP-level stand-in for QStash: it takes publishes the way `@upstash/qstash`'s `Client` sends them
 * (`POST /v2/publish/<destination URL>` with a Bearer token, `Upstash-Delay: <n>s`, `Upstash-Deduplication-Id`,
 * `Upstash-Retries`, `Upstash-Forward-*`), and delivers each message to its destination as QStash does: the
 * raw body, `Upstash-Signature` (an HS256 JWT under the current signing key with iss=Upstash, sub=the URL,
 * body=base64url SHA-256 of the body, iat/nbf/exp/jti, the claims `Receiver.verify` checks),
 * `Upstash-Message-Id` and `Upstash-Retried`; a non-2xx answer or a network error is retried up to the
 * message's retries with a backoff, then the message goes to the dead-letter list. Delays and backoffs are
 * real time, scaled by `timeScale` (1 = as QStash), so a test can keep them short without skipping them.
 */

export type QstashMessage = {
  messageId: string;
  destination: string;
  body: string;
  headers: Record<string, string>;
  retries: number;
  deduplicationId: string | null;
  notBefore: number;
};

type QstashDelivery = { messageId: string; destination: string; attempt: number; status: number | "network-error"; ms: number };

export type QstashFakeOptions = {
  token: string;
  currentSigningKey: string;
  /** Multiplies delays and retry backoffs (0.01 turns QStash's seconds into tens of milliseconds). */
  timeScale?: number;
  /**
   * Fault injection: called after a 2xx delivery; `true` treats it as failed (as when the answer is lost to
   * a timeout after the function ran), so QStash delivers the same message again.
   */
  redeliver?: (message: QstashMessage) => boolean;
};

/** QStash keeps a deduplication id this long. */
const DEDUPLICATION_WINDOW_MS = 10 * 60 * 1000;
const DEFAULT_RETRIES = 3;

/** `Upstash-Delay` values such as `30s`, `5m`, `2h`, `1d` in milliseconds. */
function parseDelay(value: string | undefined): number {
  if (!value) return 0;
  const match = /^(\d+)(s|m|h|d)$/.exec(value.trim());
  if (!match) throw new Error(`invalid Upstash-Delay ${value}`);
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as "s" | "m" | "h" | "d"];
  return Number(match[1]) * unit;
}

/** QStash's default backoff after the n-th failed attempt: min(86400, e^(2.5n)) seconds. */
const backoffMs = (attempt: number) => Math.min(86_400, Math.exp(2.5 * attempt)) * 1000;

const base64url = (bytes: Buffer) => bytes.toString("base64").replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

export async function startQstashFake(options: QstashFakeOptions) {
  const timeScale = options.timeScale ?? 1;
  const key = new TextEncoder().encode(options.currentSigningKey);
  const published: QstashMessage[] = [];
  const deduplicated: string[] = [];
  const deliveries: QstashDelivery[] = [];
  const deadLetters: QstashMessage[] = [];
  const seenIds = new Map<string, { messageId: string; at: number }>();
  const timers = new Set<NodeJS.Timeout>();
  let inFlight = 0;
  let waiters: (() => void)[] = [];
  let closed = false;

  const settleIfIdle = () => {
    if (timers.size === 0 && inFlight === 0) {
      const current = waiters;
      waiters = [];
      for (const resolve of current) resolve();
    }
  };

  const later = (ms: number, run: () => Promise<void>) => {
    const timer = setTimeout(
      () => {
        timers.delete(timer);
        inFlight++;
        void run().finally(() => {
          inFlight--;
          settleIfIdle();
        });
      },
      Math.max(0, ms * timeScale),
    );
    timers.add(timer);
  };

  async function signature(url: string, body: string): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ body: base64url(createHash("sha256").update(body).digest()) })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuer("Upstash")
      .setSubject(url)
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(now + 300)
      .setJti(`jwt_${randomUUID()}`)
      .sign(key);
  }

  async function deliver(message: QstashMessage, attempt: number): Promise<void> {
    if (closed) return;
    const started = performance.now();
    let status: number | "network-error";
    try {
      const response = await fetch(message.destination, {
        method: "POST",
        headers: {
          ...message.headers,
          "upstash-signature": await signature(message.destination, message.body),
          "upstash-message-id": message.messageId,
          "upstash-retried": String(attempt),
          "user-agent": "Upstash-QStash",
        },
        body: message.body,
      });
      await response.arrayBuffer();
      status = response.status;
    } catch {
      status = "network-error";
    }
    deliveries.push({ messageId: message.messageId, destination: message.destination, attempt, status, ms: performance.now() - started });
    const ok = typeof status === "number" && status >= 200 && status < 300 && !options.redeliver?.(message);
    if (ok || closed) return;
    if (attempt >= message.retries) {
      deadLetters.push(message);
      return;
    }
    later(backoffMs(attempt + 1), () => deliver(message, attempt + 1));
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const reply = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      if (req.headers.authorization !== `Bearer ${options.token}`) return reply(401, { error: "Unauthorized" });
      const path = req.url ?? "";
      if (req.method !== "POST" || !path.startsWith("/v2/publish/")) return reply(404, { error: `unsupported ${req.method} ${path}` });
      const destination = decodeURIComponent(path.slice("/v2/publish/".length));
      if (!/^https?:\/\//.test(destination)) return reply(400, { error: "invalid destination url" });
      const header = (name: string) => {
        const value = req.headers[name];
        return Array.isArray(value) ? value.join(",") : value;
      };
      let delayMs: number;
      try {
        delayMs = parseDelay(header("upstash-delay"));
      } catch (error) {
        return reply(400, { error: String(error) });
      }
      const deduplicationId = header("upstash-deduplication-id") ?? null;
      const now = Date.now();
      if (deduplicationId) {
        const seen = seenIds.get(deduplicationId);
        if (seen && now - seen.at < DEDUPLICATION_WINDOW_MS) {
          deduplicated.push(deduplicationId);
          return reply(201, { messageId: seen.messageId, deduplicated: true });
        }
      }
      const forwarded: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (name.startsWith("upstash-forward-") && value !== undefined) forwarded[name.slice("upstash-forward-".length)] = String(value);
      }
      const message: QstashMessage = {
        messageId: `msg_${randomUUID()}`,
        destination,
        body: Buffer.concat(chunks).toString("utf8"),
        headers: { "content-type": header("content-type") ?? "application/octet-stream", ...forwarded },
        retries: header("upstash-retries") === undefined ? DEFAULT_RETRIES : Number(header("upstash-retries")),
        deduplicationId,
        notBefore: now + delayMs,
      };
      if (deduplicationId) seenIds.set(deduplicationId, { messageId: message.messageId, at: now });
      published.push(message);
      later(delayMs, () => deliver(message, 0));
      reply(201, { messageId: message.messageId });
    });
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    published,
    deduplicated,
    deliveries,
    deadLetters,
    /** Resolves once nothing is scheduled or being delivered (a delivery may publish more: wait again after). */
    idle: () =>
      new Promise<void>((resolve) => {
        waiters.push(resolve);
        settleIfIdle();
      }),
    close: async () => {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
