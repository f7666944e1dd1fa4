import { bootFailureResponse, sharedRuntime, type Runtime } from "./bootstrap";
import { errorBody, noEndpointError } from "./core/errors";
import type { RuntimeDeps } from "./runtime";

type FunctionGroup = "mail" | "ads" | "admin" | "api" | "console" | "media";

/** The paths a function serves (the image function: the image routes of mail, ads, admin and console). */
const prefixes: Record<FunctionGroup, string[]> = {
  mail: ["/mail/"],
  ads: ["/ads/"],
  admin: ["/admin/"],
  api: ["/api/"],
  console: ["/console"],
  media: ["/mail/", "/ads/", "/admin/", "/console"],
};

type Served = { fetch(request: Request, env?: unknown): Response | Promise<Response> };

/**
 * The body of every function entry (lib/functions/<name>.ts, bundled to dist/functions/<name>.js, which
 * api/<name>.js exports): a runtime booted on the first request around the app `build` makes (only the
 * function's own app and the deps it needs, so a cold start loads and builds nothing else), restricted to
 * the group's prefixes so a function never serves another group's paths by accident.
 */
export function functionHandler<App>(
  group: FunctionGroup,
  build: (deps: RuntimeDeps) => App,
  served: (app: App) => Served,
): (request: Request) => Promise<Response> {
  const runtimeOnce = sharedRuntime(build, served);
  return async (request) => {
    const { pathname } = new URL(request.url);
    if (!prefixes[group].some((prefix) => pathname.startsWith(prefix))) {
      const requestId = crypto.randomUUID();
      const surface = group === "api" ? "internal" : group === "console" || group === "media" ? "admin" : group;
      const body = errorBody(noEndpointError(request.method, pathname), surface, requestId);
      return Response.json(body, { status: 404, headers: { "X-Request-Id": requestId, "X-Content-Type-Options": "nosniff" } });
    }
    let runtime: Runtime<App>;
    try {
      runtime = await runtimeOnce();
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
