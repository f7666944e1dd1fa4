import createClient, { type Client, type ClientOptions, type FetchOptions } from "openapi-fetch";
import { type AdsErrorObject, type ApiError, apiErrorOf, type MailErrorObject, parseRetryAfter } from "./errors.js";
import type { paths as AdsPaths } from "./types/ads.js";
import type { paths as MailPaths } from "./types/mail.js";
import { type AdsWebhookEvent, type MailWebhookEvent, type RawBody, type VerifyWebhookOptions, verifyWebhook, type WebhookHeaders } from "./webhooks.js";

export type RetryOptions = {
  /** Retries after the first attempt (default 3); 0 turns retrying off. */
  retries?: number;
  /** First backoff in ms without `Retry-After` (default 500), doubled per attempt, with full jitter. */
  baseDelayMs?: number;
  /** Largest backoff in ms without `Retry-After` (default 20,000). */
  maxDelayMs?: number;
  /** A `Retry-After` longer than this (ms, default 60,000) is not waited for: the answer is returned as it is. */
  maxRetryAfterMs?: number;
};

export type ServiceClientOptions = Omit<ClientOptions, "baseUrl"> & {
  /** The service's base URL, e.g. `https://api.example.com/mail/v1`. */
  baseUrl: string;
  /** The customer's API key for that service. */
  apiKey: string;
  /** Retries on 429 and 503 (honouring `Retry-After`) and on network errors; `false` turns them off. */
  retry?: RetryOptions | false;
  /** Sends a generated `Idempotency-Key` (UUID) with every POST, PUT and PATCH that has none (default true). */
  idempotencyKeys?: boolean;
};

const WRITES = new Set(["POST", "PUT", "PATCH"]);
const RETRIED_STATUSES = new Set([429, 503]);

const sleep = (ms: number, signal: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });

/**
 * The fetch every call goes through. A write gets an `Idempotency-Key` unless it has one, so a retried
 * write is the same request to the service (answered once, replayed after). 429 and 503 are retried after
 * `Retry-After` (or exponential backoff with full jitter); a network error is retried for a GET or a write
 * with a key. Each attempt sends a clone of the request, the same headers and body.
 */
export function resilientFetch(
  base: (input: Request, init?: RequestInit) => Promise<Response>,
  retry: RetryOptions | false | undefined,
  idempotencyKeys: boolean,
): (input: Request, init?: RequestInit) => Promise<Response> {
  const options = retry === false ? { retries: 0 } : (retry ?? {});
  const retries = options.retries ?? 3;
  const baseDelay = options.baseDelayMs ?? 500;
  const maxDelay = options.maxDelayMs ?? 20_000;
  const maxRetryAfter = options.maxRetryAfterMs ?? 60_000;
  // `init`: what openapi-fetch passes beside the request (e.g. Node's `dispatcher`), handed on unchanged.
  return async (input: Request, init?: RequestInit) => {
    let request = input;
    const write = WRITES.has(request.method.toUpperCase());
    if (write && idempotencyKeys && !request.headers.has("idempotency-key")) {
      const headers = new Headers(request.headers);
      headers.set("Idempotency-Key", crypto.randomUUID());
      request = new Request(request, { headers });
    }
    const retriable = !write || request.headers.has("idempotency-key");
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= retries;
      const backoff = Math.min(maxDelay, baseDelay * 2 ** attempt) * Math.random();
      let response: Response;
      try {
        response = await base(last ? request : request.clone(), init);
      } catch (error) {
        if (last || !retriable || request.signal?.aborted) throw error;
        await sleep(backoff, request.signal);
        continue;
      }
      if (last || !RETRIED_STATUSES.has(response.status)) return response;
      const retryAfter = parseRetryAfter(response.headers.get("retry-after"));
      const wait = retryAfter === null ? backoff : retryAfter * 1000;
      if (wait > maxRetryAfter) return response;
      await response.body?.cancel().catch(() => undefined);
      await sleep(wait, request.signal);
    }
  };
}

/** The documents' paths start with `/v1`, which the base URL already ends in. */
function clientOptions({ baseUrl, apiKey, headers, retry, idempotencyKeys, fetch, ...rest }: ServiceClientOptions): ClientOptions {
  const base: (input: Request, init?: RequestInit) => Promise<Response> = fetch ?? ((request, init) => globalThis.fetch(request, init));
  return {
    ...rest,
    baseUrl: baseUrl.replace(/\/+$/, "").replace(/\/v1$/, ""),
    headers: { ...(headers as Record<string, string> | undefined), Authorization: `Bearer ${apiKey}` },
    fetch: resilientFetch(base, retry, idempotencyKeys ?? true),
  };
}

