import type { AdsDeps } from "../../deps";
import type { AdsRouter } from "../shared";
import { registerGetTemplate, registerGetTemplatePreview } from "./get";
import { registerListTemplates } from "./list";
import { registerGetTemplatePreviewImage } from "./preview-png";
import { registerGetVideoRender, registerRenderTemplate } from "./render";

export function registerTemplateRoutes(router: AdsRouter, deps: AdsDeps): void {
  registerListTemplates(router, deps);
  registerRenderTemplate(router, deps);
  registerGetVideoRender(router, deps);
  registerGetTemplate(router, deps);
  registerGetTemplatePreview(router, deps);
  registerGetTemplatePreviewImage(router, deps);
}
