import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { MATCH_SCHEMA } from "../../lib/ads/audiences/contacts";
import { SIM_RESTRICTED_AUDIENCE } from "../../lib/ads/platform/simulator/markers";
import { describeResponse, type ErrorEnvelope, type Ads, type MissingDetails, type FieldIssue, type OpenApiDocument } from "../helpers/harness";
import { createAdsWorld, onboardedCustomer, type AdsWorld, type OnboardedCustomer } from "./support/ads-world";

let world: AdsWorld;
let c: OnboardedCustomer;
let other: OnboardedCustomer;
beforeAll(async () => {
  world = await createAdsWorld();
  c = await onboardedCustomer(world, "Audiences");
  other = await onboardedCustomer(world, "Audiences other");
});
afterAll(async () => world.close());

const call = <T>(method: string, path: string, body?: unknown, key = c.adsFull) => world.h.call<T>(method, `/ads/v1${path}`, { key, body });
const contacts = (count: number, from = 0) => Array.from({ length: count }, (_, i) => ({ email: `person${from + i}@example.com` }));
/** `printf '%s' 'x@y.de' | sha256sum`, computed outside this code base. */
const HASH_X_AT_Y_DE = "731cea21d3242f1d658dfd5265051e85c12b1e620e74b2c823e2abd858a17b8b";
const simUploads = () => world.sim.requests().filter((r) => r.path.endsWith("/users"));

async function customAudience(body: Record<string, unknown>, key = c.adsFull) {
  const r = await call<Ads["createCustomAudience"]>("POST", "/audiences/custom", { name: "CRM", ...body }, key);
  expect(r.status, describeResponse(r)).toBe(201);
  return r.json.data;
}

describe("POST /v1/audiences/custom", () => {
  test("creates the audience upstream and uploads hashed rows in one session", async () => {
    world.sim.clearRequests();
    const data = await customAudience({
      name: "Newsletter",
      description: "Double opt-in",
      contacts: [
        {
          email: " X@Y.de ",
          phone: "+49 (0)171 1234567",
          first_name: "Anna",
          last_name: "Müller",
          city: "München",
          zip: "80331",
          country: "DE",
          date_of_birth: "1985-04-07",
        },
        { phone: "0171 7654321" },
        { first_name: "Nobody" },
      ],
    });
    expect(data).toMatchObject({
      name: "Newsletter",
      description: "Double opt-in",
      type: "CUSTOM",
      status: "TOO_SMALL",
      approximate_size: 1,
      origin_audience_id: null,
      lookalike: null,
      contacts: { sent: 1, removed: 0, invalid: 2 },
      platform_audience_id: expect.stringMatching(/^\d+$/),
      upload: {
        operation: "add",
        received: 3,
        sent: 1,
        invalid: 2,
        invalid_contacts: [
          { index: 1, fields: ["phone"] },
          { index: 2, fields: ["email", "phone"] },
        ],
        partial_contacts: [],
        platform_received: 1,
        platform_invalid: 0,
      },
    });
    const create = world.sim.requests().find((r) => r.path.endsWith("/customaudiences"));
    expect(create?.form).toMatchObject({ name: "Newsletter", subtype: "CUSTOM", customer_file_source: "USER_PROVIDED_ONLY" });
    const [upload] = simUploads();
    expect(upload?.method).toBe("POST");
    const payload = JSON.parse(upload?.form.payload ?? "{}");
    expect(payload.schema).toEqual([...MATCH_SCHEMA]);
    expect(payload.data).toHaveLength(1);
    expect(payload.data[0][0]).toBe(HASH_X_AT_Y_DE);
    expect(payload.data[0].every((cell: string) => /^[0-9a-f]{64}$/.test(cell))).toBe(true);
    expect(JSON.parse(upload?.form.session ?? "{}")).toEqual({ session_id: expect.any(Number), batch_seq: 1, last_batch_flag: true, estimated_num_total: 1 });
    expect(world.sim.state.audiences.get(data.platform_audience_id)?.name).toBe("Newsletter");
  });

  test("an empty audience is allowed; contacts come later", async () => {
    world.sim.clearRequests();
    const data = await customAudience({ contacts: [] });
    expect(data).toMatchObject({ status: "TOO_SMALL", approximate_size: 0, upload: { received: 0, sent: 0 } });
    expect(simUploads()).toHaveLength(0);
  });

  test("10,000 contacts in one call are accepted, 10,001 are 422", async () => {
    const ok = await customAudience({ contacts: contacts(10_000) });
    expect(ok).toMatchObject({ status: "READY", approximate_size: 10_000, upload: { sent: 10_000, platform_received: 10_000 } });
    const r = await call<ErrorEnvelope>("POST", "/audiences/custom", { name: "Too many", contacts: contacts(10_001) });
    expect(r.status, describeResponse(r)).toBe(422);
    expect(r.json.error.details).toEqual([{ field: "contacts", issue: expect.stringContaining("10000") }]);
  });

  test.each([
    ["no name", { contacts: [] }, 400],
    ["no contacts", { name: "X" }, 400],
    ["an empty name", { name: " ", contacts: [] }, 422],
    ["an unknown contact field", { name: "X", contacts: [{ mail: "x@y.de" }] }, 422],
    ["a contact value of the wrong type", { name: "X", contacts: [{ email: 42 }] }, 422],
    ["an unknown field", { name: "X", contacts: [], colour: "red" }, 422],
  ])("%s → %i", async (_label, body, status) => {
    const r = await call("POST", "/audiences/custom", body);
    expect(r.status, describeResponse(r)).toBe(status);
  });

  test("a failed status read after the create still answers 201, without status", async () => {
    world.sim.failNext({ code: 2, isTransient: true, httpStatus: 503, count: 3, match: { method: "GET" } });
    const data = await customAudience({ name: "Status later", contacts: contacts(2) });
    expect(data).toMatchObject({ status: null, status_checked_at: null, upload: { sent: 2 } });
    expect((await call<Ads["getAudience"]>("GET", `/audiences/${data.id}`)).json.data).toMatchObject({ status: "TOO_SMALL", approximate_size: 2 });
  });

  test("a platform failure during the first upload leaves no audience behind", async () => {
    const before = world.sim.state.audiences.size;
    world.sim.failNext({ code: 2, isTransient: true, httpStatus: 503, count: 3, match: { path: "/users" } });
    const r = await call<ErrorEnvelope>("POST", "/audiences/custom", { name: "Fails", contacts: contacts(3) });
    expect(r.status, describeResponse(r)).toBe(500);
    expect(r.json.error.message).toContain("temporarily unavailable");
    expect(world.sim.state.audiences.size).toBe(before);
    const list = await call<Ads["listAudiences"]>("GET", "/audiences?limit=100");
    expect(list.json.data.map((a: { name: string }) => a.name)).not.toContain("Fails");
  });
});

