import { bootFailureResponse, sharedRuntime, type Runtime } from "./bootstrap";
import { errorBody, noEndpointError } from "./core/errors";

export type FunctionGroup = "mail" | "ads" | "admin" | "api" | "console";

const prefixes: Record<FunctionGroup, string> = { mail: "/mail/", ads: "/ads/", admin: "/admin/", api: "/api/", console: "/console" };

/**
 * The body of every `api/*.ts` entry: the shared runtime's root app, restricted to the group's prefix so
 * a function never serves another group's paths by accident.
 */
export function functionHandler(group: FunctionGroup): (request: Request) => Promise<Response> {
  return async (request) => {
    const { pathname } = new URL(request.url);
    if (!pathname.startsWith(prefixes[group])) {
      const requestId = crypto.randomUUID();
      const body = errorBody(noEndpointError(request.method, pathname), group === "api" ? "internal" : group === "console" ? "admin" : group, requestId);
      return Response.json(body, { status: 404, headers: { "X-Request-Id": requestId } });
    }
    let runtime: Runtime;
    try {
      runtime = await sharedRuntime();
    } catch (error) {
      // The next request boots again (`sharedRuntime` forgets a failed start).
      return bootFailureResponse(error, request);
    }
    const response = await runtime.fetch(request);
    if (runtime.tracing) afterResponse(runtime.tracing.flush());
    return response;
  };
}

/**
 * Work the platform keeps the instance alive for after the response (Vercel's request context, as
 * `@vercel/functions`' `waitUntil` reads it): here the export of the request's spans, which would otherwise
 * wait in the batch processor of a frozen instance.
 */
function afterResponse(work: Promise<void>): void {
  const requestContext = (globalThis as { [key: symbol]: { get?: () => { waitUntil?: (p: Promise<unknown>) => void } } | undefined })[
    Symbol.for("@vercel/request-context")
  ];
  const guarded = work.catch(() => undefined);
  requestContext?.get?.()?.waitUntil?.(guarded);
}
