import { OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { ADMIN_OPERATION, type AdminOperation, adminRoute } from "../../lib/admin/access";
import { adminRouteGroups } from "../../lib/admin/routes";
import type { AppEnv } from "../../lib/core/context";
import { lazyRouteGroups } from "../../lib/core/route-groups";

/*
 * The audit log names an operation and its target from the answering route's own declaration (`adminRoute`):
 * checked here over every operator route of every group, against the OpenAPI document's definitions.
 */

type Registered = RouteConfig & { "x-operation-kind"?: string };

async function everyRoute() {
  const router = new OpenAPIHono<AppEnv>();
  await lazyRouteGroups({ ads: {} } as never, adminRouteGroups).registerAll(router);
  const definitions = router.openAPIRegistry.definitions.flatMap((definition) => (definition.type === "route" ? [definition.route as Registered] : []));
  // The declaration rides on the route's role check: one per method and path as the router sees it.
  const carried = new Map<string, AdminOperation>();
  for (const route of router.routes) {
    const operation = (route.handler as unknown as Record<symbol, AdminOperation | undefined>)[ADMIN_OPERATION];
    if (operation) carried.set(`${route.method} ${route.path}`, operation);
  }
  return { definitions, carried };
}

const routerPath = (path: string) => path.replaceAll(/\{([^}]+)\}/g, ":$1");
const parametersOf = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((found) => found[1]);

describe("admin audit declarations", () => {
  it("every operator route carries its operation, named by the OpenAPI operationId, with one target name per path parameter", async () => {
    const { definitions, carried } = await everyRoute();
    expect(definitions.length).toBeGreaterThan(90);
    for (const route of definitions) {
      const operation = carried.get(`${route.method.toUpperCase()} ${routerPath(route.path)}`);
      const label = `${route.method.toUpperCase()} ${route.path}`;
      expect(operation, label).toBeDefined();
      expect(operation?.operationId, label).toBe(route.operationId);
      expect(operation?.kind, label).toBe(route["x-operation-kind"]);
      expect(
        operation?.targets.map((t) => t.param),
        label,
      ).toEqual(parametersOf(route.path));
      for (const { name } of operation?.targets ?? []) expect(name, label).toMatch(/^[a-z]+(_[a-z]+)*$/);
    }
  });

  it("every write declares its audit target; a create names the resource it makes", async () => {
    const { definitions, carried } = await everyRoute();
    const writes = definitions.filter((route) => route["x-operation-kind"] === "write");
    expect(writes.length).toBeGreaterThan(40);
    const creates: string[] = [];
    for (const route of writes) {
      const operation = carried.get(`${route.method.toUpperCase()} ${routerPath(route.path)}`) as AdminOperation;
      if (operation.creates !== null) {
        expect(route.method, route.path).toBe("post");
        expect(route.path, route.path).not.toMatch(/\}$/);
        creates.push(`${operation.operationId}:${operation.creates}`);
      }
    }
    expect(creates).toEqual(expect.arrayContaining(["createCustomer:customer", "issueApiKey:key", "createOperator:operator", "issueOperatorToken:token"]));
  });

  it("a write, a secret read or a route with path parameters without its audit target is refused where it is defined", () => {
    const deps = {} as never;
    const route = (method: "get" | "post", path: string) => ({ method, path, operationId: "probe", responses: { 200: { description: "ok" } } }) as const;
    expect(() => adminRoute(deps, "admin", route("post", "/v1/probes"))).toThrow(/declares its audit target/);
    expect(() => adminRoute(deps, "admin", route("post", "/v1/probes/reveal"), { revealsSecret: "probe" })).toThrow(/declares its audit target/);
    expect(() => adminRoute(deps, "support", route("get", "/v1/probes/{id}"))).toThrow(/declares its audit target/);
    expect(() => adminRoute(deps, "admin", route("post", "/v1/probes/{id}/runs"), { target: [] })).toThrow(/names 0 parameters; the path has 1/);
    expect(() => adminRoute(deps, "admin", route("post", "/v1/probes/{id}/runs"), { target: ["probe"], creates: "run" })).not.toThrow();
    expect(() => adminRoute(deps, "support", route("get", "/v1/probes"))).not.toThrow();
  });
});
