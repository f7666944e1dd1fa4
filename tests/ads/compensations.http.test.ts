import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { COMPENSATION_GRACE_MS } from "../../lib/ads/compensations";
import { findCronJob } from "../../lib/cron";
import { adsCompensations } from "../../lib/db/schema";
import { describeResponse, type Ads } from "../helpers/harness";
import { createAdSet, createAdsWorld, onboardedCustomer, uploadImage, type AdsWorld, type OnboardedCustomer } from "./support/ads-world";

/**
 * No orphan objects upstream: a real database failure is injected after the platform's create (a trigger
 * this test installs, firing for this customer's rows only), and the object must be gone upstream with its
 * compensation record settled — for each of the five kinds of platform objects our API creates.
 */
let world: AdsWorld;
let c: OnboardedCustomer;
beforeAll(async () => {
  world = await createAdsWorld();
  c = await onboardedCustomer(world, "Compensations");
});
afterAll(async () => world.close());

/** Runs `act` while every `operation` on `table` for this customer fails inside the database. */
async function withFault<T>(table: string, operation: "insert" | "update", act: () => Promise<T>): Promise<T> {
  const db = world.h.deps.db;
  await db.execute(
    sql.raw(`create or replace function test_injected_fault() returns trigger language plpgsql as $$ begin raise exception 'injected fault'; end $$`),
  );
  await db.execute(
    sql.raw(
      `create trigger test_injected_fault before ${operation} on ${table} for each row when (new.customer_id = '${c.id}') execute function test_injected_fault()`,
    ),
  );
  try {
    return await act();
  } finally {
    await db.execute(sql.raw(`drop trigger test_injected_fault on ${table}`));
  }
}

async function records() {
  return world.h.deps.db.select().from(adsCompensations).where(eq(adsCompensations.customerId, c.id));
}

async function newRecords(before: number) {
  const rows = await records();
  return rows.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()).slice(before);
}