describe("contacts, lookalikes, status", () => {
  test("add and remove contacts; the size follows; a lookalike populates and becomes ready over simulated time", async () => {
    const seed = await customAudience({ name: "Seed", contacts: contacts(60) });
    expect(seed.status).toBe("TOO_SMALL");

    const small = await call<ErrorEnvelope>("POST", "/audiences/lookalike", { name: "Too early", origin_audience_id: seed.id, country: "DE", ratio: 0.01 });
    expect(small.status, describeResponse(small)).toBe(422);
    expect(small.json.error.details).toEqual([{ field: "origin_audience_id", issue: expect.stringContaining("at least 100") }]);

    const added = await call<Ads["addAudienceContacts"]>("POST", `/audiences/${seed.id}/contacts`, { contacts: [...contacts(60, 60), { phone: "123" }] });
    expect(added.status, describeResponse(added)).toBe(200);
    expect(added.json.data).toMatchObject({ operation: "add", received: 61, sent: 60, invalid: 1, invalid_contacts: [{ index: 60, fields: ["phone"] }] });
    const afterAdd = await call<Ads["getAudience"]>("GET", `/audiences/${seed.id}`);
    expect(afterAdd.json.data).toMatchObject({ status: "READY", approximate_size: 120, contacts: { sent: 120, removed: 0, invalid: 1 } });

    world.sim.clearRequests();
    const removed = await call<Ads["removeAudienceContacts"]>("DELETE", `/audiences/${seed.id}/contacts`, { contacts: contacts(10) });
    expect(removed.status, describeResponse(removed)).toBe(200);
    expect(removed.json.data).toMatchObject({ operation: "remove", received: 10, sent: 10 });
    expect(simUploads()[0]?.method).toBe("DELETE");
    // An e-mail-only list sends only the EMAIL key.
    expect(JSON.parse(simUploads()[0]?.form.payload ?? "{}")).toMatchObject({
      schema: ["EMAIL"],
      data: [[expect.stringMatching(/^[0-9a-f]{64}$/)], ...Array(9).fill([expect.any(String)])],
    });
    const afterRemove = await call<Ads["getAudience"]>("GET", `/audiences/${seed.id}`);
    expect(afterRemove.json.data).toMatchObject({ approximate_size: 110, contacts: { sent: 120, removed: 10 } });

    const lookalike = await call<Ads["createLookalikeAudience"]>("POST", "/audiences/lookalike", {
      name: "Twins DE",
      origin_audience_id: seed.id,
      country: "DE",
      ratio: 0.02,
    });
    expect(lookalike.status, describeResponse(lookalike)).toBe(201);
    expect(lookalike.json.data).toMatchObject({
      type: "LOOKALIKE",
      status: "POPULATING",
      approximate_size: null,
      origin_audience_id: seed.id,
      lookalike: { country: "DE", ratio: 0.02 },
      contacts: null,
    });
    const sent =
      world.sim
        .requests()
        .filter((r) => r.path.endsWith("/customaudiences"))
        .pop()?.form ?? {};
    expect(sent).toMatchObject({ subtype: "LOOKALIKE", origin_audience_id: seed.platform_audience_id });
    expect(JSON.parse(sent.lookalike_spec ?? "{}")).toMatchObject({ country: "DE", ratio: 0.02 });

    const id = lookalike.json.data.id;
    world.sim.advance(31 * 60_000);
    const cached = await call<Ads["getAudience"]>("GET", `/audiences/${id}`);
    expect(cached.json.data.status, "read again within the cache window").toBe("POPULATING");
    // A populating audience is asked again after 5 s (a ready one after 60 s).
    world.h.clock.advance(4_000);
    expect((await call<Ads["getAudience"]>("GET", `/audiences/${id}`)).json.data.status, "4 s later").toBe("POPULATING");
    world.h.clock.advance(1_500);
    const ready = await call<Ads["getAudience"]>("GET", `/audiences/${id}`);
    expect(ready.json.data).toMatchObject({ status: "READY", approximate_size: 760_000, status_description: "This audience is ready for use." });

    const onLookalike = await call<ErrorEnvelope>("POST", `/audiences/${id}/contacts`, { contacts: contacts(1) });
    expect(onLookalike.status, describeResponse(onLookalike)).toBe(409);
    expect(onLookalike.json.error.details).toEqual({ reason: "not_a_custom_audience" });

    const fromLookalike = await call("POST", "/audiences/lookalike", { name: "X", origin_audience_id: id, country: "AT", ratio: 0.01 });
    expect(fromLookalike.status).toBe(422);
  });

  test.each([
    ["a ratio above 0.20", { ratio: 0.25 }, "ratio"],
    ["a ratio below 0.01", { ratio: 0 }, "ratio"],
    ["a ratio between whole percents", { ratio: 0.015 }, "ratio"],
    ["a country outside DACH", { country: "FR" }, "country"],
    ["an unknown origin", { origin_audience_id: "0f8fad5b-d9cb-469f-a165-70867728950e" }, "origin_audience_id"],
  ])("lookalike: 422 for %s", async (_label, change, fieldName) => {
    const r = await call<ErrorEnvelope<FieldIssue[]>>("POST", "/audiences/lookalike", {
      name: "L",
      origin_audience_id: "0f8fad5b-d9cb-469f-a165-70867728950e",
      country: "DE",
      ratio: 0.01,
      ...change,
    });
    expect(r.status, describeResponse(r)).toBe(422);
    expect(r.json.error.details.map((d: { field: string }) => d.field)).toContain(fieldName);
  });

  test("another customer's custom audience is no origin", async () => {
    const theirs = await customAudience({ contacts: contacts(150) }, other.adsFull);
    const r = await call<ErrorEnvelope>("POST", "/audiences/lookalike", { name: "L", origin_audience_id: theirs.id, country: "DE", ratio: 0.01 });
    expect(r.status, describeResponse(r)).toBe(422);
    expect(r.json.error.details).toEqual([{ field: "origin_audience_id", issue: "No custom audience with this id." }]);
  });

  test("an audience restricted after its last read shows RESTRICTED right after a refused change", async () => {
    const audience = await customAudience({ name: "Later flagged", contacts: contacts(150) });
    expect(audience.status).toBe("READY");
    const upstream = world.sim.state.audiences.get(audience.platform_audience_id);
    if (upstream) upstream.restricted = true;
    expect((await call("POST", `/audiences/${audience.id}/contacts`, { contacts: contacts(1) })).status).toBe(409);
    expect((await call<Ads["getAudience"]>("GET", `/audiences/${audience.id}`)).json.data.status).toBe("RESTRICTED");
  });

  test("a restricted audience refuses membership changes with 409 and shows RESTRICTED", async () => {
    const restricted = await customAudience({ name: `Flagged ${SIM_RESTRICTED_AUDIENCE}`, contacts: [] });
    expect(restricted.status).toBe("RESTRICTED");
    for (const method of ["POST", "DELETE"]) {
      const r = await call<ErrorEnvelope>(method, `/audiences/${restricted.id}/contacts`, { contacts: contacts(2) });
      expect(r.status, describeResponse(r)).toBe(409);
      expect(r.json.error.details).toEqual({ reason: "audience_restricted" });
      expect(r.json.error.message).toContain("471");
    }
  });
});

