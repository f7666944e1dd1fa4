import { promises as dns, type LookupAddress, type LookupOptions } from "node:dns";
import { request as httpsRequest } from "node:https";
import type { IncomingMessage } from "node:http";
import type { LookupFunction } from "node:net";
import { rootCertificates } from "node:tls";
import { checkAddress, type AddressPolicy, type CheckedAddress } from "./address-policy";

/**
 * The one client for URLs a customer gave us (image URLs, webhook URLs). Invariants:
 * - https only, no userinfo, no redirects (a 3xx is an error, never followed);
 * - the host literal and every resolved address are public unicast (see address-policy.ts);
 * - the socket dials one of the addresses that were checked: DNS is asked once, and the request's
 *   `lookup` answers from that answer only, so a rebinding DNS server cannot swap the address between
 *   check and connect. SNI and Host stay the URL's host name, so TLS still verifies the real name;
 * - the body is streamed and abandoned past `maxBytes`; one deadline covers DNS, connect and body.
 */

const outboundErrorReasons = [
  "invalid_url",
  "scheme_not_allowed",
  "blocked_address",
  "dns_failure",
  "redirect_not_allowed",
  "too_large",
  "timeout",
  "connection_failed",
  "tls_error",
  // The caller's own `signal` fired; kept apart from `timeout` so callers can tell their cancel from ours.
  "aborted",
] as const;

export type OutboundErrorReason = (typeof outboundErrorReasons)[number];

/**
 * Messages name the host, never the full URL: signed image URLs carry tokens in the query string and
 * these errors end up in logs and customer-facing validation messages.
 */
export class OutboundError extends Error {
  readonly reason: OutboundErrorReason;
  /** The response status, set for `redirect_not_allowed`. */
  readonly status: number | undefined;
  /** The `Location` the server asked us to follow, set for `redirect_not_allowed`. */
  readonly location: string | undefined;

  constructor(reason: OutboundErrorReason, message: string, options: { cause?: unknown; status?: number; location?: string } = {}) {
    super(message, { cause: options.cause });
    this.name = "OutboundError";
    this.reason = reason;
    this.status = options.status;
    this.location = options.location;
  }
}

export type ResolvedAddress = { address: string; family: number };
type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export type SafeFetchOptions = {
  /** Name resolution; default is the system resolver (`dns.lookup`, all addresses). */
  resolver?: Resolver;
  /** Test-only: lets requests reach 127.0.0.0/8 and ::1, nothing else; `http:` stays refused. */
  allowLoopbackForTests?: boolean;
  /** Test-only: one extra trusted CA (PEM) added to Node's roots, for a self-signed local server. */
  trustedCa?: string | Buffer;
  userAgent?: string;
  /** Limit for TCP connect plus TLS handshake. */
  connectTimeoutMs?: number;
};

type SafeFetchRequest = {
  method?: string;
  /** `Host`, `Content-Length`, `Transfer-Encoding` and `Connection` are ours to set and are ignored here. */
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  maxBytes?: number;
  /** Total time for resolution, connect, request and the whole response body. */
  timeoutMs?: number;
  signal?: AbortSignal;
};

type SafeFetchResponse = { status: number; headers: Headers; body: Buffer };

export type SafeFetch = (url: string | URL, init?: SafeFetchRequest) => Promise<SafeFetchResponse>;

const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
/** Webhook responses are read only for logging; callers fetching images pass their own limit (30 MB). */
const DEFAULT_MAX_BYTES = 1024 * 1024;
const DEFAULT_USER_AGENT = "mail-ads-middleware/1 (+outbound)";

/** Framing and routing headers: a caller-chosen `Host` could address another virtual host on the pinned IP. */
const reservedHeaders = new Set(["host", "content-length", "transfer-encoding", "connection"]);

const systemResolver: Resolver = async (hostname) => {
  const answers = await dns.lookup(hostname, { all: true, verbatim: true });
  return answers.map(({ address, family }) => ({ address, family }));
};

type Target = {
  url: URL;
  /** Host name without IPv6 brackets or a trailing dot; what SNI and certificate checks use. */
  name: string;
  /** Set when the URL host is an IP literal: nothing is resolved, the literal itself is dialled. */
  literal: boolean;
};

