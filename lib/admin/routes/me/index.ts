import type { CoreDeps } from "../../../core/context";
import type { AdminRouter } from "../shared";
import { registerGetCurrentOperator } from "./get";
import { registerSecondFactorRoutes } from "./second-factors";
import { registerListMySessions, registerRevokeMySession } from "./sessions";
import { registerIssueMyToken, registerListMyTokens, registerRevokeMyToken } from "./tokens";

/** The caller's own account: who am I, my console sessions, my API tokens, my second factors (every role). */
export function registerCurrentOperatorRoutes(router: AdminRouter, deps: CoreDeps): void {
  registerGetCurrentOperator(router, deps);
  registerListMySessions(router, deps);
  registerRevokeMySession(router, deps);
  registerListMyTokens(router, deps);
  registerIssueMyToken(router, deps);
  registerRevokeMyToken(router, deps);
  registerSecondFactorRoutes(router, deps);
}
