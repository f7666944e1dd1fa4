import { z, type OpenAPIHono, type RouteConfig, type RouteHandler } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../../core/context";
import { ValidationError } from "../../core/errors";
import { idPathParam } from "../../core/openapi";

export type AdsRouter = OpenAPIHono<AppEnv>;

/** `/v1/adsets` -> `/v1/platform/adsets`: the alias form of the spec, served but not documented twice. */
function aliasPath(path: string): string {
  return path.replace(/^\/v1\//, "/v1/platform/");
}

/**
 * Registers a route under its canonical path and its `/v1/platform/…` alias (DESIGN §5). The alias is
 * hidden from the OpenAPI document; the API description states it once for every group.
 */
export function openapiWithAlias<R extends RouteConfig>(router: AdsRouter, route: R, handler: RouteHandler<R, AppEnv>): void {
  router.openapi(route, handler);
  router.openapi({ ...route, path: aliasPath(route.path), hide: true }, handler as never);
}

/** `limit`/`offset` of the ads spec: default 25, at most 100; offset from 0. */
export const offsetQuery = {
  limit: z.coerce.number().int().min(1).max(100).default(25).openapi({ description: "Page size, 1–100.", example: 25 }),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0).openapi({ description: "Items to skip, 0–1,000,000.", example: 0 }),
};

export const idParam = (what: string) => idPathParam(`Id of the ${what} (UUID).`, "0f8fad5b-d9cb-469f-a165-70867728950e");

function has(body: unknown, path: readonly string[]): boolean {
  let value = body;
  for (const key of path) {
    if (value === null || typeof value !== "object" || Array.isArray(value) || !Object.hasOwn(value, key)) return false;
    value = (value as Record<string, unknown>)[key];
  }
  return true;
}

/**
 * Fields the target configuration sets. Sending one is a 422 with `details.locked_fields` listing every
 * one sent; this runs before the body schema so the answer names them instead of "unrecognized key".
 */
export function rejectLockedFields(paths: readonly string[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      // Malformed or missing JSON is the body validator's 400.
      return next();
    }
    const sent = paths.filter((path) => has(body, path.split(".")));
    if (sent.length > 0) {
      throw new ValidationError(`Locked fields are set by the target configuration and cannot be sent: ${sent.join(", ")}.`, { locked_fields: sent });
    }
    await next();
  };
}