describe("list, rename, delete, isolation", () => {
  test("removing contacts needs a JSON body; a NUL in it is refused like anywhere else", async () => {
    const audience = await customAudience({ contacts: [] });
    const bare = await world.h.call("DELETE", `/ads/v1/audiences/${audience.id}/contacts`, { key: c.adsFull });
    expect(bare.status, describeResponse(bare)).toBe(400);
    const broken = await world.h.call("DELETE", `/ads/v1/audiences/${audience.id}/contacts`, {
      key: c.adsFull,
      rawBody: "{",
      headers: { "content-type": "application/json" },
    });
    expect(broken.status, describeResponse(broken)).toBe(400);
    const nul = await call<ErrorEnvelope>("DELETE", `/audiences/${audience.id}/contacts`, { contacts: [{ email: "a\u0000@b.de" }] });
    expect(nul.status, describeResponse(nul)).toBe(422);
    expect(nul.json.error.details).toEqual([{ field: "contacts.0.email", issue: expect.stringContaining("NUL") }]);
  });

  test("list newest first with limit/offset and a type filter", async () => {
    const own = await onboardedCustomer(world, "Audience list");
    const first = await customAudience({ name: "A1", contacts: [] }, own.adsFull);
    world.h.clock.advance(1_000);
    const second = await customAudience({ name: "A2", contacts: [] }, own.adsFull);
    const page = await call<Ads["listAudiences"]>("GET", "/audiences?limit=1&offset=0", undefined, own.adsReporting);
    expect(page.status, describeResponse(page)).toBe(200);
    expect(page.json.data.map((a: { id: string }) => a.id)).toEqual([second.id]);
    const next = await call<Ads["listAudiences"]>("GET", "/audiences?limit=1&offset=1", undefined, own.adsReporting);
    expect(next.json.data.map((a: { id: string }) => a.id)).toEqual([first.id]);
    const lookalikes = await call<Ads["listAudiences"]>("GET", "/audiences?type=LOOKALIKE", undefined, own.adsReporting);
    expect(lookalikes.json.data).toEqual([]);
    expect((await call("GET", "/audiences?limit=101", undefined, own.adsReporting)).status).toBe(422);
  });

  test("PATCH renames here and upstream; DELETE deletes upstream and here", async () => {
    const audience = await customAudience({ name: "Old", contacts: [] });
    const renamed = await call<Ads["updateAudience"]>("PATCH", `/audiences/${audience.id}`, { name: "New", description: "Changed" });
    expect(renamed.status, describeResponse(renamed)).toBe(200);
    expect(renamed.json.data).toMatchObject({ name: "New", description: "Changed" });
    expect(world.sim.state.audiences.get(audience.platform_audience_id)).toMatchObject({ name: "New", description: "Changed" });
    expect((await call("PATCH", `/audiences/${audience.id}`, { type: "LOOKALIKE" })).status).toBe(422);

    const deleted = await call<Ads["deleteAudience"]>("DELETE", `/audiences/${audience.id}`);
    expect(deleted.status, describeResponse(deleted)).toBe(200);
    expect(deleted.json.data).toEqual({ id: audience.id, deleted: true });
    expect(world.sim.state.audiences.has(audience.platform_audience_id)).toBe(false);
    expect((await call("GET", `/audiences/${audience.id}`)).status).toBe(404);
  });

  test("an audience already gone upstream reads as UNAVAILABLE and is deleted here all the same", async () => {
    const audience = await customAudience({ contacts: [] });
    world.sim.state.audiences.delete(audience.platform_audience_id);
    world.h.clock.advance(61_000);
    const read = await call<Ads["getAudience"]>("GET", `/audiences/${audience.id}`);
    expect(read.status, describeResponse(read)).toBe(200);
    expect(read.json.data).toMatchObject({ status: "UNAVAILABLE", approximate_size: null, status_description: expect.stringContaining("delete it here too") });
    for (const [method, path, body] of [
      ["PATCH", `/audiences/${audience.id}`, { name: "Renamed" }],
      ["POST", `/audiences/${audience.id}/contacts`, { contacts: contacts(1) }],
    ] as const) {
      const r = await call<ErrorEnvelope>(method, path, body);
      expect(r.status, describeResponse(r)).toBe(409);
      expect(r.json.error.details).toEqual({ reason: "audience_gone" });
    }
    const r = await call("DELETE", `/audiences/${audience.id}`);
    expect(r.status, describeResponse(r)).toBe(200);
  });

  test("another customer's id answers 404 on every audience route", async () => {
    const theirs = await customAudience({ contacts: [] }, other.adsFull);
    for (const [method, path, body] of [
      ["GET", `/audiences/${theirs.id}`, undefined],
      ["PATCH", `/audiences/${theirs.id}`, { name: "Mine now" }],
      ["DELETE", `/audiences/${theirs.id}`, undefined],
      ["POST", `/audiences/${theirs.id}/contacts`, { contacts: contacts(1) }],
      ["DELETE", `/audiences/${theirs.id}/contacts`, { contacts: contacts(1) }],
    ] as const) {
      const r = await call(method, path, body);
      expect(r.status, `${method} ${path}: ${describeResponse(r)}`).toBe(404);
    }
    expect((await call<Ads["getAudience"]>("GET", `/audiences/${theirs.id}`, undefined, other.adsFull)).json.data.name).toBe("CRM");
  });

  test("the reporting scope reads but does not write; no onboarding is 422 missing", async () => {
    expect((await call("POST", "/audiences/custom", { name: "X", contacts: [] }, c.adsReporting)).status).toBe(403);
    expect((await call("GET", "/audiences", undefined, c.adsReporting)).status).toBe(200);
    const fresh = await world.h.customer("No onboarding");
    const r = await call<ErrorEnvelope<MissingDetails>>("POST", "/audiences/custom", { name: "X", contacts: [] }, fresh.adsFull);
    expect(r.status, describeResponse(r)).toBe(422);
    expect(r.json.error.details.missing).toEqual(expect.arrayContaining(["access_token"]));
  });
});

