import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { describeResponse, type ErrorEnvelope, type Ads, type OpenApiDocument } from "../helpers/harness";
import { createAdSet, createAdsWorld, onboardedCustomer, type AdsWorld, type OnboardedCustomer } from "./support/ads-world";

let world: AdsWorld;
let c: OnboardedCustomer;
beforeAll(async () => {
  world = await createAdsWorld();
  c = await onboardedCustomer(world, "Routing");
});
afterAll(async () => world.close());

const GROUP_PATHS = [
  "/v1/media/images",
  "/v1/media/videos",
  "/v1/media/videos/{id}",
  "/v1/adsets",
  "/v1/adsets/{id}",
  "/v1/creatives",
  "/v1/creatives/{id}",
  "/v1/ads",
  "/v1/ads/{id}",
  "/v1/status/{ad_id}",
];

describe("/v1/platform/{group} alias", () => {
  test("serves the same operations as /v1/{group}", async () => {
    const created = await world.h.call<Ads["createAdSet"]>("POST", "/ads/v1/platform/adsets", {
      key: c.adsFull,
      body: { target: "main", daily_budget_cents: 1500 },
    });
    expect(created.status, describeResponse(created)).toBe(201);
    const canonical = await world.h.call<Ads["listAdSets"]>("GET", "/ads/v1/adsets", { key: c.adsFull });
    const alias = await world.h.call<Ads["listAdSets"]>("GET", "/ads/v1/platform/adsets", { key: c.adsFull });
    expect(alias.json.data, describeResponse(alias)).toEqual(canonical.json.data);
    const patched = await world.h.call<Ads["updateAdSet"]>("PATCH", `/ads/v1/platform/adsets/${created.json.data.id}`, {
      key: c.adsFull,
      body: { status: "PAUSED" },
    });
    expect(patched.json.data.status, describeResponse(patched)).toBe("PAUSED");
    for (const path of ["/ads/v1/platform/media/images", "/ads/v1/platform/media/videos", "/ads/v1/platform/creatives", "/ads/v1/platform/ads"]) {
      const r = await world.h.call("GET", path, { key: c.adsReporting });
      expect(r.status, `${path}: ${describeResponse(r)}`).toBe(200);
    }
    const status = await world.h.call("GET", `/ads/v1/platform/status/${crypto.randomUUID()}`, { key: c.adsReporting });
    expect(status.status, describeResponse(status)).toBe(404);
  });

  test("applies the same rules (locked fields, scopes) and answers 405 with Allow", async () => {
    const locked = await world.h.call<ErrorEnvelope>("POST", "/ads/v1/platform/adsets", {
      key: c.adsFull,
      body: { target: "main", daily_budget_cents: 1500, name: "x" },
    });
    expect(locked.json.error?.details, describeResponse(locked)).toEqual({ locked_fields: ["name"] });
    expect((await world.h.call("POST", "/ads/v1/platform/adsets", { key: c.adsReporting, body: { target: "main", daily_budget_cents: 1500 } })).status).toBe(
      403,
    );
    const wrong = await world.h.call("PUT", "/ads/v1/platform/adsets", { key: c.adsFull, body: {} });
    expect(wrong.status, describeResponse(wrong)).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET, HEAD, POST");
    const adSet = await createAdSet(world, c);
    const put = await world.h.call("PUT", `/ads/v1/adsets/${adSet.id}`, { key: c.adsFull, body: {} });
    expect(put.headers.get("allow"), describeResponse(put)).toBe("DELETE, PATCH");
  });
});

describe("OpenAPI document", () => {
  test("documents every group once under /v1/{group} and states the alias", async () => {
    const doc = await world.h.call<OpenApiDocument>("GET", "/ads/v1/openapi.json");
    const paths = Object.keys(doc.json.paths as Record<string, unknown>);
    for (const path of GROUP_PATHS) expect(paths, path).toContain(path);
    expect(paths.filter((path) => path.startsWith("/v1/platform/"))).toEqual([]);
    expect(doc.json.info.description).toContain("/v1/platform/{group}");
    const create = doc.json.paths["/v1/adsets"].post;
    for (const status of ["400", "401", "402", "403", "409", "422", "429"]) expect(Object.keys(create.responses), status).toContain(status);
    expect(create.description).toContain("locked_fields");
  });

  test("the admin document has the onboarding, target and naming operations", async () => {
    const doc = await world.h.call<OpenApiDocument>("GET", "/admin/v1/openapi.json");
    const paths = Object.keys(doc.json.paths as Record<string, unknown>);
    expect(paths).toEqual(
      expect.arrayContaining([
        "/v1/customers/{id}/ads/account",
        "/v1/customers/{id}/ads/targets",
        "/v1/customers/{id}/ads/targets/{key}",
        "/v1/customers/{id}/ads/naming",
      ]),
    );
  });
});
