import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, CoreDeps } from "../../core/context";
import type { Providers } from "../../providers";
import { registerMailBlockRoutes } from "./mail-blocks";
import { registerMailDesignRoutes } from "./mail-design";
import { registerMailFrameRoutes } from "./mail-frame";
import { registerMailProviderRoutes } from "./mail-provider";
import { registerMailTemplateRoutes } from "./mail-templates";

/** The operator's side of the mail service: block library, and per customer design, frame, provider and templates. */
export function registerMailAdminRoutes(router: OpenAPIHono<AppEnv>, deps: CoreDeps & { providers: Pick<Providers, "postmarkSimulator"> }): void {
  registerMailBlockRoutes(router, deps);
  registerMailDesignRoutes(router, deps);
  registerMailFrameRoutes(router, deps);
  registerMailProviderRoutes(router, deps);
  registerMailTemplateRoutes(router, deps);
}
