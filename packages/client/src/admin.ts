/**
 * `@mail-ads/client/admin`: the typed client of the admin API (operator tooling: the console, the tests,
 * scripts in this repository). Not in the published package: the admin API is not the portals', and its
 * types alone are larger than the package's size budget. Same generated source as the portal clients
 * (`npm run client:generate`, checked by `npm run client:check`).
 *
 *   import { createAdminClient } from "@mail-ads/client/admin";
 *   const admin = createAdminClient({ baseUrl: "http://localhost:3000/admin/v1", apiKey: process.env.ADMIN_TOKEN! });
 */
import createClient, { type Client, type ClientOptions } from "openapi-fetch";
import type { paths as AdminPaths } from "./types/admin.js";

export type { components as AdminComponents, operations as AdminOperations, paths as AdminPaths } from "./types/admin.js";

type AdminClientOptions = Omit<ClientOptions, "baseUrl"> & {
  /** The admin API's base URL, e.g. `https://api.example.com/admin/v1`. */
  baseUrl: string;
  /** The operator token. */
  apiKey: string;
};

type AdminClient = Client<AdminPaths>;

export function createAdminClient({ baseUrl, apiKey, headers, ...rest }: AdminClientOptions): AdminClient {
  return createClient<AdminPaths>({
    ...rest,
    baseUrl: baseUrl.replace(/\/+$/, "").replace(/\/v1$/, ""),
    headers: { ...(headers as Record<string, string> | undefined), Authorization: `Bearer ${apiKey}` },
  });
}
