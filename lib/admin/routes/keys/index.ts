import type { CoreDeps } from "../../../core/context";
import type { AdminRouter } from "../shared";
import { registerIssueApiKey } from "./issue";
import { registerListApiKeys } from "./list";
import { registerRevokeApiKey } from "./revoke";

export function registerKeyRoutes(router: AdminRouter, deps: CoreDeps): void {
  registerIssueApiKey(router, deps);
  registerListApiKeys(router, deps);
  registerRevokeApiKey(router, deps);
}
