import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import type { MailDeps } from "../../deps";
import { registerGetMessage } from "./get";

/** One message's state and history. */
export function registerMessageRoutes(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  registerGetMessage(router, deps);
}
