import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import { registerCompleteAsset } from "./complete";
import { registerCreateAsset } from "./create";
import { registerDeleteAsset } from "./delete";
import type { AssetRouteDeps } from "./deps";
import { registerGetAsset } from "./get";
import { registerListAssets } from "./list";
import { registerUploadAsset } from "./upload";

export type { AssetRouteDeps } from "./deps";

/** Image assets: announce, signed upload (embedded mode), complete, list, get, delete. */
export function registerAssetRoutes(router: OpenAPIHono<AppEnv>, deps: AssetRouteDeps): void {
  registerCreateAsset(router, deps);
  registerUploadAsset(router, deps);
  registerCompleteAsset(router, deps);
  registerListAssets(router, deps);
  registerGetAsset(router, deps);
  registerDeleteAsset(router, deps);
}
