import { z } from "@hono/zod-openapi";

const LOOKUP_MAX_LIMIT = 50;
/** The countries the city lookup serves; the service filters the platform's answers to them. */
export const DACH_COUNTRIES = ["DE", "AT", "CH"] as const;

const lookupFields = {
  q: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .openapi({ description: "Search text (required): a prefix of the name or of one of its words; case and accents do not matter.", example: "münch" }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(LOOKUP_MAX_LIMIT)
    .default(10)
    .openapi({ description: `Results, 1–${LOOKUP_MAX_LIMIT}; default 10.`, example: 10 }),
};

export const InterestQuery = z.object(lookupFields);

export const GeoQuery = z.object({
  ...lookupFields,
  country_code: z.enum(DACH_COUNTRIES).optional().openapi({ description: "Only cities in this country; without it DE, AT and CH.", example: "DE" }),
});

export const GeoItem = z
  .object({
    key: z.string().openapi({ description: "The platform's stable city key, for `geo_locations.cities` in a target configuration.", example: "2867714" }),
    name: z.string().openapi({ description: "City name.", example: "München" }),
    type: z.literal("city").openapi({ description: "Always `city`.", example: "city" }),
    country_code: z.enum(DACH_COUNTRIES).openapi({ description: "DE, AT or CH.", example: "DE" }),
    region: z.string().nullable().openapi({ description: "State or canton, as the platform names it.", example: "Bavaria" }),
  })
  .openapi("TargetingGeoItem");

export const InterestItem = z
  .object({
    id: z.string().openapi({ description: "Interest id, for `targeting.flexible_spec[].interests[].id` of an ad set.", example: "6003139266461" }),
    name: z.string().openapi({ description: "Interest name.", example: "Running" }),
    audience_size: z.number().int().openapi({ description: "People with this interest: the lower bound of the platform's estimate.", example: 100000000 }),
    audience_size_upper_bound: z.number().int().nullable().openapi({ description: "Upper bound of the platform's estimate.", example: 110000000 }),
    path: z.array(z.string()).openapi({ description: "Where the interest sits in the platform's taxonomy.", example: ["Sports and outdoors", "Sports"] }),
  })
  .openapi("TargetingInterestItem");
