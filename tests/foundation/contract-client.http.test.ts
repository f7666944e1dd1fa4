import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { seedDemoAds } from "../../lib/ads/seed";
import { DEMO_TRANSACTIONAL_TEMPLATE } from "../../lib/mail/seed";
import { startImageServer, type ImageServer } from "../ads/support/image-server";
import { ContractRecorder, contractClients } from "../helpers/contract";
import { createHarness, type Harness } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { newsletterBody } from "../helpers/send-jobs";

/**
 * The portal flows of both services through the typed client (`@mail-ads/client`) against the real app, every
 * answer — success and error — checked against the OpenAPI document the app serves (tests/helpers/contract.ts):
 * an undocumented status, content type, missing required header or a body off its schema fails the call.
 * The figures (operations and responses validated) are printed at the end.
 */
let h: Harness;
let images: ImageServer;
let dataDir: string;
const recorder = new ContractRecorder();
let clients: Awaited<ReturnType<typeof contractClients>>;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "contract-"));
  images = await startImageServer();
  h = await createHarness({ env: { DATA_DIR: dataDir, ALLOW_LOOPBACK_OUTBOUND: "true", OUTBOUND_TRUSTED_CA: images.ca } });
  clients = await contractClients(h, recorder);
}, 60_000);

afterAll(async () => {
  process.stdout.write(`${recorder.summary(["mail", "ads", "admin"])}\n`);
  await h?.close();
  await images?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The shared newsletter body, typed as the document's request. */
function newsletter(name?: string) {
  const body = newsletterBody(name);
  return {
    ...body,
    blocks: body.blocks.map((b) => ({
      block_id: b.block_id,
      values: Object.fromEntries(Object.entries(b.values).filter((e): e is [string, string] => typeof e[1] === "string")),
    })),
  };
}

/** Polls a read until `done` holds; bounded, and no time is asserted. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, rounds = 400, pauseMs = 25): Promise<T> {
  let value = await read();
  for (let i = 0; i < rounds && !done(value); i++) {
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    value = await read();
  }
  return value;
}

describe("mail portal flow through the typed client", () => {
  test("blocks, tile, design rules, preview", async () => {
    const c = await readyMailCustomer(h, "Contract mail catalog");
    const mail = clients.mail(c.mailFull);
    expect((await mail.GET("/v1/health")).response.status, recorder.last).toBe(200);
    const blocks = await mail.GET("/v1/blocks");
    expect(blocks.data?.data.length).toBeGreaterThan(0);
    const first = blocks.data?.data[0];
    if (!first) throw new Error("no blocks");
    const tile = await mail.GET("/v1/blocks/{id}/tile", { params: { path: { id: first.id } }, parseAs: "arrayBuffer" });
    expect(tile.response.status, recorder.last).toBe(200);
    const etag = tile.response.headers.get("etag") ?? "";
    const again = await mail.GET("/v1/blocks/{id}/tile", { params: { path: { id: first.id } }, headers: { "If-None-Match": etag }, parseAs: "arrayBuffer" });
    expect(again.response.status, recorder.last).toBe(304);
    expect((await mail.GET("/v1/blocks/{id}/tile", { params: { path: { id: randomUUID() } } })).response.status, recorder.last).toBe(404);
    expect((await mail.GET("/v1/design-rules")).response.status, recorder.last).toBe(200);

    const heading = blocks.data?.data.find((b) => b.slug === "heading") ?? first;
    const preview = await mail.POST("/v1/render/preview", {
      body: { blocks: [{ block_id: heading.id, values: { title: "Hello {{first_name}}", subtitle: "" } }], values: { first_name: "Jane" } },
    });
    expect(preview.response.status, recorder.last).toBe(200);
    expect(preview.data?.data.html).toContain("Hello Jane");
    const empty = await mail.POST("/v1/render/preview", { body: { blocks: [] } });
    expect(empty.response.status, recorder.last).toBe(422);
    expect(empty.error?.error.code).toBe("validation_error");
  });

  test("templates, transactional send, message; errors 401, 403, 404, 409, 422", async () => {
    const c = await readyMailCustomer(h, "Contract mail templates");
    const mail = clients.mail(c.mailFull);
    const reporting = clients.mail(c.mailReporting);
    const created = await mail.POST("/v1/templates", { body: newsletter("Contract news") });
    expect(created.response.status, recorder.last).toBe(201);
    const id = created.data?.data.id ?? "";
    expect((await reporting.GET("/v1/templates", { params: { query: { limit: 5 } } })).response.status, recorder.last).toBe(200);
    expect((await reporting.GET("/v1/templates/{id}", { params: { path: { id } } })).data?.data.name).toBe("Contract news");
    const updated = await mail.PUT("/v1/templates/{id}", { params: { path: { id } }, body: { ...newsletter("Contract news 2") } });
    expect(updated.response.status, recorder.last).toBe(200);

    const list = await reporting.GET("/v1/templates");
    const transactional = list.data?.data.find((t) => t.name === DEMO_TRANSACTIONAL_TEMPLATE);
    if (!transactional) throw new Error("no demo transactional template");
    const sent = await mail.POST("/v1/templates/{id}/send", {
      params: { path: { id: transactional.id } },
      body: { to: "Jane Doe <jane@example.com>", params: { order_number: "A-1", order_url: "https://shop.example.com/o/A-1" } },
    });
    expect(sent.response.status, recorder.last).toBe(200);
    expect(sent.data?.data.status).toBe("accepted");
    const message = await reporting.GET("/v1/messages/{id}", { params: { path: { id: sent.data?.data.message_id ?? "" } } });
    expect(message.data?.data.status).toBe("accepted");

    // Errors, each checked against the document like the successes.
    expect((await clients.mail("mk_live_wrong").GET("/v1/templates")).response.status, recorder.last).toBe(401);
    expect((await reporting.POST("/v1/templates", { body: newsletter() })).response.status, recorder.last).toBe(403);
    expect((await mail.GET("/v1/templates/{id}", { params: { path: { id: randomUUID() } } })).response.status, recorder.last).toBe(404);
    expect((await mail.GET("/v1/templates/{id}", { params: { path: { id: "not-a-uuid" } } })).response.status, recorder.last).toBe(422);
    const missing = await mail.POST("/v1/templates/{id}/send", {
      params: { path: { id: transactional.id } },
      body: { to: "a@example.com", params: { order_number: "A-2" } },
    });
    expect(missing.response.status, recorder.last).toBe(422);
    const key = randomUUID();
    await mail.POST("/v1/templates", { body: newsletter("Keyed"), headers: { "Idempotency-Key": key } });
    const reused = await mail.POST("/v1/templates", { body: newsletter("Keyed, other body"), headers: { "Idempotency-Key": key } });
    expect(reused.response.status, recorder.last).toBe(409);
    expect(reused.error?.error.details).toEqual([{ path: "reason", message: "idempotency_key_reused" }]);
    expect((await mail.DELETE("/v1/templates/{id}", { params: { path: { id } } })).response.status, recorder.last).toBe(200);
  });

  test("send job to completion; messages, links, list; a finished job cannot be cancelled (409)", async () => {
    const c = await readyMailCustomer(h, "Contract mail jobs");
    const mail = clients.mail(c.mailFull);
    const template = await mail.POST("/v1/templates", { body: newsletter("Contract job") });
    const job = await mail.POST("/v1/send-jobs", { body: { template_id: template.data?.data.id ?? "", params: { campaign: "Spring" } } });
    expect(job.response.status, recorder.last).toBe(201);
    const jobId = job.data?.data.id ?? "";
    const none = await mail.POST("/v1/send-jobs/{id}/start", { params: { path: { id: jobId } } });
    expect(none.response.status, recorder.last).toBe(409);
    const recipients = Array.from({ length: 3 }, (_, i) => ({ email: `reader${i}@example.com`, data: { first_name: `Reader ${i}` } }));
    expect((await mail.POST("/v1/send-jobs/{id}/recipients", { params: { path: { id: jobId } }, body: { recipients } })).response.status, recorder.last).toBe(
      200,
    );
    expect((await mail.POST("/v1/send-jobs/{id}/start", { params: { path: { id: jobId } } })).response.status, recorder.last).toBe(200);
    const finished = await until(
      () => mail.GET("/v1/send-jobs/{id}", { params: { path: { id: jobId } } }),
      (r) => r.data?.data.status === "completed",
    );
    expect(finished.data?.data.status).toBe("completed");
    const messages = await mail.GET("/v1/send-jobs/{id}/messages", { params: { path: { id: jobId }, query: { limit: 2 } } });
    expect(messages.data?.data).toHaveLength(2);
    expect((await mail.GET("/v1/send-jobs/{id}/links", { params: { path: { id: jobId } } })).response.status, recorder.last).toBe(200);
    expect((await mail.GET("/v1/send-jobs")).response.status, recorder.last).toBe(200);
    const cancel = await mail.POST("/v1/send-jobs/{id}/cancel", { params: { path: { id: jobId } } });
    expect(cancel.response.status, recorder.last).toBe(409);
    expect(cancel.error?.error.details).toContainEqual({ path: "reason", message: "job_finished" });
    expect((await mail.GET("/v1/usage")).response.status, recorder.last).toBe(200);
  });

  test("suppressions, webhooks", async () => {
    const c = await readyMailCustomer(h, "Contract mail lists");
    const mail = clients.mail(c.mailFull);
    expect((await mail.GET("/v1/suppressions", { params: { query: { since: "2020-01-01T00:00:00Z" } } })).response.status, recorder.last).toBe(200);
    const lookup = await mail.POST("/v1/suppressions/lookup", { body: { emails: ["a@example.com"] } });
    expect(lookup.data?.data).toEqual([{ email: "a@example.com", suppressed: false }]);
    const reactivated = await mail.POST("/v1/suppressions/reactivate", { body: { email: "a@example.com" } });
    expect(reactivated.data?.data.reactivated).toBe(true);
    expect((await mail.POST("/v1/suppressions/lookup", { body: { emails: [] } })).response.status, recorder.last).toBe(422);

    const hook = await mail.POST("/v1/webhooks", { body: { url: "https://portal.example.com/hooks/mail", events: ["job.completed"] } });
    expect(hook.response.status, recorder.last).toBe(201);
    expect(hook.data?.data.secret).toEqual(expect.any(String));
    expect((await mail.GET("/v1/webhooks")).data?.data).toHaveLength(1);
    expect(
      (await mail.POST("/v1/webhooks", { body: { url: "http://portal.example.com/hooks", events: ["job.completed"] } })).response.status,
      recorder.last,
    ).toBe(422);
    expect((await mail.DELETE("/v1/webhooks/{id}", { params: { path: { id: hook.data?.data.id ?? "" } } })).response.status, recorder.last).toBe(200);
  });

  test("assets: announce, upload to the signed URL, complete, read, list, delete", async () => {
    const c = await readyMailCustomer(h, "Contract mail assets");
    const mail = clients.mail(c.mailFull);
    const announced = await mail.POST("/v1/assets", { body: { filename: "hero.jpg", content_type: "image/jpeg" } });
    expect(announced.response.status, recorder.last).toBe(201);
    const asset = announced.data?.data;
    if (!asset) throw new Error("no asset");
    const early = await mail.POST("/v1/assets/{id}/complete", { params: { path: { id: asset.id } } });
    expect(early.response.status, recorder.last).toBe(409);
    const jpeg = await sharp({ create: { width: 320, height: 200, channels: 3, background: { r: 20, g: 120, b: 200 } } })
      .jpeg()
      .toBuffer();
    const url = new URL(asset.upload.url);
    const put = (body: Buffer, headers: Record<string, string>) =>
      h.root.request(`${url.pathname}${url.search}`, { method: "PUT", headers, body: new Uint8Array(body) });
    const uploaded = await put(jpeg, asset.upload.headers);
    await recorder.verify("mail", "PUT", "/v1/uploads/{id}", uploaded);
    expect(uploaded.status).toBe(200);
    const wrongType = await put(jpeg, { "content-type": "image/png" });
    await recorder.verify("mail", "PUT", "/v1/uploads/{id}", wrongType);
    expect(wrongType.status).toBe(400);
    const completed = await mail.POST("/v1/assets/{id}/complete", { params: { path: { id: asset.id } } });
    expect(completed.data?.data.width).toBe(320);
    expect((await mail.GET("/v1/assets/{id}", { params: { path: { id: asset.id } } })).data?.data.width).toBe(320);
    expect((await mail.GET("/v1/assets")).data?.data.map((a) => a.id)).toContain(asset.id);
    expect((await mail.DELETE("/v1/assets/{id}", { params: { path: { id: asset.id } } })).response.status, recorder.last).toBe(200);
    expect((await mail.DELETE("/v1/assets/{id}", { params: { path: { id: asset.id } } })).response.status, recorder.last).toBe(404);
  });
});

describe("ads portal flow through the typed client", () => {
  let ads: ReturnType<typeof clients.ads>;
  let reporting: ReturnType<typeof clients.ads>;
  beforeAll(async () => {
    const c = await h.customer("Contract ads");
    await seedDemoAds(h.adsDeps, h.deps.providers.graphSimulator, c.id);
    ads = clients.ads(c.adsFull);
    reporting = clients.ads(c.adsReporting);
  }, 60_000);

  test("media, ad sets, creatives, ads, status; errors 401, 403, 404, 409, 422", async () => {
    expect((await ads.GET("/v1/health")).response.status, recorder.last).toBe(200);
    const demoImages = await reporting.GET("/v1/media/images");
    expect(demoImages.data?.data.length).toBe(3);
    const byUrl = await ads.POST("/v1/media/images", { body: { url: images.url("/square.jpg") } });
    expect(byUrl.response.status, recorder.last).toBe(201);
    const video = await ads.POST("/v1/media/videos", { body: { url: images.url("/bg.mp4") } });
    expect(video.response.status, recorder.last).toBe(201);
    expect((await reporting.GET("/v1/media/videos/{id}", { params: { path: { id: video.data?.data.id ?? "" } } })).response.status, recorder.last).toBe(200);
    expect((await reporting.GET("/v1/media/videos")).response.status, recorder.last).toBe(200);

    const adSet = await ads.POST("/v1/adsets", { body: { target: "demo", daily_budget_cents: 2500, targeting: { age_min: 25, age_max: 54 } } });
    expect(adSet.response.status, recorder.last).toBe(201);
    const adSetId = adSet.data?.data.id ?? "";
    expect((await ads.PATCH("/v1/adsets/{id}", { params: { path: { id: adSetId } }, body: { daily_budget_cents: 3000 } })).response.status, recorder.last).toBe(
      200,
    );
    expect((await reporting.GET("/v1/adsets")).response.status, recorder.last).toBe(200);
    const paused = await ads.POST("/v1/adsets", { body: { target: "demo-paused", daily_budget_cents: 2500 } });
    expect(paused.response.status, recorder.last).toBe(409);

    const creative = await ads.POST("/v1/creatives", { body: { image_hash: byUrl.data?.data.image_hash ?? "", name: "Contract square" } });
    expect(creative.response.status, recorder.last).toBe(201);
    const creativeId = creative.data?.data.id ?? "";
    expect((await ads.PATCH("/v1/creatives/{id}", { params: { path: { id: creativeId } }, body: { name: "Renamed" } })).response.status, recorder.last).toBe(
      200,
    );
    expect((await reporting.GET("/v1/creatives")).response.status, recorder.last).toBe(200);

    const ad = await ads.POST("/v1/ads", {
      body: {
        ad_set_id: adSetId,
        creative_id: creativeId,
        link: "https://shop.example.com/summer",
        message: "Summer sale",
        headline: "Summer",
        status: "ACTIVE",
      },
    });
    expect(ad.response.status, recorder.last).toBe(201);
    const adId = ad.data?.data.id ?? "";
    expect((await reporting.GET("/v1/ads")).response.status, recorder.last).toBe(200);
    const status = await reporting.GET("/v1/status/{ad_id}", { params: { path: { ad_id: adId } } });
    expect(status.response.status, recorder.last).toBe(200);
    expect((await ads.PATCH("/v1/ads/{id}", { params: { path: { id: adId } }, body: { status: "PAUSED" } })).response.status, recorder.last).toBe(200);

    expect((await clients.ads("ak_live_wrong").GET("/v1/ads")).response.status, recorder.last).toBe(401);
    expect((await reporting.POST("/v1/adsets", { body: { target: "demo", daily_budget_cents: 2500 } })).response.status, recorder.last).toBe(403);
    expect((await reporting.GET("/v1/status/{ad_id}", { params: { path: { ad_id: randomUUID() } } })).response.status, recorder.last).toBe(404);
    const invalid = await ads.POST("/v1/adsets", { body: { target: "demo", daily_budget_cents: 2500, targeting: { age_min: 5 } } });
    expect(invalid.response.status, recorder.last).toBe(422);

    expect((await ads.DELETE("/v1/ads/{id}", { params: { path: { id: adId } } })).response.status, recorder.last).toBe(200);
    expect((await ads.DELETE("/v1/creatives/{id}", { params: { path: { id: creativeId } } })).response.status, recorder.last).toBe(200);
    expect((await ads.DELETE("/v1/adsets/{id}", { params: { path: { id: adSetId } } })).response.status, recorder.last).toBe(200);
  });

  test("templates: list, read, preview, render", async () => {
    const templates = await reporting.GET("/v1/templates");
    const sale = templates.data?.data.find((t) => t.name === "Sale banner");
    if (!sale) throw new Error("no demo template");
    expect((await reporting.GET("/v1/templates/{id}", { params: { path: { id: sale.id } } })).response.status, recorder.last).toBe(200);
    const preview = await reporting.GET("/v1/templates/{id}/preview", { params: { path: { id: sale.id } } });
    expect(preview.response.status, recorder.last).toBe(200);
    const png = new URL(preview.data?.data.preview_urls["1:1"] ?? "http://missing/");
    const redirect = await h.root.request(`${png.pathname}${png.search}`);
    await recorder.verify("ads", "GET", "/v1/templates/{id}/preview.png", redirect);
    expect(redirect.status, recorder.last).toBe(302);
    const rendered = await ads.POST("/v1/templates/render", {
      body: {
        template: sale.id,
        params: { headline: "Autumn [[Sale]]", price: "€ 19.90", brand_color: "#7c3aed", product_image: images.url("/portrait.png") },
      },
    });
    expect(rendered.response.status, recorder.last).toBe(200);
    expect((await reporting.GET("/v1/templates/render/{id}", { params: { path: { id: randomUUID() } } })).response.status, recorder.last).toBe(404);

    // A video render is a job: 202, then its state (waited for, so no render outlives the test).
    const video = templates.data?.data.find((t) => t.name === "Video promo");
    if (!video) throw new Error("no demo video template");
    const values = await reporting.GET("/v1/templates/{id}/preview", { params: { path: { id: video.id } } });
    const started = await ads.POST("/v1/templates/render", { body: { template: video.id, params: values.data?.data.params ?? {} } });
    expect(started.response.status, recorder.last).toBe(202);
    const job = await until(
      () => reporting.GET("/v1/templates/render/{id}", { params: { path: { id: started.data?.data.id ?? "" } } }),
      (r) => r.data?.data.status !== "PROCESSING",
      480,
      250,
    );
    expect(job.response.status, recorder.last).toBe(200);
    const bad = await ads.POST("/v1/templates/render", { body: { template: sale.id, params: { headline: "Hi" } } });
    expect(bad.response.status, recorder.last).toBe(422);
  }, 150_000);

  test("audiences, targeting, insights, plan, webhooks", async () => {
    // A lookalike needs a source of at least 100 people from one country.
    const contacts = Array.from({ length: 120 }, (_, i) => ({ email: `fan${i}@example.com`, country: "DE" }));
    const custom = await ads.POST("/v1/audiences/custom", { body: { name: "CRM", contacts } });
    expect(custom.response.status, recorder.last).toBe(201);
    const audienceId = custom.data?.data.id ?? "";
    expect(
      (await ads.POST("/v1/audiences/{id}/contacts", { params: { path: { id: audienceId } }, body: { contacts: [{ email: "c@example.com" }] } })).response
        .status,
      recorder.last,
    ).toBe(200);
    expect(
      (await ads.DELETE("/v1/audiences/{id}/contacts", { params: { path: { id: audienceId } }, body: { contacts: [{ email: "c@example.com" }] } })).response
        .status,
      recorder.last,
    ).toBe(200);
    expect((await ads.PATCH("/v1/audiences/{id}", { params: { path: { id: audienceId } }, body: { name: "CRM 2" } })).response.status, recorder.last).toBe(200);
    const lookalike = await ads.POST("/v1/audiences/lookalike", { body: { name: "Twins", origin_audience_id: audienceId, country: "DE", ratio: 0.01 } });
    expect(lookalike.response.status, recorder.last).toBe(201);
    expect((await reporting.GET("/v1/audiences")).response.status, recorder.last).toBe(200);
    expect((await reporting.GET("/v1/audiences/{id}", { params: { path: { id: audienceId } } })).response.status, recorder.last).toBe(200);

    expect((await reporting.GET("/v1/targeting/geo", { params: { query: { q: "wien" } } })).response.status, recorder.last).toBe(200);
    expect((await reporting.GET("/v1/targeting/interests", { params: { query: { q: "yoga" } } })).response.status, recorder.last).toBe(200);
    expect((await reporting.GET("/v1/targeting/geo", { params: { query: {} as { q: string } } })).response.status, recorder.last).toBe(400);

    expect((await reporting.GET("/v1/insights", { params: { query: { level: "ad", date_range: "last_7d" } } })).response.status, recorder.last).toBe(200);
    expect(
      (await reporting.GET("/v1/insights", { params: { query: { level: "ad", date_range: "last_century" } as never } })).response.status,
      recorder.last,
    ).toBe(422);

    expect((await reporting.GET("/v1/plan")).response.status, recorder.last).toBe(200);
    expect((await reporting.GET("/v1/plan/usage")).response.status, recorder.last).toBe(200);
    expect((await reporting.POST("/v1/plan/upgrade")).response.status, recorder.last).toBe(403);
    expect((await reporting.POST("/v1/account/deactivate")).response.status, recorder.last).toBe(403);

    const hook = await ads.POST("/v1/webhooks", { body: { url: "https://portal.example.com/hooks/ads", events: ["ad.status_changed"] } });
    expect(hook.response.status, recorder.last).toBe(201);
    expect((await reporting.GET("/v1/webhooks")).response.status, recorder.last).toBe(200);
    expect((await ads.DELETE("/v1/webhooks/{id}", { params: { path: { id: hook.data?.data.id ?? "" } } })).response.status, recorder.last).toBe(200);
    expect((await ads.DELETE("/v1/audiences/{id}", { params: { path: { id: audienceId } } })).response.status, recorder.last).toBe(200);
  });
});

describe("admin API through the typed client", () => {
  test("customers, keys, the mail and ads settings an operator reads; errors 401, 404, 422", async () => {
    const admin = clients.admin();
    const created = await admin.POST("/v1/customers", { body: { name: "Contract admin" } });
    expect(created.response.status, recorder.last).toBe(201);
    const id = created.data?.data.id ?? "";
    expect((await admin.GET("/v1/customers")).response.status, recorder.last).toBe(200);
    expect((await admin.GET("/v1/customers/{id}", { params: { path: { id } } })).response.status, recorder.last).toBe(200);
    expect((await admin.PATCH("/v1/customers/{id}", { params: { path: { id } }, body: { name: "Contract admin 2" } })).response.status, recorder.last).toBe(
      200,
    );
    const key = await admin.POST("/v1/customers/{id}/keys", { params: { path: { id } }, body: { service: "mail", scope: "reporting" } });
    expect(key.response.status, recorder.last).toBe(201);
    expect((await admin.GET("/v1/customers/{id}/keys", { params: { path: { id } } })).response.status, recorder.last).toBe(200);
    expect((await admin.DELETE("/v1/keys/{id}", { params: { path: { id: key.data?.data.id ?? "" } } })).response.status, recorder.last).toBe(200);
    const path = { params: { path: { id } } };
    expect((await admin.GET("/v1/customers/{id}/mail/blocks", path)).response.status, recorder.last).toBe(200);
    expect((await admin.GET("/v1/customers/{id}/mail/design-rules", path)).response.status, recorder.last).toBe(200);
    expect((await admin.GET("/v1/customers/{id}/mail/frame", path)).response.status, recorder.last).toBe(200);
    expect((await admin.GET("/v1/customers/{id}/mail/provider", path)).response.status, recorder.last).toBe(200);
    expect((await admin.GET("/v1/customers/{id}/mail/readiness", path)).response.status, recorder.last).toBe(200);
    expect((await admin.GET("/v1/customers/{id}/mail/templates", path)).response.status, recorder.last).toBe(200);
    expect((await admin.GET("/v1/customers/{id}/ads/account", path)).response.status, recorder.last).toBe(200);
    expect((await admin.GET("/v1/customers/{id}/ads/targets", path)).response.status, recorder.last).toBe(200);
    expect((await admin.GET("/v1/customers/{id}/ads/templates", path)).response.status, recorder.last).toBe(200);
    expect((await admin.GET("/v1/ads/templates")).response.status, recorder.last).toBe(200);
    expect((await admin.GET("/v1/mail/blocks")).response.status, recorder.last).toBe(200);
    expect((await admin.GET("/v1/customers/{id}", { params: { path: { id: randomUUID() } } })).response.status, recorder.last).toBe(404);
    expect((await admin.POST("/v1/customers", { body: { name: "" } })).response.status, recorder.last).toBe(422);
    expect((await clients.admin("not-the-operator-token").GET("/v1/customers")).response.status, recorder.last).toBe(401);
  });
});

test("the check refuses what the document does not describe", async () => {
  const json = (body: unknown, status: number) =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "x-request-id": "r", "service-version": "v1" } });
  const before = recorder.problems.length;
  await expect(recorder.verify("mail", "GET", "/v1/health", json({ data: {}, request_id: "r" }, 418))).rejects.toThrow(/undocumented status/);
  await expect(recorder.verify("mail", "GET", "/v1/templates/{id}", json({ data: { id: 1 }, request_id: "r" }, 200))).rejects.toThrow(/schema mismatch/);
  await expect(
    recorder.verify("mail", "GET", "/v1/templates/{id}", new Response("{}", { status: 404, headers: { "content-type": "application/json" } })),
  ).rejects.toThrow(/missing required header/);
  // These were the check's own probes, not answers of the app (a refused answer is not counted).
  recorder.problems.splice(before);
});

test("no answer was off the document", () => {
  expect(recorder.problems).toEqual([]);
  expect(recorder.responses).toBeGreaterThan(50);
});
