import type { CoreDeps } from "../../../../core/context";
import type { AdminRouter } from "../../shared";
import { registerCreateMailBlock } from "./create";
import { registerDeactivateMailBlock } from "./deactivate";
import { registerDisableCustomerMailBlock } from "./disable";
import { registerEnableCustomerMailBlock } from "./enable";
import { registerGetMailBlock } from "./get";
import { registerListMailBlocks } from "./list";
import { registerListCustomerMailBlocks } from "./list-enabled";
import { registerUpdateMailBlock } from "./update";

export function registerMailBlockRoutes(router: AdminRouter, deps: CoreDeps): void {
  registerCreateMailBlock(router, deps);
  registerListMailBlocks(router, deps);
  registerGetMailBlock(router, deps);
  registerUpdateMailBlock(router, deps);
  registerDeactivateMailBlock(router, deps);
  registerListCustomerMailBlocks(router, deps);
  registerEnableCustomerMailBlock(router, deps);
  registerDisableCustomerMailBlock(router, deps);
}
