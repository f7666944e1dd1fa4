import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../core/context";
import type { MailDeps } from "../../deps";
import { registerListBlocks } from "./list";
import { registerGetBlockTile } from "./tile";

/** The builder's block catalogue: blocks usable by this account and their tiles. */
export function registerBlockRoutes(router: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  registerListBlocks(router, deps);
  registerGetBlockTile(router, deps);
}
