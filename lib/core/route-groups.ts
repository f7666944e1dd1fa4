import { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { SmartRouter } from "hono/router/smart-router";
import { TrieRouter } from "hono/router/trie-router";
import type { AppEnv } from "./context";

/*
 * Route groups registered at their first request (a cold start builds only the schemas of the
 * group it serves). The one way the service apps wire their routes. Invariants:
 * - A group declares the path prefixes it serves (`/v1/templates`; `*` stands for one segment) and a `load`
 *   that imports its module with `import()`, so the bundle puts the group (its zod schemas, OpenAPI route
 *   definitions and handlers) in a chunk of its own. Every route a group registers lies under one of its
 *   prefixes (tests/foundation/route-groups.test.ts checks it for every group of the three apps).
 * - The first middleware of the app (`loadRouteGroups`, before the request id, body limits and
 *   authentication) loads every group whose prefix covers the request's path and is not loaded yet, then
 *   answers the request by dispatching it again through the app: the request then meets the whole
 *   middleware chain exactly once, with the group's routes in place. Nothing of the request was read before.
 * - Routes are kept in the order an eager registration would give (the app's own routes up to
 *   `routes.place(app)`, the groups in their declared order, then the app's later routes), and the router is
 *   rebuilt in that order after each load, so which handlers a path meets, and in which order, is what it
 *   was with every group registered at start: a path only meets routes of groups whose prefix covers it,
 *   and those are all loaded before it is routed. 404 and 405 answers are therefore unchanged.
 * - The OpenAPI documents register the eager routes and every group, in their declared order, into a
 *   router of their own (`registerAll`), so a document is the same whatever requests came first.
 */

type Router = OpenAPIHono<AppEnv>;
type Register<D> = (router: Router, deps: D) => void;

export type RouteGroup<D> = {
  /** Path prefixes under the app's mount (`/v1/templates`, `/v1/customers/*\/keys`): a path equal to one or below it needs the group. */
  paths: readonly string[];
  /** Imports the group's module (`import()`, so it is a chunk of its own) and names its register function. */
  load: () => Promise<Register<D>>;
};

type Slot = { kind: "before" } | { kind: "group"; index: number } | { kind: "after" };
type RouteEntry = Router["routes"][number];

export type LazyRoutes = {
  /** The middleware `createServiceApp` installs first. */
  loader: MiddlewareHandler<AppEnv>;
  /** Marks where the groups sit among the app's routes: call it where they would have been registered. */
  place(app: Router): void;
  /** Every group registered into `router` in the declared order (for the OpenAPI documents). */
  registerAll(router: Router): Promise<void>;
};

function segmentsOf(path: string): string[] {
  return path.split("/").filter((segment, i) => i > 0 || segment !== "");
}

function covers(prefix: string[], path: string[]): boolean {
  if (path.length < prefix.length) return false;
  return prefix.every((segment, i) => segment === "*" || segment === path[i]);
}

function freshRouter(routes: RouteEntry[]): Router["router"] {
  const router = new SmartRouter<[RouteEntry["handler"], RouteEntry]>({ routers: [new RegExpRouter(), new TrieRouter()] });
  for (const route of routes) router.add(route.method, route.path, [route.handler, route]);
  return router as Router["router"];
}

export function lazyRouteGroups<D>(deps: D, groups: readonly RouteGroup<D>[]): LazyRoutes {
  const prefixes = groups.map((group) => group.paths.map(segmentsOf));
  const loading: (Promise<Register<D>> | null)[] = groups.map(() => null);
  const loaded = groups.map(() => false);
  let unloaded = groups.length;
  const slots = new WeakMap<RouteEntry, Slot>();
  let app: Router | null = null;

  function slotOf(route: RouteEntry): Slot {
    return slots.get(route) ?? { kind: "after" };
  }
  function rank(slot: Slot): number {
    return slot.kind === "before" ? -1 : slot.kind === "group" ? slot.index : groups.length;
  }

  /** Registers a loaded group into the app and rebuilds its router in the eager order (synchronous: no request routes in between). */
  function install(target: Router, index: number, register: Register<D>): void {
    if (loaded[index]) return;
    const before = target.routes.length;
    // A router that has answered a request is built and takes no more routes: a fresh one, same routes.
    target.router = freshRouter(target.routes);
    register(target, deps);
    for (const route of target.routes.slice(before)) slots.set(route, { kind: "group", index });
    const ordered = target.routes
      .map((route, position) => ({ route, position }))
      .sort((a, b) => rank(slotOf(a.route)) - rank(slotOf(b.route)) || a.position - b.position)
      .map(({ route }) => route);
    target.routes.splice(0, target.routes.length, ...ordered);
    target.router = freshRouter(ordered);
    loaded[index] = true;
    unloaded -= 1;
  }

  function load(index: number): Promise<Register<D>> {
    const group = groups[index] as RouteGroup<D>;
    let pending = loading[index];
    if (!pending) {
      pending = group.load();
      loading[index] = pending;
      // A failed import (a missing chunk) is tried again by the next request.
      pending.catch(() => {
        loading[index] = null;
      });
    }
    return pending;
  }

  const loader: MiddlewareHandler<AppEnv> = async (c, next) => {
    const target = app;
    // Every group in place (a warm process): nothing to look at.
    if (!target || unloaded === 0) return next();
    const path = segmentsOf(c.req.path);
    const needed: number[] = [];
    for (let i = 0; i < groups.length; i++) {
      if (!loaded[i] && (prefixes[i] as string[][]).some((prefix) => covers(prefix, path))) needed.push(i);
    }
    if (needed.length === 0) return next();
    const registers = await Promise.all(needed.map(load));
    for (const [i, index] of needed.entries()) install(target, index, registers[i] as Register<D>);
    let executionCtx: Parameters<Router["fetch"]>[2];
    try {
      executionCtx = c.executionCtx;
    } catch {
      executionCtx = undefined; // none outside a platform that gives one
    }
    // Again through the whole app: this dispatch only loaded the groups; the request is answered as if they had always been there.
    return target.fetch(c.req.raw, c.env, executionCtx);
  };

  return {
    loader,
    place(target) {
      app = target;
      for (const route of target.routes) slots.set(route, { kind: "before" });
    },
    async registerAll(router) {
      const registers = await Promise.all(groups.map((_, index) => load(index)));
      for (const register of registers) register(router, deps);
    },
  };
}

/** A router that only collects route definitions (for a document): no middleware, never dispatched. */
export function documentRouter(): Router {
  return new OpenAPIHono<AppEnv>();
}
