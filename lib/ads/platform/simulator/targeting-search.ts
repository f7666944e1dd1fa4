import { readFileSync } from "node:fs";
import { parameterCheck } from "./graph-faults";
import type { Params } from "./validation";

/**
 * `GET /search` for `type=adgeolocation` (cities) and `type=adinterest`, answered from the data sets in
 * `./data`: the German, Austrian and Swiss places of GeoNames (see `data/generate-cities.ts`) and a few
 * hundred interests. Matching is like the platform's typeahead: a prefix of the name or of one of its
 * words, ignoring case and accents (`munch` finds München, `zur` Zürich); exact names first, then the
 * larger places or audiences.
 */

type CityRow = [key: string, name: string, countryCode: string, region: string, population: number];
type InterestRow = [id: string, name: string, path: string[], lower: number, upper: number];
type Indexed<T> = { row: T; folded: string; words: string[] };

const COUNTRY_NAMES: Record<string, string> = { DE: "Germany", AT: "Austria", CH: "Switzerland" };
const MAX_LIMIT = 1000;

/** Case- and accent-insensitive form: `Zürich` → `zurich`, `Straße` → `strasse`. */
function foldForSearch(text: string): string {
  return text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase().replace(/ß/g, "ss");
}

function indexed<T extends [string, string, ...unknown[]]>(rows: T[]): Indexed<T>[] {
  return rows.map((row) => {
    const folded = foldForSearch(row[1]);
    return { row, folded, words: folded.split(/[^\p{L}\p{N}]+/u).filter((word) => word !== "") };
  });
}

function load<T>(name: string): T[] {
  return JSON.parse(readFileSync(new URL(`./data/${name}`, import.meta.url), "utf8")) as T[];
}

let cities: Indexed<CityRow>[] | undefined;
let interests: Indexed<InterestRow>[] | undefined;
let regionIds: Map<string, string> | undefined;
const cityIndex = () => (cities ??= indexed(load<CityRow>("dach-cities.json")));
const interestIndex = () => (interests ??= indexed(load<InterestRow>("interests.json")));

/** Country of every city key in the catalogue, so `geo_locations.cities` can be checked like the platform does. */
export function catalogueCityCountries(): [string, string][] {
  return cityIndex().map(({ row }) => [row[0], row[2]]);
}

/** 0 exact, 1 name prefix, 2 word prefix, undefined no match. */
function rank(entry: { folded: string; words: string[] }, query: string): number | undefined {
  if (entry.folded === query) return 0;
  if (entry.folded.startsWith(query)) return 1;
  if (entry.words.some((word) => word.startsWith(query))) return 2;
  return undefined;
}

function matches<T>(entries: Indexed<T>[], query: string, size: (row: T) => number, keep: (row: T) => boolean): T[] {
  return entries
    .filter((entry) => keep(entry.row))
    .map((entry) => ({ row: entry.row, rank: rank(entry, query) }))
    .filter((entry): entry is { row: T; rank: number } => entry.rank !== undefined)
    .sort((a, b) => a.rank - b.rank || size(b.row) - size(a.row))
    .map((entry) => entry.row);
}

function listParam(raw: string | undefined, name: string): string[] | undefined {
  if (raw === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (Array.isArray(parsed)) return parsed.map(String);
  } catch {
    // Graph also takes a bare value.
  }
  if (/^[a-z_]+$/.test(raw)) return [raw];
  throw parameterCheck(`Param ${name} must be a JSON encoded array`, name);
}

export function targetingSearch(params: Params): { data: Record<string, unknown>[] } {
  const type = params.type;
  if (!type) throw parameterCheck("The parameter type is required", "type");
  const limit = Math.min(MAX_LIMIT, Math.max(1, Number(params.limit) || 25));
  const query = foldForSearch((params.q ?? "").trim());
  if (type === "adgeolocation") {
    const types = listParam(params.location_types, "location_types") ?? ["country"];
    if (query === "" || !types.includes("city")) return { data: [] };
    const country = params.country_code?.toUpperCase();
    regionIds ??= new Map([...new Set(cityIndex().map(({ row }) => `${row[2]}:${row[3]}`))].sort().map((region, index) => [region, String(3800 + index)]));
    const ids = regionIds;
    const found = matches(
      cityIndex(),
      query,
      (row) => row[4],
      (row) => !country || row[2] === country,
    ).slice(0, limit);
    return {
      data: found.map(([key, name, countryCode, region]) => ({
        key,
        name,
        type: "city",
        country_code: countryCode,
        country_name: COUNTRY_NAMES[countryCode] ?? countryCode,
        region,
        region_id: ids.get(`${countryCode}:${region}`),
        supports_region: true,
        supports_city: true,
      })),
    };
  }
  if (type === "adinterest") {
    if (query === "") throw parameterCheck("The parameter q is required", "q");
    const found = matches(
      interestIndex(),
      query,
      (row) => row[3],
      () => true,
    ).slice(0, limit);
    return {
      data: found.map(([id, name, path, lower, upper]) => ({
        id,
        name,
        audience_size_lower_bound: lower,
        audience_size_upper_bound: upper,
        path,
        description: null,
        topic: path[0],
      })),
    };
  }
  throw parameterCheck(`Param type must be one of {adgeolocation, adinterest, …}; the simulator answers these two`, "type");
}
