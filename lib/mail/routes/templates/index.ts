import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import type { MailDeps } from "../../deps";
import { registerCreateTemplate } from "./create";
import { registerDeleteTemplate } from "./delete";
import { registerGetTemplate } from "./get";
import { registerListTemplates } from "./list";
import { registerSendTemplate } from "./send";
import { registerUpdateTemplate } from "./update";

/** Saved templates and the transactional send. */
export function registerTemplateRoutes(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  registerListTemplates(router, deps);
  registerCreateTemplate(router, deps);
  registerGetTemplate(router, deps);
  registerUpdateTemplate(router, deps);
  registerDeleteTemplate(router, deps);
  registerSendTemplate(router, deps);
}
