import type { Service } from "./operations.js";

/** The fetch the server calls the services with: the global one, the client's resilient one, or an app's own. */
export type Fetch = (input: Request) => Promise<Response>;

export type ApiCall = {
  service: Service;
  method: string;
  /** The path under the service, e.g. `/v1/templates/{id}`; `{name}` filled from `pathParams`. */
  path: string;
  pathParams?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
  idempotencyKey?: string;
};

/** The error envelope every service answers with: `{ error: { code, message, details }, request_id }`. */
export type ApiErrorBody = { code: string; message: string; details: unknown };

export type ApiResult = { ok: true; status: number; body: unknown } | { ok: false; status: number; error: ApiErrorBody; requestId: string | null };

/** One call to a service of the deployment at `baseUrl`, with `token` as the bearer. Never throws. */
export async function callApi(fetch: Fetch, baseUrl: string, token: string, call: ApiCall): Promise<ApiResult> {
  let path = call.path;
  for (const [name, value] of Object.entries(call.pathParams ?? {})) path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
  const url = new URL(`${baseUrl.replace(/\/+$/, "")}/${call.service}${path}`);
  for (const [name, value] of Object.entries(call.query ?? {})) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(item));
  }
  const headers = new Headers({ Authorization: `Bearer ${token}`, Accept: "application/json" });
  if (call.body !== undefined) headers.set("Content-Type", "application/json");
  if (call.idempotencyKey) headers.set("Idempotency-Key", call.idempotencyKey);
  let response: Response;
  try {
    response = await fetch(new Request(url, { method: call.method, headers, body: call.body === undefined ? undefined : JSON.stringify(call.body) }));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, status: 0, error: { code: "network_error", message: `The service could not be reached: ${message}`, details: [] }, requestId: null };
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === "" ? null : JSON.parse(text);
  } catch {
    // Not JSON: handed on as text.
  }
  if (response.ok) return { ok: true, status: response.status, body };
  const envelope = body as { error?: Partial<ApiErrorBody>; request_id?: string } | null;
  const error = envelope?.error;
  return {
    ok: false,
    status: response.status,
    error: {
      code: typeof error?.code === "string" ? error.code : `http_${response.status}`,
      message: typeof error?.message === "string" ? error.message : `The service answered ${response.status}.`,
      details: error?.details ?? [],
    },
    requestId: envelope?.request_id ?? response.headers.get("x-request-id"),
  };
}

/** JSON with its object keys sorted at every depth: equal arguments give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, inner]) => inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * The Idempotency-Key of a tool call without one: a digest of the tool's name and its arguments, so an
 * agent that retries a call (after a timeout, a lost answer, a restart) sends the same request and the
 * service answers it once.
 */
export async function derivedIdempotencyKey(tool: string, args: unknown): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${tool}\n${canonicalJson(args)}`));
  const hex = Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `mcp-${hex.slice(0, 48)}`;
}
