// The OpenAPI-extended zod: zod 4 gives a schema its methods when it is built, so a schema the APIs document
// (`.openapi()` on its fields) must be built after the extension, whatever the import order.
import { z } from "@hono/zod-openapi";
import { blockParamTypes } from "./schema/vocabulary";

/**
 * The shapes stored in JSON columns. They live beside the schema, not in the services, so the schema
 * imports no service code: the ads platform client and the mail renderer import these types from here.
 */

/** A Graph API location entry (region, city, zip), as the platform takes it. */
export type GeoLocation = { key: string; country?: string; name?: string };

/** A city of `geo_locations`: only cities take a radius (Graph's TargetingGeoLocationCity; regions and zips do not). */
type GeoCity = GeoLocation & { radius?: number; distance_unit?: "mile" | "kilometer" };

/** Graph's `targeting.geo_locations`. */
export type GeoLocations = {
  countries?: string[];
  regions?: GeoLocation[];
  cities?: GeoCity[];
  zips?: GeoLocation[];
  country_groups?: string[];
  location_types?: string[];
};

/** Graph's `promoted_object` of an ad set. */
export type PromotedObject = { page_id?: string; pixel_id?: string; custom_event_type?: string; application_id?: string; object_store_url?: string };

/** Where a placeholder stands in the compiled HTML, which decides how its value is escaped. */
export type EscapeMode = "text" | "multiline" | "attr" | "url";

/** `link` for `href`-like attributes, `image` for `src`/`background-url`. */
export type UrlKind = "link" | "image";

/**
 * The result of phase 1: the compiled HTML as static text plus what recipient data still decides.
 * Plain JSON, so it can be stored with a send job and personalised by any worker later.
 */
export type Condition = { name: string } | { not: Condition } | { any: Condition[] } | { all: Condition[] };

export type OutputNode =
  | string
  /** A placeholder recipient data fills, escaped for where it stands. */
  | { slot: string; mode: EscapeMode }
  /** A section whose condition depends on recipient data. */
  | { when: Condition; then: OutputNode[] }
  /** A URL attribute whose scheme depends on recipient data: checked per recipient, `about:blank` if refused. */
  | { url: UrlKind; parts: OutputNode[] };

export interface CompiledTemplate {
  format: 1;
  nodes: OutputNode[];
  /** Names recipient data can fill (slots and section conditions), sorted. */
  placeholders: string[];
}

/** The value types of a block or contract parameter (`text` keeps line breaks; `url`/`image` take absolute URLs). */
export type BlockParamType = (typeof blockParamTypes)[number];

/**
 * One entry of a block's parameter schema (spec: Block parameter): the one definition the `mail_blocks`
 * column, the renderer and both APIs' schemas (`BlockParam`, `MailBlockParam`, which add their documentation
 * and the operator's limits) derive from.
 */
export const blockParamSchema = z.object({
  name: z.string(),
  label: z.string(),
  /** `text` renders line breaks as `<br>`; `url` and `image` values must be absolute URLs. */
  type: z.enum(blockParamTypes),
  required: z.boolean(),
  /** Used when no value (or an empty one) is given; applied in phase 1, so recipient data cannot replace it. */
  fallback: z.string().nullable(),
  /** Without a value the block's outer element is left out (or only the block's own `{{#name}}` section). */
  hide_if_missing: z.boolean(),
  /** Shown in tiles. */
  example: z.string(),
});
export type BlockParam = z.infer<typeof blockParamSchema>;
