import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import type { MailDeps } from "../../deps";
import { registerAddSendJobRecipients } from "./add-recipients";
import { registerCancelSendJob } from "./cancel";
import { registerCreateSendJob } from "./create";
import { registerGetSendJob } from "./get";
import { registerListSendJobLinks } from "./links";
import { registerListSendJobs } from "./list";
import { registerListSendJobMessages } from "./messages";
import { registerStartSendJob } from "./start";

/** Newsletter send jobs: create, recipients, start/resume, cancel, list, detail with statistics, messages, links. */
export function registerSendJobRoutes(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  registerCreateSendJob(router, deps);
  registerListSendJobs(router, deps);
  registerGetSendJob(router, deps);
  registerAddSendJobRecipients(router, deps);
  registerStartSendJob(router, deps);
  registerCancelSendJob(router, deps);
  registerListSendJobMessages(router, deps);
  registerListSendJobLinks(router, deps);
}
