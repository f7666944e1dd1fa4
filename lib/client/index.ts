/**
 * The typed client of the three APIs, for portals written in TypeScript: the types are generated from the
 * served OpenAPI documents (`npm run client:generate`, checked in CI), the calls go through openapi-fetch.
 *
 *   import { createMailClient } from "mail-ads-middleware/client";
 *   const mail = createMailClient({ baseUrl: "http://localhost:3000/mail/v1", apiKey: process.env.MAIL_KEY });
 *   const { data, error, response } = await mail.GET("/v1/templates/{id}", { params: { path: { id } } });
 *
 * Paths are written as the documents name them (`/v1/...`); `baseUrl` is the service's base URL
 * (ending in `/v1`), whose `/v1` the client does not repeat.
 */
import createClient, { type Client, type ClientOptions } from "openapi-fetch";
import type { paths as AdminPaths } from "./types/admin";
import type { paths as AdsPaths } from "./types/ads";
import type { paths as MailPaths } from "./types/mail";

export type { components as MailComponents, operations as MailOperations, paths as MailPaths } from "./types/mail";
export type { components as AdsComponents, operations as AdsOperations, paths as AdsPaths } from "./types/ads";
export type { components as AdminComponents, operations as AdminOperations, paths as AdminPaths } from "./types/admin";

export type ServiceClientOptions = Omit<ClientOptions, "baseUrl"> & {
  /** The service's base URL, e.g. `https://api.example.com/mail/v1` (the printed `MAIL` of `npm start`). */
  baseUrl: string;
  /** The customer's API key (mail or ads), or the operator token for the admin API. */
  apiKey: string;
};

/** The documents' paths start with `/v1`, which the base URL already ends in. */
function clientOptions({ baseUrl, apiKey, headers, ...rest }: ServiceClientOptions): ClientOptions {
  return {
    ...rest,
    baseUrl: baseUrl.replace(/\/+$/, "").replace(/\/v1$/, ""),
    headers: { ...(headers as Record<string, string> | undefined), Authorization: `Bearer ${apiKey}` },
  };
}

export type MailClient = Client<MailPaths>;
export type AdsClient = Client<AdsPaths>;
export type AdminClient = Client<AdminPaths>;

export function createMailClient(options: ServiceClientOptions): MailClient {
  return createClient<MailPaths>(clientOptions(options));
}

export function createAdsClient(options: ServiceClientOptions): AdsClient {
  return createClient<AdsPaths>(clientOptions(options));
}

export function createAdminClient(options: ServiceClientOptions): AdminClient {
  return createClient<AdminPaths>(clientOptions(options));
}
