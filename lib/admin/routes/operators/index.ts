import type { CoreDeps } from "../../../core/context";
import type { AdminRouter } from "../shared";
import { registerCreateOperator } from "./create";
import { registerGetOperator } from "./get";
import { registerIssueOperatorToken } from "./issue-token";
import { registerListOperators } from "./list";
import { registerListOperatorTokens } from "./list-tokens";
import { registerRevokeOperatorToken } from "./revoke-token";
import { registerUpdateOperator } from "./update";

/** Operator management: owners only. */
export function registerOperatorRoutes(router: AdminRouter, deps: CoreDeps): void {
  registerListOperators(router, deps);
  registerCreateOperator(router, deps);
  registerGetOperator(router, deps);
  registerUpdateOperator(router, deps);
  registerListOperatorTokens(router, deps);
  registerIssueOperatorToken(router, deps);
  registerRevokeOperatorToken(router, deps);
}
