import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ManualClock } from "../../lib/base/clock";
import { emitMailEvent } from "../../lib/mail/webhooks/emit";
import {
  ApiError,
  type AdsWebhookEvent,
  createAdsClient,
  createMailClient,
  type MailErrorObject,
  type MailWebhookEvent,
  verifyWebhook,
  WebhookVerificationError,
} from "../../packages/client/src/index";
import { createAdSet, createImageCreative, graphControls, onboardedCustomer, type AdsWorld } from "../ads/support/ads-world";
import { startImageServer, type ImageServer } from "../ads/support/image-server";
import { createHarness, describeResponse, type Harness } from "../helpers/harness";
import { startHttpsReceiver, type ReceivedRequest } from "../helpers/https-receiver";
import { readyMailCustomer } from "../helpers/mail";
import { newsletterBody } from "../helpers/send-jobs";

/**
 * The portals' package (`packages/client/src`, what `@mail-ads/client` builds from) against the app served
 * over loopback HTTP: real signed deliveries of both services verified by `verifyWebhook` (and refused when
 * tampered, replayed or parsed), a 429 retried after Retry-After with the same Idempotency-Key, the list
 * iterators over a cursor list and an offset list, and errors narrowed by code.
 */
// A clock of its own era, one second before a rate-limit window ends (Retry-After is then 1 s).
const clock = new ManualClock("2004-02-02T10:00:59.000Z");
const nowSeconds = () => Math.floor(clock.now().getTime() / 1000);

let h: Harness;
let images: ImageServer;
let receiver: Awaited<ReturnType<typeof startHttpsReceiver>>;
let server: ServerType;
let origin = "";

async function listen(harness: Harness): Promise<{ server: ServerType; origin: string }> {
  return new Promise((resolve) => {
    const s = serve({ fetch: harness.root.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) =>
      resolve({ server: s, origin: `http://127.0.0.1:${info.port}` }),
    );
  });
}
const closeServer = (s: ServerType | undefined) =>
  new Promise((resolve) => {
    if (!s) return resolve(undefined);
    s.close(resolve);
    if ("closeAllConnections" in s) s.closeAllConnections();
  });

/** Polls with a deadline until a delivery to `path` has arrived. */
async function deliveryTo(path: string): Promise<ReceivedRequest> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = receiver.received.find((r) => r.path === path);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no delivery to ${path}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeAll(async () => {
  images = await startImageServer();
  receiver = await startHttpsReceiver("portal.test");
  h = await createHarness({ clock, env: { ALLOW_LOOPBACK_OUTBOUND: "true", OUTBOUND_TRUSTED_CA: `${images.ca}\n${receiver.ca}` } });
  ({ server, origin } = await listen(h));
}, 60_000);
afterAll(async () => {
  await closeServer(server);
  await h?.close();
  await receiver?.close();
  await images?.close();
});