describe("routing and documentation", () => {
  test("served under /v1/platform/… too, 405 with Allow, documented once under /v1/…", async () => {
    const audience = await customAudience({ contacts: [] });
    const alias = await world.h.call<Ads["getAudience"]>("GET", `/ads/v1/platform/audiences/${audience.id}`, { key: c.adsReporting });
    expect(alias.json.data, describeResponse(alias)).toMatchObject({ id: audience.id });
    expect((await world.h.call("GET", "/ads/v1/platform/targeting/interests?q=yoga", { key: c.adsReporting })).status).toBe(200);
    const put = await call("PUT", "/audiences", {});
    expect(put.status, describeResponse(put)).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, HEAD");
    expect((await call("PUT", `/audiences/${audience.id}/contacts`, {})).headers.get("allow")).toBe("DELETE, POST");

    const doc = await world.h.call<OpenApiDocument>("GET", "/ads/v1/openapi.json");
    const paths = doc.json.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    for (const path of [
      "/v1/audiences",
      "/v1/audiences/custom",
      "/v1/audiences/lookalike",
      "/v1/audiences/{id}",
      "/v1/audiences/{id}/contacts",
      "/v1/targeting/geo",
      "/v1/targeting/interests",
    ]) {
      expect(Object.keys(paths), path).toContain(path);
    }
    expect(Object.keys(paths["/v1/audiences/{id}/contacts"] ?? {}).sort()).toEqual(["delete", "post"]);
    expect(Object.keys(paths["/v1/audiences/{id}/contacts"]?.post?.responses ?? {})).toEqual(expect.arrayContaining(["200", "404", "409", "422"]));
  });
});
