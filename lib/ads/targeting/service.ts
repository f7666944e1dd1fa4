import { LruCache } from "../../core/lru-cache";
import type { AdsDeps } from "../deps";
import { connectCredentials } from "../onboarding/service";
import type { GraphSession } from "../platform";
import { upstream } from "../upstream";
import { DACH_COUNTRIES, type GeoItem as GeoItemSchema, type GeoQuery, type InterestItem as InterestItemSchema, type InterestQuery } from "./schema";
import type { z } from "zod";

/**
 * Targeting lookups (cities in DE/AT/CH, interests) through the platform's search, cached per query for
 * `LOOKUP_TTL_MS`: the catalogues change rarely and typeahead repeats the same queries. The answers are the
 * platform's public catalogue, the same for every customer, so one cache serves all of them; the caller
 * still needs a working onboarding (its token makes the call on a miss).
 */

export const LOOKUP_TTL_MS = 60 * 60_000;
const MAX_CACHED_QUERIES = 5_000;
type DachCountry = (typeof DACH_COUNTRIES)[number];
/** Without a country the platform is asked once for this many cities, of which the DACH ones are kept. */
const UNFILTERED_CITY_LIMIT = 100;

/** The API's `TargetingGeoItem` and `TargetingInterestItem` schemas (one schema per resource). */
type GeoItem = z.infer<typeof GeoItemSchema>;
type InterestItem = z.infer<typeof InterestItemSchema>;

type Entry = { expiresAt: number; items: unknown[] };
const caches = new WeakMap<AdsDeps, LruCache<Entry>>();

function cacheOf(deps: AdsDeps): LruCache<Entry> {
  let cache = caches.get(deps);
  if (!cache) {
    cache = new LruCache<Entry>(MAX_CACHED_QUERIES);
    caches.set(deps, cache);
  }
  return cache;
}

/** Same results for `München`, ` münchen ` and `MÜNCHEN`. */
function queryKey(parts: (string | number | undefined)[]): string {
  return parts
    .map((part) =>
      String(part ?? "")
        .normalize("NFC")
        .trim()
        .toLowerCase(),
    )
    .join("\u0001");
}

async function cached<T>(deps: AdsDeps, customerId: string, key: string, load: (session: GraphSession) => Promise<T[]>): Promise<T[]> {
  // The onboarding check comes first, so a hit answers nobody who could not have asked the platform.
  const session = await connectCredentials(deps, customerId);
  const cache = cacheOf(deps);
  const now = deps.clock.now().getTime();
  const hit = cache.get(key);
  if (hit && hit.expiresAt > now) return hit.items as T[];
  const items = await load(session);
  cache.set(key, { expiresAt: now + LOOKUP_TTL_MS, items });
  return items;
}

const isDach = (code: string | undefined): code is DachCountry => (DACH_COUNTRIES as readonly string[]).includes(code ?? "");

export async function searchCities(deps: AdsDeps, customerId: string, query: z.infer<typeof GeoQuery>): Promise<GeoItem[]> {
  const key = queryKey(["geo", query.q, query.country_code, query.limit]);
  return cached(deps, customerId, key, async (session) => {
    const found = await upstream({ logger: deps.logger, customerId, action: "search cities" }, () =>
      session.searchCities(query.q.trim(), { countryCode: query.country_code, limit: query.country_code ? query.limit : UNFILTERED_CITY_LIMIT }),
    );
    const items: GeoItem[] = [];
    for (const city of found) {
      if (city.type !== "city" || !isDach(city.country_code) || (query.country_code && city.country_code !== query.country_code)) continue;
      items.push({ key: city.key, name: city.name, type: "city", country_code: city.country_code, region: city.region ?? null });
      if (items.length === query.limit) break;
    }
    return items;
  });
}

export async function searchInterests(deps: AdsDeps, customerId: string, query: z.infer<typeof InterestQuery>): Promise<InterestItem[]> {
  const key = queryKey(["interest", query.q, query.limit]);
  return cached(deps, customerId, key, async (session) => {
    const found = await upstream({ logger: deps.logger, customerId, action: "search interests" }, () =>
      session.searchInterests(query.q.trim(), { limit: query.limit }),
    );
    return found.map((interest) => ({
      id: interest.id,
      name: interest.name,
      // Graph replaced the single `audience_size` with bounds; the lower one is the conservative figure.
      audience_size: interest.audience_size_lower_bound ?? 0,
      audience_size_upper_bound: interest.audience_size_upper_bound ?? null,
      path: interest.path ?? [],
    }));
  });
}
