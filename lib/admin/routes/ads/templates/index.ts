import type { AdsDeps } from "../../../../ads";
import type { AdminRouter } from "../../shared";
import { registerAssignCustomerAdTemplate } from "./assign";
import { registerCreateLibraryAdTemplate } from "./create";
import { registerGetLibraryAdTemplate } from "./get";
import { registerListLibraryAdTemplates } from "./list";
import { registerListCustomerAdTemplates } from "./list-assigned";
import { registerSetCustomerAdTemplatePreviewValues } from "./set-preview-values";
import { registerUnassignCustomerAdTemplate } from "./unassign";
import { registerUpdateLibraryAdTemplate } from "./update";

export function registerAdsTemplateRoutes(router: AdminRouter, deps: AdsDeps): void {
  registerCreateLibraryAdTemplate(router, deps);
  registerListLibraryAdTemplates(router, deps);
  registerGetLibraryAdTemplate(router, deps);
  registerUpdateLibraryAdTemplate(router, deps);
  registerListCustomerAdTemplates(router, deps);
  registerAssignCustomerAdTemplate(router, deps);
  registerUnassignCustomerAdTemplate(router, deps);
  registerSetCustomerAdTemplatePreviewValues(router, deps);
}
