import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SALE_BANNER, VIDEO_PROMO } from "../../lib/ads/templates/demo";
import { customers } from "../../lib/db/schema";
import { createHarness, describeResponse, type Harness, type ErrorEnvelope, type Admin, type CallResult } from "../helpers/harness";

/*
 * Operator writes are idempotent like the customer APIs', the
 * operator's preview values are checked like a customer's render values, a 404 echoes only a short prefix
 * of the path, and the bare Postmark receiver names the admin path that exists.
 */

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

const adminWith = <T>(method: string, path: string, body: unknown, key: string) =>
  h.call<T>(method, `/admin${path}`, { key: h.deps.adminToken, body, headers: { "Idempotency-Key": key } });

describe("Idempotency-Key on admin writes", () => {
  test("50 concurrent POST /admin/v1/customers with one key create one customer; a retry replays it, another body is 409", async () => {
    const name = `Idempotent ${crypto.randomUUID()}`;
    const key = crypto.randomUUID();
    const answers = await Promise.all(Array.from({ length: 50 }, () => adminWith("POST", "/v1/customers", { name }, key)));
    // The answers sorted by status, each read as the body that status has.
    const created = answers.filter((r) => r.status === 201) as CallResult<Admin["createCustomer"]>[];
    const busy = answers.filter((r) => r.status === 409) as CallResult<ErrorEnvelope>[];
    expect(created.length + busy.length, answers.map(describeResponse).join("\n")).toBe(50);
    for (const r of busy) expect(r.json.error.details).toEqual({ reason: "idempotency_key_in_use" });
    expect(new Set(created.map((r) => r.json.data.id)).size).toBe(1);
    expect(await h.db.select({ id: customers.id }).from(customers).where(eq(customers.name, name))).toHaveLength(1);

    const again = await adminWith<Admin["createCustomer"]>("POST", "/v1/customers", { name }, key);
    expect(again.status, describeResponse(again)).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.json.data.id).toBe(created[0]?.json.data.id);
    const reused = await adminWith<ErrorEnvelope>("POST", "/v1/customers", { name: `${name} 2` }, key);
    expect(reused.status, describeResponse(reused)).toBe(409);
    expect(reused.json.error.details).toEqual({ reason: "idempotency_key_reused" });
    const malformed = await adminWith("POST", "/v1/customers", { name }, "ü");
    expect(malformed.status, describeResponse(malformed)).toBe(400);
  });

  test("PATCH and PUT too; the operator's keys never meet a customer's (same key, same path on the mail API)", async () => {
    const customer = await h.customer("Keyed");
    const key = crypto.randomUUID();
    const first = await adminWith("PATCH", `/v1/customers/${customer.id}`, { mail: { monthly_limit: 1000 } }, key);
    expect(first.status, describeResponse(first)).toBe(200);
    const replay = await adminWith("PATCH", `/v1/customers/${customer.id}`, { mail: { monthly_limit: 1000 } }, key);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    const mail = await h.call("POST", "/mail/v1/templates", { key: customer.mailFull, body: { name: "x" }, headers: { "Idempotency-Key": key } });
    expect(mail.headers.get("idempotent-replayed"), describeResponse(mail)).toBeNull();
  });

  test("the admin document declares Idempotency-Key, the replay header and the 409 on every write", async () => {
    const doc = (await h.call("GET", "/admin/v1/openapi.json")).json as {
      paths: Record<string, Record<string, { parameters?: { $ref?: string }[]; responses: Record<string, { headers?: Record<string, unknown> }> }>>;
    };
    let writes = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of ["post", "put", "patch"]) {
        const operation = item[method];
        if (!operation) continue;
        writes++;
        expect(
          operation.parameters?.map((p) => p.$ref),
          `${method} ${path}`,
        ).toContain("#/components/parameters/IdempotencyKey");
        expect(operation.responses["409"]?.headers?.["Retry-After"], `${method} ${path}`).toBeDefined();
        const success = Object.entries(operation.responses).find(([status]) => status.startsWith("2"))?.[1];
        expect(success?.headers?.["Idempotent-Replayed"], `${method} ${path}`).toBeDefined();
      }
    }
    expect(writes).toBeGreaterThan(20);
  });
});

