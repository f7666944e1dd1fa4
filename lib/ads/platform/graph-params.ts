import { createHmac } from "node:crypto";

/** `appsecret_proof` (Securing Graph API Requests): hex HMAC-SHA256 of the access token keyed with the app secret. */
export function appSecretProof(accessToken: string, appSecret: string): string {
  return createHmac("sha256", appSecret).update(accessToken).digest("hex");
}

export type GraphParamValue = string | number | boolean | null | undefined | readonly unknown[] | { readonly [key: string]: unknown };

/**
 * Graph takes flat form fields; a nested object or array travels as one JSON-encoded field
 * (`targeting={"geo_locations":…}`), exactly as the official SDKs send it. `undefined` fields are left out.
 */
export function encodeGraphParams(params: Record<string, GraphParamValue>): URLSearchParams {
  const out = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    if (value === null) out.set(key, "null");
    else if (typeof value === "object") out.set(key, JSON.stringify(value));
    else out.set(key, String(value));
  }
  return out;
}

/** `act_123` and `123` name the same ad account; Graph paths want `act_123`. */
export function adAccountPath(account: string): string {
  const id = account.startsWith("act_") ? account.slice(4) : account;
  if (!/^\d+$/.test(id)) throw new TypeError("ad account id must be numeric (optionally prefixed act_)");
  return `act_${id}`;
}

/** Graph ids travel in paths; refuse anything that could change the path. */
export function objectPath(id: string): string {
  if (!/^[0-9A-Za-z_:-]+$/.test(id)) throw new TypeError("Graph object id has unexpected characters");
  return id;
}
