import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import type { MailDeps } from "../../deps";
import { registerCreatePreview } from "./create";

/** Stateless rendering of a builder stack. */
export function registerPreviewRoutes(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  registerCreatePreview(router, deps);
}