describe("the operator's preview values are checked like a customer's values", () => {
  test("file:, javascript:, plain http, loopback, link-local and metadata addresses are refused in image and video fields; nothing is stored", async () => {
    const customer = await h.customer("Preview values");
    const templates: Record<string, string> = {};
    for (const seed of [SALE_BANNER, VIDEO_PROMO]) {
      const { name: _name, ...fields } = seed;
      const created = await h.admin<Admin["createLibraryAdTemplate"]>("POST", "/v1/ads/templates", { ...fields, name: `${seed.name} ${crypto.randomUUID()}` });
      expect(created.status, describeResponse(created)).toBe(201);
      templates[seed.type] = created.json.data.id;
      expect((await h.admin("PUT", `/v1/customers/${customer.id}/ads/templates/${created.json.data.id}`)).status).toBe(200);
    }
    const put = <T>(type: string, values: Record<string, string>) =>
      h.admin<T>("PUT", `/v1/customers/${customer.id}/ads/templates/${templates[type]}/preview-values`, { values });
    for (const url of [
      "file:///etc/passwd",
      "javascript:alert(1)",
      "http://example.com/shoe.png",
      "https://169.254.169.254/latest/meta-data/",
      "https://[fe80::1]/a.png",
      "https://127.0.0.1/a.png",
      "https://localhost/a.png",
      "https://user:secret@example.com/a.png",
    ]) {
      const image = await put<ErrorEnvelope>("image", { product_image: url });
      expect(image.status, `${url}: ${describeResponse(image)}`).toBe(422);
      expect(image.json.error.details).toEqual([{ path: "params.product_image", message: expect.any(String) }]);
      const video = await put<ErrorEnvelope>("video", { background_video: url });
      expect(video.status, `${url}: ${describeResponse(video)}`).toBe(422);
      expect(video.json.error.details).toEqual([{ path: "params.background_video", message: expect.any(String) }]);
    }
    const assignment = await h.admin("GET", `/v1/customers/${customer.id}/ads/templates`);
    expect(JSON.stringify(assignment.json), describeResponse(assignment)).not.toMatch(/file:|javascript:|169\.254/);
    const fine = await put("image", { product_image: "https://images.example.com/shoe.png" });
    expect(fine.status, describeResponse(fine)).toBe(200);
    // The deployment's own published files stay usable as a video background (the embedded Demo's).
    const own = await put("video", { background_video: `${h.deps.publicBaseUrl}/files/creatives/${"a".repeat(64)}.mp4` });
    expect(own.status, describeResponse(own)).toBe(200);
  });
});

describe("404 answers and the Postmark hint", () => {
  test("a 404 echoes at most a short prefix of the path, on every surface", async () => {
    const long = `/x${"a".repeat(12_000)}`;
    for (const path of [`/mail/v1${long}`, `/ads/v1${long}`, `/admin/v1${long}`, `/api${long}`, long]) {
      const r = await h.call("POST", path, { key: h.deps.adminToken });
      expect([404, 401], describeResponse({ status: r.status, text: r.text.slice(0, 300) })).toContain(r.status);
      expect(r.text.length, path.slice(0, 20)).toBeLessThan(400);
    }
    const notFound = await h.call("GET", `/mail/v1${long}`);
    expect(notFound.text.length).toBeLessThan(400);
  });

  test("POST /api/postmark/webhook names the admin path that shows a customer's URL, and that path exists", async () => {
    const r = await h.call<ErrorEnvelope>("POST", "/api/postmark/webhook", { body: {} });
    expect(r.status, describeResponse(r)).toBe(404);
    expect(r.json.error.message).toContain("GET /admin/v1/customers/{customer_id}/mail/postmark-webhook");
    const customer = await h.customer("Hinted");
    const shown = await h.admin("GET", `/v1/customers/${customer.id}/mail/postmark-webhook`);
    expect(shown.status, describeResponse(shown)).toBe(200);
  });
});
