import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import type { MailDeps } from "../../deps";
import { registerGetDesignRules } from "./get";

/** The account's resolved design tokens. */
export function registerDesignRuleRoutes(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  registerGetDesignRules(router, deps);
}
