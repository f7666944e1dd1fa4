import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ManualClock } from "../../lib/base/clock";
import { MATCH_SCHEMA, sha256 } from "../../lib/ads/audiences/contacts";
import { createGraphClient, PlatformError, type GraphSession } from "../../lib/ads/platform";
import { startGraphSimulator, type RunningGraphSimulator } from "../../lib/ads/platform/simulator/server";

/** The Graph client over HTTP against the simulator: the audience and search calls the service makes. */
const ACCOUNT = "act_880000001";
const BUILD_MS = 60 * 60_000;
let running: RunningGraphSimulator;
let session: GraphSession;
const clock = new ManualClock("2026-05-04T08:00:00.000Z");

beforeAll(async () => {
  running = await startGraphSimulator({
    clock,
    lookalikeBuildMs: BUILD_MS,
    apps: [{ appSecret: "s3cret-sim", accessTokens: ["EAAaudienceTOKEN1"] }],
    adAccounts: [{ id: ACCOUNT }],
  });
  session = createGraphClient({ baseUrl: running.graphUrl, maxAttempts: 1 }).connect({ accessToken: "EAAaudienceTOKEN1", appSecret: "s3cret-sim" });
});
afterAll(async () => running.close());

const rows = (count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => MATCH_SCHEMA.map((key) => (key === "EMAIL" ? sha256(`p${from + i}@example.com`) : "")));
const batch = (data: string[][], seq = 1, last = true, sessionId = 42) => ({
  schema: MATCH_SCHEMA,
  data,
  session: { session_id: sessionId, batch_seq: seq, last_batch_flag: last, estimated_num_total: data.length },
});
const newAudience = async (name = "CRM") =>
  (await session.createCustomAudience(ACCOUNT, { name, subtype: "CUSTOM", customer_file_source: "USER_PROVIDED_ONLY" })).id;
async function platformError(promise: Promise<unknown>): Promise<PlatformError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof PlatformError)) throw new Error(`expected a PlatformError, got ${String(error)}`);
  return error;
}

describe("custom audiences and /users", () => {
  test("adds and removes rows, counts invalid entries, reports sizes and statuses", async () => {
    const id = await newAudience();
    const added = await session.audienceUsers(id, "add", batch([...rows(120), ["nothex", ...Array(9).fill("")], Array(10).fill(""), ["a", "b"]]));
    expect(added).toMatchObject({ audience_id: id, session_id: "42", num_received: 123, num_invalid_entries: 3 });
    expect(await session.getCustomAudience(id)).toMatchObject({
      approximate_count_lower_bound: 120,
      delivery_status: { code: 200 },
      operation_status: { code: 200 },
    });
    await session.audienceUsers(id, "remove", batch(rows(30), 1, true, 43));
    expect(await session.getCustomAudience(id)).toMatchObject({ approximate_count_lower_bound: 90 });
  });

  test("sessions: batches in order, a resent batch counts once, a closed session takes no more", async () => {
    const id = await newAudience();
    await session.audienceUsers(id, "add", batch(rows(50), 1, false, 7));
    await session.audienceUsers(id, "add", batch(rows(50), 1, false, 7));
    await session.audienceUsers(id, "add", batch(rows(50, 50), 2, true, 7));
    expect((await session.getCustomAudience(id)).approximate_count_lower_bound).toBe(100);
    const closed = await platformError(session.audienceUsers(id, "add", batch(rows(1, 500), 3, true, 7)));
    expect(closed).toMatchObject({ code: 100, kind: "validation" });
  });

  test("more than 10,000 rows in one request, or a schema the platform does not know, are refused", async () => {
    const id = await newAudience();
    expect(await platformError(session.audienceUsers(id, "add", batch(rows(10_001))))).toMatchObject({ code: 100 });
    expect(await platformError(session.audienceUsers(id, "add", { ...batch(rows(1)), schema: ["E_MAIL"] }))).toMatchObject({ code: 100 });
  });

  test("a restricted audience answers 100/1713230 on membership changes and operation status 471", async () => {
    const id = await newAudience("Flagged SIM_RESTRICTED");
    const error = await platformError(session.audienceUsers(id, "add", batch(rows(1))));
    expect(error).toMatchObject({ code: 100, subcode: 1713230, userTitle: "Audience Upload Blocked" });
    expect((await session.getCustomAudience(id)).operation_status).toMatchObject({ code: 471 });
  });

  test("a lookalike needs a seed of 100, populates, then is ready with a size; deleted audiences are gone", async () => {
    const seed = await newAudience();
    await session.audienceUsers(seed, "add", batch(rows(99)));
    const spec = { country: "AT", ratio: 0.05 };
    expect(
      await platformError(session.createLookalikeAudience(ACCOUNT, { name: "L", subtype: "LOOKALIKE", origin_audience_id: seed, lookalike_spec: spec })),
    ).toMatchObject({
      code: 100,
      field: "origin_audience_id",
      userTitle: "Source Audience Too Small",
    });
    await session.audienceUsers(seed, "add", batch(rows(1, 99), 1, true, 9));
    const { id } = await session.createLookalikeAudience(ACCOUNT, { name: "L", subtype: "LOOKALIKE", origin_audience_id: seed, lookalike_spec: spec });
    expect(await session.getCustomAudience(id)).toMatchObject({ approximate_count_lower_bound: -1, operation_status: { code: 441 } });
    clock.advance(BUILD_MS);
    expect(await session.getCustomAudience(id)).toMatchObject({ approximate_count_lower_bound: 270_000, delivery_status: { code: 200 } });
    await session.updateCustomAudience(id, { name: "Renamed" });
    expect((await session.getCustomAudience(id)).name).toBe("Renamed");
    await session.deleteCustomAudience(id);
    expect(await platformError(session.getCustomAudience(id))).toMatchObject({ code: 100, subcode: 33 });
  });
});

describe("targeting search", () => {
  test("cities: prefix and accent-insensitive, country filter, DACH data with umlauts", async () => {
    const munich = await session.searchCities("munch", { limit: 5 });
    expect(munich[0]).toMatchObject({ key: "2867714", name: "München", type: "city", country_code: "DE", region: "Bavaria" });
    expect((await session.searchCities("ZUR", { countryCode: "CH", limit: 3 }))[0]).toMatchObject({ name: "Zürich", country_code: "CH" });
    expect((await session.searchCities("wien", { limit: 3 }))[0]).toMatchObject({ name: "Wien", country_code: "AT" });
    const main = await session.searchCities("main", { countryCode: "DE", limit: 50 });
    expect(main.map((city) => city.name)).toContain("Frankfurt am Main");
    expect(main.every((city) => city.country_code === "DE")).toBe(true);
    expect(await session.searchCities("xyzzy", { limit: 5 })).toEqual([]);
  });

  test("interests: word prefixes, bounds instead of one size", async () => {
    const found = await session.searchInterests("run", { limit: 10 });
    expect(found.map((interest) => interest.name)).toEqual(expect.arrayContaining(["Running", "Trail running"]));
    expect(found.find((interest) => interest.name === "Running")).toMatchObject({
      id: "6003139266461",
      audience_size_lower_bound: expect.any(Number),
      audience_size_upper_bound: expect.any(Number),
      path: ["Sports and outdoors", "Sports"],
    });
  });
});
