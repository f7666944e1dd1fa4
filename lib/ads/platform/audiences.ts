import { z } from "zod";

/**
 * Graph shapes of custom audiences (customer-file and lookalike), their `/users` edge and the targeting
 * `search` endpoint, shared by the client and the simulator.
 */

/** `customer_file_source`: required on customer-file audiences since 2018; our contacts come from the customer. */
type CustomerFileSource = "USER_PROVIDED_ONLY" | "PARTNER_PROVIDED_ONLY" | "BOTH_USER_AND_PARTNER_PROVIDED";

export type CustomAudienceCreateParams = { name: string; description?: string; subtype: "CUSTOM"; customer_file_source: CustomerFileSource };

/** `ratio` 0.01–0.20 of the country's population; `country` ISO alpha-2. */
type LookalikeSpec = { country: string; ratio: number; type?: "similarity" | "reach" | "custom_ratio" };
export type LookalikeAudienceCreateParams = {
  name: string;
  description?: string;
  subtype: "LOOKALIKE";
  origin_audience_id: string;
  lookalike_spec: LookalikeSpec;
};

export type CustomAudienceUpdateParams = { name?: string; description?: string };

/** One request of an upload session: at most 10,000 rows, `batch_seq` from 1, the last flagged. */
export type AudienceUsersBatch = {
  schema: readonly string[];
  data: string[][];
  session: { session_id: number; batch_seq: number; last_batch_flag: boolean; estimated_num_total: number };
};

export const AUDIENCE_USERS_MAX_ROWS = 10_000;

/** Operation status 471: the audience is restricted; membership changes fail with subcode 1713230. */
export const RESTRICTED_OPERATION_CODE = 471;
export const RESTRICTED_UPLOAD_SUBCODE = 1713230;

const numeric = z.union([z.number(), z.string().regex(/^-?\d+$/)]).transform(Number);
const statusObject = z
  .object({ code: numeric.optional(), status: numeric.optional(), description: z.string().optional() })
  .transform((value) => ({ code: value.code ?? value.status ?? null, description: value.description ?? null }));

export const customAudienceView = z.object({
  id: z.union([z.string(), z.number()]).transform(String),
  name: z.string().optional(),
  description: z.string().optional(),
  subtype: z.string().optional(),
  approximate_count_lower_bound: numeric.optional(),
  approximate_count_upper_bound: numeric.optional(),
  operation_status: statusObject.optional(),
  delivery_status: statusObject.optional(),
});
export type CustomAudienceView = z.output<typeof customAudienceView>;

export const audienceUsersResult = z.object({
  audience_id: z.union([z.string(), z.number()]).transform(String),
  session_id: z.union([z.string(), z.number()]).transform(String),
  num_received: numeric,
  num_invalid_entries: numeric,
  invalid_entry_samples: z.unknown().optional(),
});
export type AudienceUsersResult = z.output<typeof audienceUsersResult>;

export const geoLocationResult = z.looseObject({
  key: z.union([z.string(), z.number()]).transform(String),
  name: z.string(),
  type: z.string(),
  country_code: z.string().optional(),
  country_name: z.string().optional(),
  region: z.string().optional(),
  region_id: z.union([z.string(), z.number()]).transform(String).optional(),
});
export type GeoLocationResult = z.output<typeof geoLocationResult>;

export const interestResult = z.looseObject({
  id: z.union([z.string(), z.number()]).transform(String),
  name: z.string(),
  audience_size_lower_bound: numeric.optional(),
  audience_size_upper_bound: numeric.optional(),
  path: z.array(z.string()).optional(),
  topic: z.string().optional(),
});
export type InterestResult = z.output<typeof interestResult>;
