import { sharedRuntime } from "./bootstrap";

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
      return Response.json({ error: { code: "not_found", message: `No endpoint ${request.method} ${pathname}.`, details: [] } }, { status: 404 });
    }
    const runtime = await sharedRuntime();
    return runtime.app.root.fetch(request);
  };
}
