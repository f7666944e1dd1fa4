import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { SIM_RESTRICTED_AUDIENCE } from "../../lib/ads/platform/simulator/markers";
import { describeResponse, type Ads } from "../helpers/harness";
import { createAdsWorld, onboardedCustomer, type AdsWorld, type OnboardedCustomer } from "./support/ads-world";

/**
 * A full audience run at debug log level — create, add, remove, invalid contacts, a 422, a platform
 * failure, a restricted audience, a lookalike, delete — after which no raw contact value (nor its
 * normalised plain form) is anywhere in the database, the log, the responses, or what the platform got.
 */

let world: AdsWorld;
let c: OnboardedCustomer;
beforeAll(async () => {
  world = await createAdsWorld();
  c = await onboardedCustomer(world, "Privacy audiences");
});
afterAll(async () => world.close());

const PERSON = {
  email: " Quentin.Privatperson@Geheim-Beispiel.de ",
  phone: "+49 (0)151 98765432",
  first_name: "Quentinius",
  last_name: "Privatmännle",
  city: "Geheimhausen",
  zip: "97531",
  country: "DE",
  date_of_birth: "1977-03-21",
};
const INVALID = { email: "privat..kaputt@@geheim-beispiel", phone: "0151 555 0000 ruf an", last_name: "Zwölfundzwanzig" };
const SECRETS = [
  "Quentin.Privatperson@Geheim-Beispiel.de",
  "quentin.privatperson@geheim-beispiel.de",
  "Privatperson",
  "privatperson",
  "98765432",
  "4915198765432",
  "Quentinius",
  "quentinius",
  "Privatmännle",
  "privatmännle",
  "Geheimhausen",
  "geheimhausen",
  "97531",
  "1977-03-21",
  "kaputt",
  "5550000",
  "555 0000",
  "Zwölfundzwanzig",
  "zwölfundzwanzig",
];
/**
 * Whether `secret` stands in `text` as a value of its own, not inside a longer run of letters and digits:
 * "97531" is in a hash or id of another test's row now and then (CI's PostgreSQL run shares one database).
 */
function standsIn(text: string, secret: string): boolean {
  const escaped = secret.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, "u").test(text);
}

const crowd = Array.from({ length: 120 }, (_, i) => ({ email: `crowd${i}@example.com` }));

/** PGlite and pg answer `{ rows }`; other drivers a plain array. */
const rowsOf = (result: unknown): unknown[] => (Array.isArray(result) ? result : ((result as { rows?: unknown[] }).rows ?? []));

async function databaseText(): Promise<string> {
  const tables = await world.h.db.execute(sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`);
  const names = (rowsOf(tables) as { table_name: string }[]).map((row) => row.table_name);
  expect(names).toContain("ads_audiences");
  const parts: string[] = [];
  for (const name of names) {
    const rows = await world.h.db.execute(sql.raw(`select t::text as row from "${name}" t`));
    parts.push(JSON.stringify(rowsOf(rows)));
  }
  return parts.join("\n");
}

test("raw contact values reach no table, log line, response or platform request", async () => {
  const responses: string[] = [];
  const call = async <T>(method: string, path: string, body?: unknown) => {
    const r = await world.h.call<T>(method, `/ads/v1${path}`, { key: c.adsFull, body, headers: { "idempotency-key": crypto.randomUUID() } });
    responses.push(r.text);
    return r;
  };

  const created = await call<Ads["createCustomAudience"]>("POST", "/audiences/custom", { name: "Private CRM", contacts: [PERSON, INVALID, ...crowd] });
  expect(created.status, describeResponse(created)).toBe(201);
  expect(created.json.data.upload).toMatchObject({ received: 122, sent: 121, invalid: 1 });
  const id = created.json.data.id;
  expect((await call("POST", `/audiences/${id}/contacts`, { contacts: [PERSON, INVALID] })).status).toBe(200);
  expect((await call("DELETE", `/audiences/${id}/contacts`, { contacts: [PERSON] })).status).toBe(200);
  expect((await call("POST", `/audiences/${id}/contacts`, { contacts: [{ ...PERSON, email: `${"x".repeat(400)}${PERSON.email}` }] })).status).toBe(422);
  world.sim.failNext({ code: 1, httpStatus: 500, count: 3, match: { path: "/users" } });
  expect((await call("POST", `/audiences/${id}/contacts`, { contacts: [PERSON] })).status).toBe(500);
  const restricted = await call<Ads["createCustomAudience"]>("POST", "/audiences/custom", { name: `Flagged ${SIM_RESTRICTED_AUDIENCE}`, contacts: [] });
  expect((await call("POST", `/audiences/${restricted.json.data.id}/contacts`, { contacts: [PERSON] })).status).toBe(409);
  const lookalike = await call("POST", "/audiences/lookalike", { name: "Twins", origin_audience_id: id, country: "DE", ratio: 0.01 });
  expect(lookalike.status, describeResponse(lookalike)).toBe(201);
  expect((await call("GET", `/audiences/${id}`)).status).toBe(200);
  expect((await call("GET", "/audiences")).status).toBe(200);
  expect((await call("DELETE", `/audiences/${restricted.json.data.id}`)).status).toBe(200);

  const places = {
    database: await databaseText(),
    log: world.h.logLines.join("\n"),
    responses: responses.join("\n"),
    platform: JSON.stringify(world.sim.requests()),
  };
  expect(places.log.length, "the run was logged at debug level").toBeGreaterThan(0);
  expect(places.platform).toContain("/users");
  for (const [place, text] of Object.entries(places)) {
    for (const secret of SECRETS) expect(standsIn(text, secret), `${JSON.stringify(secret)} found in the ${place}`).toBe(false);
  }
});
