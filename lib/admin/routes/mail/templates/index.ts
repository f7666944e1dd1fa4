import type { CoreDeps } from "../../../../core/context";
import type { AdminRouter } from "../../shared";
import { registerCreateCustomerMailTemplate } from "./create";
import { registerGetCustomerMailTemplate } from "./get";
import { registerListCustomerMailTemplates } from "./list";
import { registerUpdateCustomerMailTemplate } from "./update";

export function registerMailTemplateRoutes(router: AdminRouter, deps: CoreDeps): void {
  registerCreateCustomerMailTemplate(router, deps);
  registerListCustomerMailTemplates(router, deps);
  registerGetCustomerMailTemplate(router, deps);
  registerUpdateCustomerMailTemplate(router, deps);
}