type GetOperation<P, K extends keyof P> = P[K] extends { get: infer O } ? O : never;
type QueryKeys<O> = O extends { parameters: { query?: infer Q } } ? keyof NonNullable<Q> : never;
/** The GET paths that page: a cursor (`after`, answers with `paging`) or an offset (`offset` and `limit`). */
export type ListPath<P> = { [K in keyof P]-?: [Extract<QueryKeys<GetOperation<P, K>>, "after" | "offset">] extends [never] ? never : K }[keyof P];
/** One item of a list's `data`. */
export type ListItem<P, K extends keyof P> =
  GetOperation<P, K> extends { responses: { 200: { content: { "application/json": { data: (infer I)[] } } } } } ? I : never;
type ListInit<P, K extends keyof P> = FetchOptions<GetOperation<P, K>>;

type Page = { data: unknown[]; paging?: { after: string | null; has_next: boolean } };

async function* iterate<P extends {}, E extends MailErrorObject | AdsErrorObject>(
  client: Client<P>,
  path: string,
  init: { params?: { query?: Record<string, unknown>; path?: Record<string, unknown> } } & Record<string, unknown> = {},
): AsyncGenerator<unknown, void, undefined> {
  const query: Record<string, unknown> = { ...init.params?.query };
  const limit = typeof query.limit === "number" ? query.limit : undefined;
  const get = client.GET as unknown as (path: string, init: unknown) => Promise<{ data?: Page; error?: unknown; response: Response }>;
  for (;;) {
    const { data, error, response } = await get(path, { ...init, params: { ...init.params, query } });
    if (!response.ok || !data) throw apiErrorOf<E>(error, response);
    yield* data.data;
    if (data.paging) {
      // Cursor list: follow `paging.after` while `has_next`.
      if (!data.paging.has_next || !data.paging.after) return;
      query.after = data.paging.after;
    } else {
      // Offset list: the next page starts after what came; a short or empty page is the last.
      if (data.data.length === 0 || (limit !== undefined && data.data.length < limit)) return;
      query.offset = (typeof query.offset === "number" ? query.offset : 0) + data.data.length;
    }
  }
}

type Result<T> = { data?: T; error?: unknown; response: Response };

export type ServiceClient<P extends {}, E extends MailErrorObject | AdsErrorObject, W = unknown> = Client<P> & {
  /**
   * Every item of a list, page after page (cursor lists follow `paging.after`, offset lists advance
   * `offset`), as an async iterator: `for await (const template of mail.paginate("/v1/templates")) …`.
   * Throws `ApiError` on an error answer.
   */
  paginate<K extends ListPath<P>>(path: K, init?: ListInit<P, K>): AsyncGenerator<ListItem<P, K>, void, undefined>;
  /** The `data` of a call's answer, or throws its `ApiError` (`e.error` is the service's union keyed by `code`). */
  unwrap<T>(call: Promise<Result<T>>): Promise<T>;
  /** The typed `ApiError` of an answer taken the openapi-fetch way: `const { error, response } = await mail.GET(…)`. */
  errorOf(error: unknown, response: Response): ApiError<E>;
  /**
   * Verifies one of this service's webhook deliveries and returns its event, typed as this service's events
   * (mail: the union keyed by `event`; ads: keyed by `type`), so a `switch` narrows without a type argument.
   * Pass the raw body as received, the request's headers and the endpoint's `signing_secret`; throws
   * `WebhookVerificationError` otherwise. The same check as the standalone `verifyWebhook`.
   */
  verifyWebhook(rawBody: RawBody, headers: WebhookHeaders, secret: string, options?: VerifyWebhookOptions): Promise<W>;
};

function extend<P extends {}, E extends MailErrorObject | AdsErrorObject, W>(client: Client<P>): ServiceClient<P, E, W> {
  const extended = client as ServiceClient<P, E, W>;
  extended.verifyWebhook = (rawBody, headers, secret, options) => verifyWebhook(rawBody, headers, secret, options) as Promise<W>;
  extended.paginate = ((path: string, init?: Record<string, unknown>) => iterate<P, E>(client, path, init)) as ServiceClient<P, E, W>["paginate"];
  extended.unwrap = async <T>(call: Promise<Result<T>>): Promise<T> => {
    const { data, error, response } = await call;
    if (!response.ok || error !== undefined) throw apiErrorOf<E>(error, response);
    return data as T;
  };
  extended.errorOf = (error: unknown, response: Response) => apiErrorOf<E>(error, response);
  return extended;
}

export type MailClient = ServiceClient<MailPaths, MailErrorObject, MailWebhookEvent>;
export type AdsClient = ServiceClient<AdsPaths, AdsErrorObject, AdsWebhookEvent>;

/** The mail service's client; `baseUrl` ends in `/mail/v1`, paths are written as the document names them (`/v1/…`). */
export function createMailClient(options: ServiceClientOptions): MailClient {
  return extend<MailPaths, MailErrorObject, MailWebhookEvent>(createClient<MailPaths>(clientOptions(options)));
}

/** The ads service's client; `baseUrl` ends in `/ads/v1`. */
export function createAdsClient(options: ServiceClientOptions): AdsClient {
  return extend<AdsPaths, AdsErrorObject, AdsWebhookEvent>(createClient<AdsPaths>(clientOptions(options)));
}
