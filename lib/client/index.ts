/**
 * The typed client of the three APIs inside this repository. Mail and ads are the portals' package
 * (`packages/client`, published as `@mail-ads/client`: retries, Idempotency-Key, list iterators, typed
 * errors, webhook verification); the admin client (operator tooling, not in the package) is here.
 * The types are generated from the served OpenAPI documents (`npm run client:generate`, checked in CI).
 *
 *   import { createMailClient } from "mail-ads-middleware/client";
 *   const mail = createMailClient({ baseUrl: "http://localhost:3000/mail/v1", apiKey: process.env.MAIL_KEY });
 *   const { data, error, response } = await mail.GET("/v1/templates/{id}", { params: { path: { id } } });
 */
import createClient, { type Client, type ClientOptions } from "openapi-fetch";
import type { paths as AdminPaths } from "./types/admin";

export * from "../../packages/client/src/index";
export type { components as AdminComponents, operations as AdminOperations, paths as AdminPaths } from "./types/admin";

export type AdminClientOptions = Omit<ClientOptions, "baseUrl"> & {
  /** The admin API's base URL, e.g. `https://api.example.com/admin/v1`. */
  baseUrl: string;
  /** The operator token. */
  apiKey: string;
};

export type AdminClient = Client<AdminPaths>;

export function createAdminClient({ baseUrl, apiKey, headers, ...rest }: AdminClientOptions): AdminClient {
  return createClient<AdminPaths>({
    ...rest,
    baseUrl: baseUrl.replace(/\/+$/, "").replace(/\/v1$/, ""),
    headers: { ...(headers as Record<string, string> | undefined), Authorization: `Bearer ${apiKey}` },
  });
}
