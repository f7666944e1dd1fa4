import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import type { MailDeps } from "../../deps";
import { registerGetMessage } from "./get";
import { registerListMessages } from "./list";

/** The account's messages: a search, and one message's state and history. */
export function registerMessageRoutes(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  registerListMessages(router, deps);
  registerGetMessage(router, deps);
}
