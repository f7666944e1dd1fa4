import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PUBLISH_RESERVATION_TTL_MS } from "../../lib/ads/quota";
import { describeResponse, type Ads, type ErrorEnvelope, type StateDetails, type CallResult } from "../helpers/harness";
import { createAd, createAdsWorld, onboardedCustomer, type AdsWorld, type OnboardedCustomer } from "./support/ads-world";

/**
 * The included-ads quota under concurrency and failure: the count and the slot it hands out are one atomic
 * step, a failed publish gives its slot back, and a slot held by a publish that never finished expires.
 */
let world: AdsWorld;
beforeAll(async () => {
  world = await createAdsWorld();
});
afterAll(async () => world.close());

const STARTER_INCLUDED = 5;

/** A Starter customer one ad short of its monthly quota, and the ad set and final creative to publish with. */
async function oneSlotLeft(name: string) {
  const own = await onboardedCustomer(world, name);
  const first = await createAd(world, own);
  for (let i = 0; i < STARTER_INCLUDED - 2; i++) {
    const r = await publish(own, first);
    expect(r.status, describeResponse(r)).toBe(201);
  }
  return { own, first };
}

/** The creative is final after the first ad, so each publish is exactly one platform call (`POST …/ads`). */
function publish<T = Ads["createAd"]>(own: OnboardedCustomer, first: { ad_set_id: string; creative_id: string }) {
  return world.h.call<T>("POST", "/ads/v1/ads", { key: own.adsFull, body: { ad_set_id: first.ad_set_id, creative_id: first.creative_id } });
}

async function heldSlots(customerId: string): Promise<number> {
  const result = await world.h.db.execute(sql`select count(*)::int as held from ads_publish_reservations where customer_id = ${customerId}`);
  return Number((result as unknown as { rows: { held: number }[] }).rows[0]?.held);
}

async function adCount(own: OnboardedCustomer): Promise<number> {
  const r = await world.h.call<Ads["listAds"]>("GET", "/ads/v1/ads?limit=100", { key: own.adsReporting });
  expect(r.status, describeResponse(r)).toBe(200);
  return (r.json.data as unknown[]).length;
}

describe("quota: the last included ad", () => {
  test("concurrent creates for the last slot: exactly one is published, the others get 402 before any platform call", async () => {
    const { own, first } = await oneSlotLeft("Quota race");
    world.sim.clearRequests();
    // Slow platform answers keep every request in flight together, the window a read-then-write check loses.
    world.sim.setLatency(25);
    let answers: CallResult<ErrorEnvelope>[];
    try {
      answers = await Promise.all(Array.from({ length: 6 }, () => publish<ErrorEnvelope>(own, first)));
    } finally {
      world.sim.setLatency(0);
    }
    const all = answers.map(describeResponse).join("\n");
    expect(answers.map((r) => r.status).sort(), all).toEqual([201, 402, 402, 402, 402, 402]);
    for (const refused of answers.filter((r) => r.status === 402)) {
      expect(refused.json.error, describeResponse(refused)).toMatchObject({
        code: "quota_exceeded",
        details: { included_ads: STARTER_INCLUDED, published_this_month: STARTER_INCLUDED },
      });
    }
    const created = world.sim.requests().filter((request) => request.method === "POST" && request.path.endsWith("/ads"));
    expect(created, "one ad was created upstream").toHaveLength(1);
    expect(await adCount(own)).toBe(STARTER_INCLUDED);
    expect(await heldSlots(own.id), "no slot is left held").toBe(0);
  });

  // PGlite runs one transaction at a time, so only a server shows whether the count-and-hold step itself is
  // atomic. A second connection holds the reservations table until every request waits at that step; then
  // all of them go on together, the moment a count without the per-customer lock would let several through.
  test.runIf(process.env.DATABASE_URL)(
    `on PostgreSQL, requests released into the count-and-hold step at the same moment still get one slot${process.env.DATABASE_URL ? "" : " — skipped: DATABASE_URL is not set (PGlite runs one transaction at a time)"}`,
    async () => {
      const { own, first } = await oneSlotLeft("Quota race server");
      const blocker = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await blocker.connect();
      let answers: Awaited<ReturnType<typeof publish>>[];
      try {
        await blocker.query("begin");
        await blocker.query("lock table ads_publish_reservations in exclusive mode");
        const pending = Promise.all(Array.from({ length: 6 }, () => publish(own, first)));
        for (let polls = 0; ; polls++) {
          // Inside a transaction the activity view is a snapshot taken once; clear it to see the requests arrive.
          await blocker.query("select pg_stat_clear_snapshot()");
          const waiting = await blocker.query<{ n: number }>(
            "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and (query ilike '%ads_publish_reservations%' or query ilike '%pg_advisory_xact_lock%')",
          );
          if ((waiting.rows[0]?.n ?? 0) >= 6) break;
          if (polls > 2000) throw new Error("the requests never reached the reservation step");
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        await blocker.query("commit");
        answers = await pending;
      } finally {
        await blocker.query("rollback").catch(() => undefined);
        await blocker.end();
      }
      expect(answers.map((r) => r.status).sort(), answers.map(describeResponse).join("\n")).toEqual([201, 402, 402, 402, 402, 402]);
      expect(await adCount(own)).toBe(STARTER_INCLUDED);
    },
  );

  test("a platform refusal releases the slot: no counted phantom, the next create gets it", async () => {
    const { own, first } = await oneSlotLeft("Quota refusal");
    world.sim.failNext({ code: 100, userTitle: "Invalid Ad", userMessage: "The ad could not be created.", match: { method: "POST", path: "/ads" } });
    const refused = await publish(own, first);
    expect(refused.status, describeResponse(refused)).toBe(422);
    expect(await heldSlots(own.id)).toBe(0);

    const next = await publish(own, first);
    expect(next.status, describeResponse(next)).toBe(201);
    const over = await publish<ErrorEnvelope<StateDetails>>(own, first);
    expect(over.status, describeResponse(over)).toBe(402);
    expect(over.json.error.details.published_this_month).toBe(STARTER_INCLUDED);
  });

  test("a platform outage releases the slot too", async () => {
    const { own, first } = await oneSlotLeft("Quota outage");
    world.sim.failNext({ code: 2, count: 3, match: { method: "POST", path: "/ads" } });
    const failed = await publish(own, first);
    expect(failed.status, describeResponse(failed)).toBe(500);
    expect(await heldSlots(own.id)).toBe(0);
    const next = await publish(own, first);
    expect(next.status, describeResponse(next)).toBe(201);
  });

  test("a slot held by a publish that never finished counts until it expires", async () => {
    const { own, first } = await oneSlotLeft("Quota crash");
    const now = world.h.clock.now();
    // What a process that died between taking the slot and recording the ad leaves behind.
    await world.h.db.execute(
      sql`insert into ads_publish_reservations (customer_id, created_at, expires_at) values (${own.id}, ${now.toISOString()}, ${new Date(now.getTime() + PUBLISH_RESERVATION_TTL_MS).toISOString()})`,
    );
    const blocked = await publish<ErrorEnvelope<StateDetails>>(own, first);
    expect(blocked.status, describeResponse(blocked)).toBe(402);
    expect(blocked.json.error.details.published_this_month).toBe(STARTER_INCLUDED);

    world.h.clock.advance(PUBLISH_RESERVATION_TTL_MS);
    const next = await publish(own, first);
    expect(next.status, describeResponse(next)).toBe(201);
    expect(await heldSlots(own.id), "the expired slot was cleared").toBe(0);
  });
});
