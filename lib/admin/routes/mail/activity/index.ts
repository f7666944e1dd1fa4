import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, CoreDeps } from "../../../../core/context";
import { registerListCustomerSendJobs } from "./list-send-jobs";
import { registerGetCustomerSendJob } from "./get-send-job";
import { registerGetCustomerMailUsage } from "./get-usage";
import { registerLookupCustomerSuppressions } from "./lookup-suppressions";
import { registerPreviewCustomerMailTemplate } from "./preview-template";

/**
 * What a customer sees of its own mail, read by the operator: send jobs with progress, usage of the month
 * and the suppression mirror. The same services and schemas as the mail service's routes, so both views agree.
 */
export function registerMailActivityRoutes(router: OpenAPIHono<AppEnv>, deps: CoreDeps): void {
  // The order of registration is the order of the OpenAPI document's paths.
  registerListCustomerSendJobs(router, deps);
  registerGetCustomerSendJob(router, deps);
  registerGetCustomerMailUsage(router, deps);
  registerLookupCustomerSuppressions(router, deps);
  registerPreviewCustomerMailTemplate(router, deps);
}