describe("verifyWebhook on real deliveries", () => {
  test("mail: a job.completed delivery verifies with signing_secret (= the deprecated secret); tampered, replayed and parsed bodies are refused clearly", async () => {
    const c = await readyMailCustomer(h, "Portal mail");
    const mail = createMailClient({ baseUrl: `${origin}/mail/v1`, apiKey: c.mailFull });
    const hook = await mail.unwrap(mail.POST("/v1/webhooks", { body: { url: `${receiver.origin}/hooks/mail/${c.id}`, events: ["job.completed"] } }));
    expect(hook.data.signing_secret).toMatch(/^whsec_/);
    expect(hook.data.secret).toBe(hook.data.signing_secret);

    await emitMailEvent(h.deps, c.id, "job.completed", { send_job_id: crypto.randomUUID(), recipients: { total: 2, accepted: 2, suppressed: 0 } });
    const delivery = await deliveryTo(`/hooks/mail/${c.id}`);
    const headers = delivery.headers as Record<string, string>;
    const event = await verifyWebhook<MailWebhookEvent>(delivery.body, headers, hook.data.signing_secret, { now: nowSeconds() });
    expect(event).toMatchObject({ event: "job.completed", delivery_id: headers["x-service-delivery"], recipients: { total: 2, accepted: 2 } });
    // The mail client's own verifier: the same check, its answer typed as the mail events (narrowed by `event`).
    const viaClient = await mail.verifyWebhook(delivery.body, headers, hook.data.signing_secret, { now: nowSeconds() });
    expect(viaClient.event === "job.completed" ? viaClient.recipients.accepted : null).toBe(2);
    await expect(mail.verifyWebhook(delivery.body, headers, "whsec_wrong", { now: nowSeconds() })).rejects.toBeInstanceOf(WebhookVerificationError);
    // Bytes work as well as text; a Fetch Headers object as well as Node's record.
    await expect(
      verifyWebhook(new TextEncoder().encode(delivery.body), new Headers(headers), hook.data.signing_secret, { now: nowSeconds() }),
    ).resolves.toEqual(event);

    const refused = async (promise: Promise<unknown>) => {
      const error = await promise.then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(WebhookVerificationError);
      return error as WebhookVerificationError;
    };
    expect((await refused(verifyWebhook(delivery.body.replace('"total":2', '"total":3'), headers, hook.data.signing_secret, { now: nowSeconds() }))).code).toBe(
      "signature_mismatch",
    );
    expect((await refused(verifyWebhook(delivery.body, headers, "whsec_wrong", { now: nowSeconds() }))).code).toBe("signature_mismatch");
    const old = await refused(verifyWebhook(delivery.body, headers, hook.data.signing_secret, { now: nowSeconds() + 301 }));
    expect(old.code).toBe("timestamp_out_of_tolerance");
    expect(old.message).toMatch(/301 s from now \(tolerance 300 s\)/);
    await expect(verifyWebhook(delivery.body, headers, hook.data.signing_secret, { now: nowSeconds() + 301, tolerance: 600 })).resolves.toEqual(event);
    const parsed = await refused(verifyWebhook(JSON.parse(delivery.body) as never, headers, hook.data.signing_secret));
    expect(parsed.code).toBe("parsed_body");
    expect(parsed.message).toMatch(/raw request body/);
    expect((await refused(verifyWebhook(delivery.body, {}, hook.data.signing_secret))).code).toBe("missing_signature");
    expect((await refused(verifyWebhook(delivery.body, { "x-service-signature": "v1=abc" }, hook.data.signing_secret))).code).toBe("malformed_signature");
  });

  test("ads: an ad.status_changed delivery (review ended, read through the client) verifies with signing_secret", async () => {
    const world: Pick<AdsWorld, "h" | "sim" | "images"> = { h, sim: graphControls(h), images };
    const c = await onboardedCustomer(world, "Portal ads");
    await h.admin("PATCH", `/v1/customers/${c.id}`, { ads: { stage: "scale" } });
    const ads = createAdsClient({ baseUrl: `${origin}/ads/v1`, apiKey: c.adsFull });
    const hook = await ads.unwrap(ads.POST("/v1/webhooks", { body: { url: `${receiver.origin}/hooks/ads/${c.id}` } }));
    const adSet = await createAdSet(world as AdsWorld, c);
    const creative = await createImageCreative(world as AdsWorld, c);
    const ad = await ads.unwrap(
      ads.POST("/v1/ads", { body: { ad_set_id: adSet.id, creative_id: creative.id, link: "https://shop.example.com/summer", status: "ACTIVE" } }),
    );
    world.sim.advance(30_000);
    const status = await ads.unwrap(ads.GET("/v1/status/{ad_id}", { params: { path: { ad_id: ad.data.id } } }));
    expect(status.data.effective_status).toBe("ACTIVE");
    const delivery = await deliveryTo(`/hooks/ads/${c.id}`);
    const event = await verifyWebhook<AdsWebhookEvent>(delivery.body, delivery.headers as Record<string, string>, hook.data.signing_secret, {
      now: nowSeconds(),
    });
    expect(event).toMatchObject({ type: "ad.status_changed", data: { ad_id: ad.data.id, effective_status: "ACTIVE", previous_status: "PENDING_REVIEW" } });
    // The ads client's verifier: typed as the ads events (narrowed by `type`).
    const viaClient = await ads.verifyWebhook(delivery.body, delivery.headers as Record<string, string>, hook.data.signing_secret, { now: nowSeconds() });
    expect(viaClient.type === "ad.status_changed" ? viaClient.data.ad_id : null).toBe(ad.data.id);
  }, 60_000);
});

