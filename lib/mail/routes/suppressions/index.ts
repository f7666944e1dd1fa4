import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import type { MailDeps } from "../../deps";
import { registerListSuppressionChanges } from "./list";
import { registerLookupSuppressions } from "./lookup";
import { registerReactivateSuppression } from "./reactivate";

/** The suppression mirror: change feed, lookup, reactivation. */
export function registerSuppressionRoutes(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  registerListSuppressionChanges(router, deps);
  registerLookupSuppressions(router, deps);
  registerReactivateSuppression(router, deps);
}
