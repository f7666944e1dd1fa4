import type { CoreDeps } from "../../../core/context";
import type { AssetStorage } from "../../deps";

/** What the asset routes need: the core plus the one asset storage of the process. */
export type AssetRouteDeps = CoreDeps & { assets: AssetStorage };
