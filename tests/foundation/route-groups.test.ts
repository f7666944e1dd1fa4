import { readFileSync } from "node:fs";
import { OpenAPIHono } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { requireDeclaredRoles } from "../../lib/admin/access";
import { adminRouteGroups } from "../../lib/admin/routes";
import { adsRouteGroups } from "../../lib/ads/routes";
import type { AppEnv } from "../../lib/core/context";
import { lazyRouteGroups, type RouteGroup } from "../../lib/core/route-groups";
import { mailRouteGroups } from "../../lib/mail/routes";

/*
 * The one wiring style of the three service apps (README "Cold starts"): route groups registered at their
 * first request (lib/core/route-groups.ts). Checked here: no app or route index imports a group statically
 * (so the bundle keeps each group in its own chunk); every route a group registers lies under one of the
 * prefixes it declares (otherwise a request could reach the app before its group is loaded); and the
 * loader's guarantees on a small app of its own (loaded on first use, once; the middleware chain run once
 * per request; the routes' order as if registered eagerly; a failed import tried again).
 */

const APPS: { name: string; app: string; index: string; groups: readonly RouteGroup<never>[] }[] = [
  { name: "mail", app: "lib/mail/app.ts", index: "lib/mail/routes/index.ts", groups: mailRouteGroups as RouteGroup<never>[] },
  { name: "ads", app: "lib/ads/app.ts", index: "lib/ads/routes/index.ts", groups: adsRouteGroups as RouteGroup<never>[] },
  { name: "admin", app: "lib/admin/app.ts", index: "lib/admin/routes/index.ts", groups: adminRouteGroups as RouteGroup<never>[] },
];

function segments(path: string): string[] {
  return path.split("/").filter(Boolean);
}

/** Whether a route's path (`/v1/templates/:id`) lies at or below a declared prefix (`*` one segment). */
function under(route: string, prefix: string): boolean {
  const r = segments(route);
  const p = segments(prefix);
  return r.length >= p.length && p.every((segment, i) => segment === "*" || segment === r[i]);
}

describe.each(APPS)("$name: route groups", ({ app, index, groups }) => {
  it("the app and its route index import no group statically: only `import type` and the loader's `import()`", () => {
    const staticImports = (file: string, from: RegExp) =>
      [...readFileSync(file, "utf8").matchAll(/^import (?!type )[^;]*from "([^"]+)";/gm)].map((m) => m[1] as string).filter((path) => from.test(path));
    expect(staticImports(app, /^\.\/routes\/./)).toEqual([]);
    expect(staticImports(index, /^\.\//)).toEqual([]);
    expect(readFileSync(app, "utf8")).not.toMatch(/\bregister\w+Routes\(app\b/);
    expect(readFileSync(app, "utf8")).toMatch(/lazyRouteGroups\(/);
    expect(readFileSync(index, "utf8")).toMatch(/await import\("\.\//);
  });

  it("every route of a group lies under one of the group's declared prefixes", async () => {
    let total = 0;
    for (const group of groups) {
      const router = new OpenAPIHono<AppEnv>();
      (await group.load())(router, {} as never);
      expect(router.routes.length, group.paths.join(", ")).toBeGreaterThan(0);
      for (const route of router.routes) {
        total++;
        expect(
          group.paths.some((prefix) => under(route.path, prefix)),
          `${route.method} ${route.path} is outside ${group.paths.join(", ")}`,
        ).toBe(true);
      }
    }
    expect(total).toBeGreaterThan(10);
  });
});

it("admin: every operator route of every group declares its role", async () => {
  const router = new OpenAPIHono<AppEnv>();
  await lazyRouteGroups({ ads: {} } as never, adminRouteGroups).registerAll(router);
  expect(() => requireDeclaredRoles(router)).not.toThrow();
  expect(router.openAPIRegistry.definitions.filter((definition) => definition.type === "route").length).toBeGreaterThan(50);
});

describe("the loader", () => {
  function setup(failFirst = false) {
    const imported: string[] = [];
    let failures = failFirst ? 1 : 0;
    const group = (name: string, paths: string[], register: (router: OpenAPIHono<AppEnv>) => void): RouteGroup<null> => ({
      paths,
      load: async () => {
        if (failures-- > 0) throw new Error("chunk missing");
        imported.push(name);
        return register;
      },
    });
    const routes = lazyRouteGroups(null, [
      // Eagerly, A's `/v1/things/:id` came first and also matched `/v1/things/special`.
      group("A", ["/v1/things"], (r) => {
        r.get("/v1/things/:id", (c) => c.text(`A ${c.req.param("id")}`));
      }),
      group("B", ["/v1/other", "/v1/things/special"], (r) => {
        r.get("/v1/other", (c) => c.text("B"));
        r.get("/v1/things/special", (c) => c.text("B special"));
      }),
    ]);
    const app = new OpenAPIHono<AppEnv>();
    let chainRuns = 0;
    app.use("*", routes.loader);
    app.use("*", async (_c, next) => {
      chainRuns++;
      await next();
    });
    routes.place(app);
    app.get("/v1/health", (c) => c.text("ok"));
    app.notFound((c) => c.text("none", 404));
    app.onError((error, c) => c.text(error.message, 500));
    return { app, imported, runs: () => chainRuns };
  }

  it("imports a group at its first request only, runs the chain once per request, and keeps the eager order", async () => {
    const { app, imported, runs } = setup();
    expect(await (await app.request("/v1/health")).text()).toBe("ok");
    expect(imported).toEqual([]);
    // B first (its own path), A later: `/v1/things/special` still answers as A-then-B registered eagerly would.
    expect(await (await app.request("/v1/other")).text()).toBe("B");
    expect(imported).toEqual(["B"]);
    expect(await (await app.request("/v1/things/special")).text()).toBe("A special");
    expect(await (await app.request("/v1/things/7")).text()).toBe("A 7");
    expect(imported).toEqual(["B", "A"]);
    expect((await app.request("/v1/nothing")).status).toBe(404);
    expect(runs()).toBe(5);
  });

  it("two first requests at once import the group once; a failed import is tried again", async () => {
    const { app, imported } = setup(true);
    expect((await app.request("/v1/other")).status).toBe(500);
    const answers = await Promise.all([app.request("/v1/other"), app.request("/v1/other")]);
    expect(await Promise.all(answers.map((r) => r.text()))).toEqual(["B", "B"]);
    expect(imported).toEqual(["B"]);
  });
});