function parseTarget(input: string | URL): Target {
  let url: URL;
  try {
    url = new URL(input);
  } catch (cause) {
    throw new OutboundError("invalid_url", "The URL cannot be parsed.", { cause });
  }
  if (url.protocol !== "https:") {
    throw new OutboundError("scheme_not_allowed", `Only https URLs are allowed, not ${url.protocol}`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new OutboundError("invalid_url", "URLs with credentials (user:password@) are not allowed.");
  }
  // WHATWG parsing has already turned every IPv4 spelling (`2130706433`, `0x7f000001`, `127.1`) into
  // dotted decimal and compressed IPv6, so the literal test below sees one canonical form.
  const bracketed = url.hostname.startsWith("[");
  const bare = bracketed ? url.hostname.slice(1, -1) : url.hostname;
  const literal = bracketed || /^\d{1,3}(\.\d{1,3}){3}$/.test(bare);
  return { url, name: literal ? bare : bare.replace(/\.$/, ""), literal };
}

/** RFC 6761: `localhost` and `*.localhost` are loopback by definition, whatever a resolver says. */
function isLocalhostName(name: string): boolean {
  return name === "localhost" || name.endsWith(".localhost");
}

function blocked(target: Target, detail: string): OutboundError {
  return new OutboundError("blocked_address", `${target.name} ${detail} that is not a public address.`);
}

/**
 * The checks that need no DNS. Returns the dialled address for an IP literal, or null when the name
 * still has to be resolved.
 */
function checkHost(target: Target, policy: AddressPolicy): CheckedAddress[] | null {
  if (target.literal) {
    const verdict = checkAddress(target.name, policy);
    if (!verdict.allowed) throw blocked(target, "is an IP address");
    return [{ address: verdict.address, family: verdict.family }];
  }
  if (isLocalhostName(target.name) && !policy.allowLoopback) throw blocked(target, "names a host");
  return null;
}

async function resolveChecked(target: Target, resolver: Resolver, policy: AddressPolicy): Promise<CheckedAddress[]> {
  const literal = checkHost(target, policy);
  if (literal) return literal;

  let answers: ResolvedAddress[];
  try {
    answers = await resolver(target.name);
  } catch (cause) {
    throw new OutboundError("dns_failure", `${target.name} could not be resolved.`, { cause });
  }
  if (answers.length === 0) throw new OutboundError("dns_failure", `${target.name} has no addresses.`);

  // Every answer must pass, not just the first: the OS may pick any of them, and one private answer
  // among public ones is the usual shape of a rebinding or split-horizon attack.
  const checked: CheckedAddress[] = [];
  for (const answer of answers) {
    const verdict = checkAddress(answer.address, policy);
    if (!verdict.allowed) throw blocked(target, "resolves to an address");
    checked.push({ address: verdict.address, family: verdict.family });
  }
  return checked;
}

/** A `lookup` for the socket that can only answer with addresses that were already checked. */
function pinnedLookup(name: string, addresses: readonly CheckedAddress[]): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    if (hostname !== name) {
      callback(new OutboundError("blocked_address", `Unexpected lookup for ${hostname}.`), "", 0);
      return;
    }
    const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
    const usable = addresses.filter((a) => wanted === 0 || a.family === wanted);
    const first = usable[0];
    if (!first) {
      callback(new OutboundError("dns_failure", `${name} has no IPv${wanted} address.`), "", 0);
      return;
    }
    // Node asks with `all: true` when it races address families (autoSelectFamily, on by default).
    if (options.all)
      callback(
        null,
        usable.map((a): LookupAddress => ({ address: a.address, family: a.family })),
      );
    else callback(null, first.address, first.family);
  };
}

/**
 * TLS failures have no common code prefix: Node's own are `ERR_TLS_*` / `ERR_SSL_*`, OpenSSL's
 * verification results mostly mention CERT (`DEPTH_ZERO_SELF_SIGNED_CERT`, `CERT_HAS_EXPIRED`), and
 * these two do neither.
 */
const otherTlsCodes = new Set(["UNABLE_TO_VERIFY_LEAF_SIGNATURE", "EPROTO"]);

function errorCode(error: unknown): string {
  if (typeof error === "object" && error !== null && "code" in error && typeof error.code === "string") {
    return error.code;
  }
  return "";
}

function toOutboundError(error: unknown, name: string): OutboundError {
  if (error instanceof OutboundError) return error;
  const code = errorCode(error);
  if (code.startsWith("ERR_TLS_") || code.startsWith("ERR_SSL_") || code.includes("CERT") || otherTlsCodes.has(code)) {
    return new OutboundError("tls_error", `TLS with ${name} failed (${code}).`, { cause: error });
  }
  return new OutboundError("connection_failed", `Connection to ${name} failed${code ? ` (${code})` : ""}.`, {
    cause: error,
  });
}

function responseHeaders(res: IncomingMessage): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    headers.append(res.rawHeaders[i] ?? "", res.rawHeaders[i + 1] ?? "");
  }
  return headers;
}

function requestHeaders(target: Target, init: SafeFetchRequest, userAgent: string, body: Buffer | undefined) {
  const headers: Record<string, string> = { "user-agent": userAgent, "accept-encoding": "identity" };
  for (const [key, value] of Object.entries(init.headers ?? {})) {
    if (!reservedHeaders.has(key.toLowerCase())) headers[key.toLowerCase()] = value;
  }
  // `url.host` keeps brackets and a non-default port, exactly what the server expects in Host.
  headers.host = target.url.host;
  if (body) headers["content-length"] = String(body.length);
  return headers;
}

type Exchange = {
  target: Target;
  addresses: readonly CheckedAddress[];
  init: SafeFetchRequest;
  maxBytes: number;
  signal: AbortSignal;
};

type Settings = { ca: string[] | undefined; userAgent: string; connectTimeoutMs: number };

