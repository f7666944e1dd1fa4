import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";

/*
 * What a route declares about itself, read by the app's middleware before the route's own middleware runs.
 * A declaration rides on one of the route's middleware functions (a property under a symbol key), so it is
 * written once where the route is defined (`serviceRoute`, `adminRoute`, `declaredRoute`) and found by the
 * router's own match: the declaration of a request is the one on the first matched route that carries one,
 * which is the route that answers it (Hono runs matched routes in registration order and the first handler
 * ends the chain). A path no route matches has none: it is treated as an authenticated JSON route, the
 * strictest reading, and answered 404/405 after authentication as before.
 */

/** Options a route declares where it is defined. */
export type RouteOptions = {
  /** Answers without a credential (the documents, a signed upload URL that is its own credential). */
  public?: boolean;
  /** The body is not JSON: the route reads it as a stream and caps it itself (413 past its own limit). */
  rawBody?: boolean;
  /** A POST served as a priority request: background database work pauses while it runs (lib/db/priority.ts). */
  priority?: boolean;
};

export type RouteDeclaration = Readonly<Required<RouteOptions>>;

/** A key under which a route's middleware carries one kind of declaration. */
export type DeclarationKey<T> = symbol & { readonly declares?: T };

export function declarationKey<T>(name: string): DeclarationKey<T> {
  return Symbol(name) as DeclarationKey<T>;
}

/** `middleware` carrying `value` under `key` (the function itself is unchanged). */
export function carrying<T, M extends MiddlewareHandler>(middleware: M, key: DeclarationKey<T>, value: T): M {
  return Object.assign(middleware, { [key]: value });
}

/** The declaration under `key` of the route that answers this request; undefined when no matched route has one. */
export function declared<T>(c: Context, key: DeclarationKey<T>): T | undefined {
  for (const route of matchedRoutes(c)) {
    const value = (route.handler as unknown as Record<symbol, T | undefined>)[key];
    if (value !== undefined) return value;
  }
  return undefined;
}

export const ROUTE_DECLARATION = declarationKey<RouteDeclaration>("route declaration");

export function routeDeclaration(options: RouteOptions = {}): RouteDeclaration {
  return Object.freeze({ public: options.public === true, rawBody: options.rawBody === true, priority: options.priority === true });
}

/** A middleware that does nothing but carry a route's options (for routes that are not `serviceRoute`s: documents, the signed upload). */
export function declaredRoute(options: RouteOptions): MiddlewareHandler {
  return carrying((_c, next) => next(), ROUTE_DECLARATION, routeDeclaration(options));
}