describe("retries, iterators and errors", () => {
  test("a 429 is retried after Retry-After with the same Idempotency-Key; a given key is kept; a Retry-After over the limit is returned", async () => {
    const limited = await createHarness({ clock: new ManualClock("2004-03-03T10:00:59.000Z"), env: { RATE_LIMIT_PER_MINUTE: "3" } });
    const served = await listen(limited);
    try {
      const c = await limited.customer("Limited");
      const attempts: { status: number; key: string | null }[] = [];
      const fetch = async (request: Request) => {
        const key = request.headers.get("idempotency-key");
        const response = await globalThis.fetch(request);
        attempts.push({ status: response.status, key });
        // The window ends while the client waits its Retry-After (1 s): the next window, two minutes on.
        if (response.status === 429) limited.clock.advance(120_000);
        return response;
      };
      for (let i = 0; i < 3; i++) expect((await limited.call("GET", "/mail/v1/health", { key: c.mailFull })).status).toBe(200);
      const mail = createMailClient({ baseUrl: `${served.origin}/mail/v1`, apiKey: c.mailFull, fetch });
      const started = Date.now();
      const { data, response } = await mail.POST("/v1/webhooks", { body: { url: "https://portal.example.com/hooks/mail", events: ["job.completed"] } });
      expect(response.status, JSON.stringify(attempts)).toBe(201);
      expect(data?.data.signing_secret).toMatch(/^whsec_/);
      expect(attempts.map((a) => a.status)).toEqual([429, 201]);
      expect(attempts[0]?.key).toMatch(/^[0-9a-f-]{36}$/);
      expect(attempts[1]?.key).toBe(attempts[0]?.key);
      expect(Date.now() - started).toBeGreaterThanOrEqual(900); // it waited the Retry-After second

      // A key the caller gives is the one sent; reads carry none.
      attempts.length = 0;
      await mail.POST("/v1/webhooks", {
        body: { url: "https://portal.example.com/hooks/mail2", events: ["job.completed"] },
        headers: { "Idempotency-Key": "portal-hook-2" },
      });
      await mail.GET("/v1/health");
      expect(attempts.map((a) => a.key)).toEqual(["portal-hook-2", null]);

      // Exhausted again: with maxRetryAfterMs below the Retry-After the 429 comes back as it is, typed.
      for (let i = 0; i < 3; i++) await limited.call("GET", "/mail/v1/health", { key: c.mailFull });
      const impatient = createMailClient({ baseUrl: `${served.origin}/mail/v1`, apiKey: c.mailFull, retry: { maxRetryAfterMs: 0 } });
      const error = await impatient.unwrap(impatient.GET("/v1/health")).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 429, code: "rate_limited", retryAfter: expect.any(Number) });
    } finally {
      await closeServer(served.server);
      await limited.close();
    }
  }, 90_000);

  test("paginate walks a cursor list (mail templates) and an offset list (ads ad sets) to the end, one page per request", async () => {
    const c = await readyMailCustomer(h, "Portal lists");
    let gets = 0;
    const counting = async (request: Request) => {
      if (request.method === "GET") gets++;
      return globalThis.fetch(request);
    };
    const mail = createMailClient({ baseUrl: `${origin}/mail/v1`, apiKey: c.mailFull, fetch: counting });
    const before: string[] = [];
    for await (const template of mail.paginate("/v1/templates", { params: { query: { limit: 100 } } })) before.push(template.id);
    for (const name of ["List A", "List B", "List C"]) await mail.unwrap(mail.POST("/v1/templates", { body: { ...newsletterBody(name) } as never }));
    gets = 0;
    const names: string[] = [];
    for await (const template of mail.paginate("/v1/templates", { params: { query: { limit: 1 } } })) names.push(template.name);
    expect(names).toHaveLength(before.length + 3);
    expect(names).toEqual(expect.arrayContaining(["List A", "List B", "List C"]));
    expect(gets).toBe(names.length); // the last page says has_next: false

    const world = { h, sim: graphControls(h), images } as AdsWorld;
    const a = await onboardedCustomer(world, "Portal offsets");
    const created = [];
    for (let i = 0; i < 5; i++) created.push((await createAdSet(world, a)).id);
    const ads = createAdsClient({ baseUrl: `${origin}/ads/v1`, apiKey: a.adsReporting, fetch: counting });
    gets = 0;
    const ids: string[] = [];
    for await (const adSet of ads.paginate("/v1/adsets", { params: { query: { limit: 2 } } })) ids.push(adSet.id);
    expect(ids.sort()).toEqual(created.sort());
    expect(gets).toBe(3); // 2 + 2 + 1: a short page is the last
  }, 60_000);

  test("errors: unwrap throws ApiError whose error narrows by code (mail 422 details, ads 409 details)", async () => {
    const c = await readyMailCustomer(h, "Portal errors");
    const mail = createMailClient({ baseUrl: `${origin}/mail/v1`, apiKey: c.mailFull });
    const error = await mail.unwrap(mail.POST("/v1/webhooks", { body: { url: "http://portal.example.com/hook", events: ["job.completed"] } })).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    const mailError = (error as ApiError<MailErrorObject>).error;
    if (mailError.code !== "validation_error")
      throw new Error(`expected validation_error, got ${describeResponse({ status: 0, text: JSON.stringify(mailError) })}`);
    expect(mailError.details.map((d) => d.path)).toContain("url");
    expect((error as ApiError).requestId).toMatch(/^[0-9a-f-]{36}$/);

    const world = { h, sim: graphControls(h), images } as AdsWorld;
    const a = await onboardedCustomer(world, "Portal conflicts");
    const ads = createAdsClient({ baseUrl: `${origin}/ads/v1`, apiKey: a.adsFull });
    const { error: body, response } = await ads.POST("/v1/adsets", { body: { target: "paused", daily_budget_cents: 2500 } });
    const conflict = ads.errorOf(body, response);
    expect(conflict.status).toBe(409);
    if (conflict.error.code === "conflict") expect(conflict.error.details).toBeTypeOf("object");
    else throw new Error(`expected conflict, got ${conflict.message}`);
  }, 60_000);
});