function exchange({ target, addresses, init, maxBytes, signal }: Exchange, settings: Settings): Promise<SafeFetchResponse> {
  const body = init.body === undefined ? undefined : Buffer.from(init.body);
  return new Promise((resolve, reject) => {
    let settled = false;
    let connectTimer: NodeJS.Timeout | undefined;
    const finish = (outcome: { error: OutboundError } | { response: SafeFetchResponse }) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      signal.removeEventListener("abort", onAbort);
      if ("error" in outcome) {
        req.destroy();
        reject(outcome.error);
      } else {
        resolve(outcome.response);
      }
    };
    const fail = (error: unknown) => finish({ error: toOutboundError(error, target.name) });
    const onAbort = () => fail(signal.reason);

    const req = httpsRequest({
      // For an IP literal Node dials it directly and never calls `lookup`; the literal was checked.
      hostname: target.name,
      port: target.url.port === "" ? 443 : Number(target.url.port),
      path: `${target.url.pathname}${target.url.search}`,
      method: init.method ?? "GET",
      headers: requestHeaders(target, init, settings.userAgent, body),
      lookup: pinnedLookup(target.name, addresses),
      // SNI must not carry an IP address (RFC 6066); for names it is the name, never the pinned IP.
      servername: target.literal ? undefined : target.name,
      ca: settings.ca,
      // No pooling: a kept-alive socket would outlive the address check it was opened under.
      agent: false,
    });

    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) onAbort();

    req.on("socket", (socket) => {
      connectTimer = setTimeout(
        () => fail(new OutboundError("timeout", `Connecting to ${target.name} took longer than ${settings.connectTimeoutMs} ms.`)),
        settings.connectTimeoutMs,
      );
      socket.once("secureConnect", () => clearTimeout(connectTimer));
    });
    req.on("error", fail);

    req.on("response", (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        res.destroy();
        fail(
          new OutboundError("redirect_not_allowed", `${target.name} answered ${status}; redirects are not followed.`, {
            status,
            location: res.headers.location,
          }),
        );
        return;
      }
      const tooLarge = () => new OutboundError("too_large", `The response from ${target.name} exceeds ${maxBytes} bytes.`);
      const declared = Number(res.headers["content-length"]);
      if (Number.isFinite(declared) && declared > maxBytes) {
        res.destroy();
        fail(tooLarge());
        return;
      }
      const chunks: Buffer[] = [];
      let received = 0;
      res.on("data", (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxBytes) {
          res.destroy();
          fail(tooLarge());
          return;
        }
        chunks.push(chunk);
      });
      res.on("end", () => finish({ response: { status, headers: responseHeaders(res), body: Buffer.concat(chunks, received) } }));
      res.on("error", fail);
      res.on("close", () => {
        if (!res.complete) fail(new OutboundError("connection_failed", `${target.name} closed the connection mid-response.`));
      });
    });

    req.end(body);
  });
}

/** Resolves with `promise`, or rejects with the signal's reason as soon as it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) onAbort();
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function policyOf(options: Pick<SafeFetchOptions, "allowLoopbackForTests">): AddressPolicy {
  return { allowLoopback: options.allowLoopbackForTests === true };
}

/**
 * Validates a URL when a customer registers it (webhook endpoint, image URL) with every check that
 * needs no DNS: scheme, credentials, IP literals, `localhost`. Throws `OutboundError`. The full check,
 * including resolution, runs again on every `safeFetch`, because DNS answers change after registration.
 */
export function assertOutboundUrl(url: string | URL, options: Pick<SafeFetchOptions, "allowLoopbackForTests"> = {}): void {
  checkHost(parseTarget(url), policyOf(options));
}

export function createSafeFetch(options: SafeFetchOptions = {}): SafeFetch {
  const resolver = options.resolver ?? systemResolver;
  const policy = policyOf(options);
  const settings: Settings = {
    // Node's `ca` replaces the default roots; keep them so a test CA is added, not substituted.
    ca: options.trustedCa === undefined ? undefined : [...rootCertificates, options.trustedCa.toString()],
    userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
  };

  return async function safeFetch(input, init = {}) {
    const target = parseTarget(input);
    const timeoutMs = init.timeoutMs ?? DEFAULT_TIMEOUT_MS;

    // One controller carries both our deadline and the caller's cancel, each with its own reason.
    const controller = new AbortController();
    const deadline = setTimeout(() => controller.abort(new OutboundError("timeout", `${target.name} did not answer within ${timeoutMs} ms.`)), timeoutMs);
    const onCallerAbort = () => controller.abort(new OutboundError("aborted", "The request was cancelled.", { cause: init.signal?.reason }));
    if (init.signal?.aborted) onCallerAbort();
    init.signal?.addEventListener("abort", onCallerAbort, { once: true });

    try {
      const addresses = await untilAborted(resolveChecked(target, resolver, policy), controller.signal);
      return await exchange({ target, addresses, init, maxBytes: init.maxBytes ?? DEFAULT_MAX_BYTES, signal: controller.signal }, settings);
    } finally {
      clearTimeout(deadline);
      init.signal?.removeEventListener("abort", onCallerAbort);
    }
  };
}