describe("a failed local write after the platform's create", () => {
  test("ad set: deleted upstream, record settled", async () => {
    const before = (await records()).length;
    const r = await withFault("ads_ad_sets", "insert", () =>
      world.h.call("POST", "/ads/v1/adsets", { key: c.adsFull, body: { target: "main", daily_budget_cents: 2500 } }),
    );
    expect(r.status, describeResponse(r)).toBe(500);
    const [record, ...rest] = await newRecords(before);
    expect(rest).toEqual([]);
    expect(record).toMatchObject({ kind: "adset", status: "done", settledAt: expect.any(Date) });
    expect(world.sim.state.adsets.get(record?.platformId ?? "")?.status).toBe("DELETED");
    expect((await world.h.call<Ads["listAdSets"]>("GET", "/ads/v1/adsets", { key: c.adsFull })).json.data).toEqual([]);
  });

  test("ad (and the final creative built for it): both deleted upstream, records settled", async () => {
    const adSet = await createAdSet(world, c);
    const hash = await uploadImage(world, c);
    const draft = await world.h.call<Ads["createCreative"]>("POST", "/ads/v1/creatives", { key: c.adsFull, body: { image_hash: hash } });
    const before = (await records()).length;
    const r = await withFault("ads_ads", "insert", () =>
      world.h.call("POST", "/ads/v1/ads", {
        key: c.adsFull,
        body: { ad_set_id: adSet.id, creative_id: draft.json.data.id, link: "https://shop.example.com/a", status: "ACTIVE" },
      }),
    );
    expect(r.status, describeResponse(r)).toBe(500);
    const rows = await newRecords(before);
    expect(rows.map((row) => [row.kind, row.status])).toEqual([
      ["creative", "done"],
      ["ad", "done"],
    ]);
    const [creative, ad] = rows;
    expect(world.sim.state.ads.get(ad?.platformId ?? "")?.status).toBe("DELETED");
    expect(world.sim.state.creatives.has(creative?.platformId ?? "")).toBe(false);
    // The draft is still a draft: the same request succeeds once the database works.
    const again = await world.h.call("POST", "/ads/v1/ads", {
      key: c.adsFull,
      body: { ad_set_id: adSet.id, creative_id: draft.json.data.id, link: "https://shop.example.com/a" },
    });
    expect(again.status, describeResponse(again)).toBe(201);
  });

  test("creative: its record (the draft turning final) fails; creative and ad deleted upstream", async () => {
    const adSet = await createAdSet(world, c);
    const hash = await uploadImage(world, c, "/square-2.jpg");
    const draft = await world.h.call<Ads["createCreative"]>("POST", "/ads/v1/creatives", { key: c.adsFull, body: { image_hash: hash } });
    expect(draft.status, describeResponse(draft)).toBe(201);
    const before = (await records()).length;
    const r = await withFault("ads_creatives", "update", () =>
      world.h.call("POST", "/ads/v1/ads", {
        key: c.adsFull,
        body: { ad_set_id: adSet.id, creative_id: draft.json.data.id, link: "https://shop.example.com/c" },
      }),
    );
    expect(r.status, describeResponse(r)).toBe(500);
    const rows = await newRecords(before);
    const creative = rows.find((row) => row.kind === "creative");
    expect(creative).toMatchObject({ status: "done" });
    expect(world.sim.state.creatives.has(creative?.platformId ?? "")).toBe(false);
    expect(world.sim.state.ads.get(rows.find((row) => row.kind === "ad")?.platformId ?? "")?.status).toBe("DELETED");
  });

  test("custom audience: deleted upstream, record settled", async () => {
    const before = (await records()).length;
    const r = await withFault("ads_audiences", "insert", () =>
      world.h.call("POST", "/ads/v1/audiences/custom", { key: c.adsFull, body: { name: "CRM", contacts: [{ email: "anna@example.de" }] } }),
    );
    expect(r.status, describeResponse(r)).toBe(500);
    const [record] = await newRecords(before);
    expect(record).toMatchObject({ kind: "audience", status: "done" });
    expect(world.sim.state.audiences.has(record?.platformId ?? "")).toBe(false);
  });

  test("video: deleted upstream, record settled", async () => {
    const before = (await records()).length;
    const r = await withFault("ads_videos", "insert", () =>
      world.h.call("POST", "/ads/v1/media/videos", { key: c.adsFull, body: { url: "https://videos.example.com/spring.mp4" } }),
    );
    expect(r.status, describeResponse(r)).toBe(500);
    const [record] = await newRecords(before);
    expect(record).toMatchObject({ kind: "video", status: "done" });
    expect(world.sim.state.videos.has(record?.platformId ?? "")).toBe(false);
  });
});

test("a compensation the platform refuses at first stays pending and the sweep settles it later", async () => {
  const before = (await records()).length;
  const r = await withFault("ads_ad_sets", "insert", async () => {
    world.sim.failNext({ code: 2, count: 3, match: { method: "DELETE" } });
    return world.h.call("POST", "/ads/v1/adsets", { key: c.adsFull, body: { target: "main", daily_budget_cents: 2500 } });
  });
  expect(r.status, describeResponse(r)).toBe(500);
  const [pending] = await newRecords(before);
  expect(pending).toMatchObject({ kind: "adset", status: "pending", attempts: 1, lastError: expect.stringContaining("transient") });
  expect(world.sim.state.adsets.get(pending?.platformId ?? "")?.status).toBe("ACTIVE");

  const sweep = findCronJob("ads-compensations");
  if (!sweep) throw new Error("the ads-compensations cron is not registered");
  // Not before its time: the sweep leaves the row alone.
  expect(await sweep.run(world.h.cronDeps)).toEqual({ settled: 0, failed: 0 });
  world.h.clock.advance(COMPENSATION_GRACE_MS);
  expect(await sweep.run(world.h.cronDeps)).toEqual({ settled: 1, failed: 0 });
  const [settled] = await newRecords(before);
  expect(settled).toMatchObject({ status: "done", attempts: 2, lastError: null });
  expect(world.sim.state.adsets.get(pending?.platformId ?? "")?.status).toBe("DELETED");
});

test("a create whose local write succeeds leaves no compensation record", async () => {
  const before = (await records()).length;
  await createAdSet(world, c);
  expect((await records()).length).toBe(before);
});
