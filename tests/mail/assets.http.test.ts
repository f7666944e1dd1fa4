import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { generateEncryptionKey, SecretBox } from "../../lib/core/secrets";
import { mailAssets, mailTemplates } from "../../lib/db/schema";
import { demoBlocks } from "../../lib/mail/blocks/library";
import { uploadSigningSecret } from "../../lib/blob-storage";
import { localUploadUrlSigner } from "../../lib/mail/assets/upload-signature";
import { createHarness, describeResponse, type Harness, type Mail, type ErrorEnvelope, type ErrorDetail } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";

type AnnouncedAsset = Mail["createAsset"]["data"];

/**
 * The three steps over HTTP in the embedded mode: announce, the unauthenticated signed PUT served by the
 * app, complete with real sharp, and the published file fetched back from the app's public files route.
 * Blobs live in a temporary DATA_DIR; every test makes its own assets (and random images where a shared
 * content-addressed file would couple tests through the database).
 */

let h: Harness;
let dataDir: string;
let a: Awaited<ReturnType<Harness["customer"]>>;
let b: Awaited<ReturnType<Harness["customer"]>>;
let cameraJpeg: Buffer;
let transparentPng: Buffer;

const BASE = "http://localhost:3000";
const MAX_UPLOAD = 20 * 1024 * 1024;

/** The EXIF GPS IFD pointer (tag 0x8825), in either byte order. */
function hasGpsPointer(exif: Buffer): boolean {
  return exif.includes(Buffer.from([0x88, 0x25])) || exif.includes(Buffer.from([0x25, 0x88]));
}

/** A small noisy JPEG nobody else uploads, so its published file is this test's alone. */
function uniqueJpeg(): Promise<Buffer> {
  return sharp(randomBytes(64 * 48 * 3), { raw: { width: 64, height: 48, channels: 3 } })
    .jpeg()
    .toBuffer();
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "assets-http-"));
  h = await createHarness({ env: { DATA_DIR: dataDir } });
  a = await h.customer("Assets A");
  b = await h.customer("Assets B");
  cameraJpeg = await sharp(randomBytes(400 * 300 * 3), { raw: { width: 400, height: 300, channels: 3 } })
    .resize(4000, 3000, { kernel: "cubic" })
    .jpeg({ quality: 92 })
    .withExif({
      IFD0: { Copyright: "EXIF-COPYRIGHT-MARKER", Make: "TestCam" },
      IFD3: { GPSLatitudeRef: "N", GPSLatitude: "52/1 31/1 1234/100", GPSLongitudeRef: "E", GPSLongitude: "13/1 24/1 0/1" },
    })
    .toBuffer();
  transparentPng = await sharp({ create: { width: 1600, height: 900, channels: 4, background: { r: 200, g: 30, b: 30, alpha: 1 } } })
    .composite([{ input: { create: { width: 800, height: 900, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }, left: 0, top: 0, blend: "source" }])
    .png()
    .toBuffer();
}, 60_000);

afterAll(async () => {
  await h.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function announce(key: string, body: unknown = { filename: "photo.jpg", content_type: "image/jpeg" }) {
  const r = await h.call<Mail["createAsset"]>("POST", "/mail/v1/assets", { key, body });
  expect(r.status, describeResponse(r)).toBe(201);
  return r.json.data;
}

type RawResponse<T> = { status: number; headers: Headers; text: string; json: T; bytes: Buffer };

/** A raw answer; `json` is typed as the caller says (`{}` when the body is not JSON). */
async function raw<T = unknown>(response: Response): Promise<RawResponse<T>> {
  const bytes = Buffer.from(await response.arrayBuffer());
  const text = bytes.toString("utf8");
  let json: unknown = {};
  try {
    json = JSON.parse(text);
  } catch {
    json = {};
  }
  return { status: response.status, headers: response.headers, text, json: json as T, bytes };
}

/** Requests an absolute URL the app handed out from the app itself (everything stays in-process). */
function local(url: string): string {
  const parsed = new URL(url);
  expect(parsed.origin).toBe(BASE);
  return `${parsed.pathname}${parsed.search}`;
}

async function put<T = unknown>(url: string, body: Uint8Array, headers: Record<string, string>) {
  return raw<T>(await h.root.request(local(url), { method: "PUT", headers, body: new Uint8Array(body) }));
}

async function upload(announced: AnnouncedAsset, bytes: Uint8Array) {
  const r = await put<Mail["uploadAssetFile"]>(announced.upload.url, bytes, announced.upload.headers);
  expect(r.status, describeResponse(r)).toBe(200);
  return r;
}

const complete = <T>(key: string, id: string) => h.call<T>("POST", `/mail/v1/assets/${id}/complete`, { key });

async function fetchFile<T = unknown>(url: string) {
  return raw<T>(await h.root.request(local(url)));
}

/** All three steps; returns the asset id and the published answer. */
async function publish(key: string, bytes: Uint8Array, body: { filename: string; content_type: string }) {
  const announced = await announce(key, body);
  await upload(announced, bytes);
  const r = await complete<Mail["completeAsset"]>(key, announced.id);
  expect(r.status, describeResponse(r)).toBe(200);
  return { id: announced.id, published: r.json.data as { url: string; width: number; height: number } };
}

describe("the three-step flow", () => {
  test("a 4000×3000 camera JPEG with EXIF GPS comes out 1360 wide, under 400 KB, without EXIF, served by the app", async () => {
    const input = await sharp(cameraJpeg).metadata();
    expect([input.width, input.height]).toEqual([4000, 3000]);
    expect(input.exif && hasGpsPointer(input.exif)).toBe(true);
    expect(cameraJpeg.includes("EXIF-COPYRIGHT-MARKER")).toBe(true);

    const announced = await announce(a.mailFull, { filename: "IMG_0001.jpg", content_type: "image/jpeg" });
    expect(announced.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(announced.upload.url.startsWith(`${BASE}/mail/v1/uploads/${announced.id}?token=`)).toBe(true);
    expect(announced.upload.headers).toEqual({ "content-type": "image/jpeg" });
    expect(announced.upload.max_bytes).toBe(MAX_UPLOAD);
    expect(Date.parse(announced.upload.expires_at) - h.clock.now().getTime()).toBe(15 * 60 * 1000);

    const pending = await h.call<Mail["getAsset"]>("GET", `/mail/v1/assets/${announced.id}`, { key: a.mailFull });
    expect(pending.json.data, describeResponse(pending)).toMatchObject({ status: "pending", url: null, width: null, bytes: null, content_type: "image/jpeg" });

    // The PUT carries no API key.
    const stored = await upload(announced, cameraJpeg);
    expect(stored.json.data).toEqual({ id: announced.id, bytes: cameraJpeg.byteLength });

    const done = await complete<Mail["completeAsset"]>(a.mailFull, announced.id);
    expect(done.status, describeResponse(done)).toBe(200);
    expect(done.json.data).toMatchObject({ width: 1360, height: 1020 });
    const url: string = done.json.data.url;
    expect(url).toMatch(new RegExp(`^${BASE}/files/assets/[0-9a-f]{64}\\.jpg$`));

    const file = await fetchFile(url);
    expect(file.status, describeResponse(file)).toBe(200);
    expect(file.headers.get("content-type")).toBe("image/jpeg");
    expect(file.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(file.headers.get("x-content-type-options")).toBe("nosniff");
    expect(file.bytes.byteLength).toBeLessThan(400_000);
    const meta = await sharp(file.bytes).metadata();
    expect([meta.format, meta.width, meta.height, meta.exif, meta.icc, meta.xmp]).toEqual(["jpeg", 1360, 1020, undefined, undefined, undefined]);
    expect(file.bytes.includes("Exif\0\0")).toBe(false);
    expect(file.bytes.includes("EXIF-COPYRIGHT-MARKER")).toBe(false);

    const asset = await h.call<Mail["getAsset"]>("GET", `/mail/v1/assets/${announced.id}`, { key: a.mailFull });
    expect(asset.json.data, describeResponse(asset)).toEqual({
      id: announced.id,
      filename: "IMG_0001.jpg",
      content_type: "image/jpeg",
      status: "ready",
      url,
      width: 1360,
      height: 1020,
      bytes: file.bytes.byteLength,
      created_at: expect.any(String),
    });
  }, 60_000);

  test("a PNG with real transparency stays PNG with its alpha channel", async () => {
    const { published } = await publish(a.mailFull, transparentPng, { filename: "logo.png", content_type: "image/png" });
    expect(published).toMatchObject({ width: 1360, height: 765 });
    expect(published.url).toMatch(/\/files\/assets\/[0-9a-f]{64}\.png$/);
    const file = await fetchFile(published.url);
    expect(file.headers.get("content-type")).toBe("image/png");
    const meta = await sharp(file.bytes).metadata();
    expect([meta.format, meta.hasAlpha]).toEqual(["png", true]);
    expect((await sharp(file.bytes).stats()).isOpaque).toBe(false);
  }, 30_000);

  test("the upload URL takes files above the 4.5 MB cap of API requests", async () => {
    const announced = await announce(a.mailFull);
    const big = randomBytes(6_000_000);
    const r = await upload(announced, big);
    expect(r.json.data).toEqual({ id: announced.id, bytes: big.byteLength });
  });

  test("complete twice, and two completes at once, give the same answer", async () => {
    const announced = await announce(a.mailFull);
    await upload(announced, await uniqueJpeg());
    const [first, second] = await Promise.all([
      complete<Mail["completeAsset"]>(a.mailFull, announced.id),
      complete<Mail["completeAsset"]>(a.mailFull, announced.id),
    ]);
    const third = await complete<Mail["completeAsset"]>(a.mailFull, announced.id);
    expect(first.status, describeResponse(first)).toBe(200);
    expect(second.json.data, describeResponse(second)).toEqual(first.json.data);
    expect(third.json.data, describeResponse(third)).toEqual(first.json.data);
  });

  test("complete before the upload is 409; the asset completes normally afterwards", async () => {
    const announced = await announce(a.mailFull);
    const early = await complete<ErrorEnvelope>(a.mailFull, announced.id);
    expect(early.status, describeResponse(early)).toBe(409);
    expect(early.json.error).toMatchObject({ code: "conflict", details: [{ path: "reason", message: "not_uploaded" }] });
    await upload(announced, await uniqueJpeg());
    expect((await complete(a.mailFull, announced.id)).status).toBe(200);
  });

  test("the asset URL is accepted by the image parameter of a block (preview) and of a saved template, which then protects it", async () => {
    const customer = await readyMailCustomer(h, "Assets in templates");
    const imageBlock = demoBlocks.find((block) => block.slug === "image");
    if (!imageBlock) throw new Error("the demo library has an image block");
    const { id, published } = await publish(customer.mailFull, await uniqueJpeg(), { filename: "hero.jpg", content_type: "image/jpeg" });
    const blocks = [{ block_id: imageBlock.id, values: { image_url: published.url, alt: "Hero" } }];

    const preview = await h.call<Mail["renderPreview"]>("POST", "/mail/v1/render/preview", { key: customer.mailFull, body: { blocks } });
    expect(preview.status, describeResponse(preview)).toBe(200);
    expect(preview.json.data.html).toContain(`src="${published.url}"`);

    const template = await h.call<Mail["createTemplate"]>("POST", "/mail/v1/templates", {
      key: customer.mailFull,
      body: { name: "With hero", subject: "Hello", blocks },
    });
    expect(template.status, describeResponse(template)).toBe(201);
    const refused = await h.call<ErrorEnvelope>("DELETE", `/mail/v1/assets/${id}`, { key: customer.mailFull });
    expect(refused.status, describeResponse(refused)).toBe(409);
    expect(refused.json.error.details).toEqual([
      { path: "reason", message: "asset_in_use" },
      { path: "template_ids.0", message: template.json.data.id },
    ]);
  });
});

describe("files that are not usable images", () => {
  test("a text file renamed .jpg is 422 at complete, the asset is failed and keeps that answer", async () => {
    const announced = await announce(a.mailFull, { filename: "notes.jpg", content_type: "image/jpeg" });
    await upload(announced, Buffer.from("these are my notes, not a photo\n".repeat(40)));
    const r = await complete<ErrorEnvelope>(a.mailFull, announced.id);
    expect(r.status, describeResponse(r)).toBe(422);
    expect(r.json.error).toEqual({
      code: "validation_error",
      message: "The file is not a JPEG, PNG, WebP or GIF image",
      details: [{ path: "file", message: "The file is not a JPEG, PNG, WebP or GIF image" }],
    });
    const again = await complete<ErrorEnvelope>(a.mailFull, announced.id);
    expect([again.status, again.json.error]).toEqual([422, r.json.error]);
    const asset = await h.call<Mail["getAsset"]>("GET", `/mail/v1/assets/${announced.id}`, { key: a.mailFull });
    expect(asset.json.data).toMatchObject({ status: "failed", url: null });
  });

  test("a 1-pixel-wide but 100,000 px tall PNG (a decompression bomb) is rejected from its header", async () => {
    const bomb = await sharp({ create: { width: 1, height: 100_000, channels: 3, background: "#fff" } })
      .png()
      .toBuffer();
    expect(bomb.byteLength).toBeLessThan(10_000);
    const announced = await announce(a.mailFull, { filename: "strip.png", content_type: "image/png" });
    await upload(announced, bomb);
    const r = await complete<ErrorEnvelope>(a.mailFull, announced.id);
    expect(r.status, describeResponse(r)).toBe(422);
    expect(r.json.error.message).toBe("The image is 1×100000 px; at most 16384 px per side and 50 megapixels are accepted");
  });

  test("a truncated JPEG is 422 as damaged", async () => {
    const whole = await sharp(randomBytes(200 * 200 * 3), { raw: { width: 200, height: 200, channels: 3 } })
      .jpeg()
      .toBuffer();
    const announced = await announce(a.mailFull);
    await upload(announced, whole.subarray(0, whole.length / 2));
    const r = await complete<ErrorEnvelope>(a.mailFull, announced.id);
    expect(r.status, describeResponse(r)).toBe(422);
    expect(r.json.error.message).toMatch(/damaged or truncated/);
  });
});

describe("the signed PUT", () => {
  /** After a refused PUT nothing may be stored: complete still finds no upload. */
  async function expectNothingStored(id: string) {
    const r = await complete<ErrorEnvelope>(a.mailFull, id);
    expect(r.status, describeResponse(r)).toBe(409);
    expect(r.json.error.details).toContainEqual({ path: "reason", message: "not_uploaded" });
  }

  function withToken(url: string, change: (token: string) => string): string {
    const parsed = new URL(url);
    parsed.searchParams.set("token", change(parsed.searchParams.get("token") ?? ""));
    return parsed.toString();
  }

  test.each([
    [
      "a tampered signature",
      403,
      "bad_signature",
      (x: AnnouncedAsset) => ({ url: withToken(x.upload.url, (t) => `${t.slice(0, -2)}${t.endsWith("AA") ? "BB" : "AA"}`) }),
    ],
    ["a tampered grant", 403, "bad_signature", (x: AnnouncedAsset) => ({ url: withToken(x.upload.url, (t) => `x${t}`) })],
    ["a wrong content type", 400, "content_type_mismatch", () => ({ headers: { "content-type": "image/png" } })],
    ["no content type", 400, "content_type_mismatch", () => ({ headers: {} })],
    [
      "a declared length over 20 MiB",
      413,
      "too_large",
      (x: AnnouncedAsset) => ({ headers: { ...x.upload.headers, "content-length": String(MAX_UPLOAD + 1) } }),
    ],
    ["a body over 20 MiB", 413, "too_large", () => ({ body: new Uint8Array(MAX_UPLOAD + 1) })],
    ["an empty body", 400, "empty", () => ({ body: new Uint8Array(0) })],
  ] as const)("%s → %i, nothing stored, the URL still usable", async (_name, status, reason, change) => {
    const announced = await announce(a.mailFull);
    const changed: { url?: string; headers?: Record<string, string>; body?: Uint8Array } = change(announced);
    const r = await put<ErrorEnvelope>(changed.url ?? announced.upload.url, changed.body ?? (await uniqueJpeg()), changed.headers ?? announced.upload.headers);
    expect(r.status, describeResponse(r)).toBe(status);
    expect(r.json.error.details).toContainEqual({ path: "reason", message: reason });
    expect(r.json.request_id).toBeTruthy();
    await expectNothingStored(announced.id);
    await upload(announced, await uniqueJpeg());
  });

  test("URLs are signed with a key derived from the deployment's encryption key; another key's signature is refused", async () => {
    const announced = await announce(a.mailFull);
    const [row] = await h.db.select({ uploadPathname: mailAssets.uploadPathname }).from(mailAssets).where(eq(mailAssets.id, announced.id));
    expect(row?.uploadPathname).toMatch(new RegExp(`^uploads/${announced.id}-[0-9a-f]{32}$`));
    const grant = {
      pathname: row?.uploadPathname ?? "",
      contentType: "image/jpeg",
      maxBytes: MAX_UPLOAD,
      expiresAt: new Date(Date.parse(announced.upload.expires_at)),
      assetId: announced.id,
      customerId: a.id,
    };
    const signWith = (secrets: SecretBox) => localUploadUrlSigner({ uploadsBaseUrl: `${BASE}/mail/v1/uploads`, secret: uploadSigningSecret(secrets) })(grant);
    const foreign = await put(signWith(new SecretBox(generateEncryptionKey())), await uniqueJpeg(), announced.upload.headers);
    expect(foreign.status, describeResponse(foreign)).toBe(403);
    expect(signWith(h.deps.secrets)).toBe(announced.upload.url);
  });

  test("the content-type error names the announced type", async () => {
    const announced = await announce(a.mailFull, { filename: "x.webp", content_type: "image/webp" });
    const r = await put<ErrorEnvelope>(announced.upload.url, await uniqueJpeg(), { "content-type": "image/jpeg" });
    expect(r.json.error.message, describeResponse(r)).toContain("image/webp");
    expect(r.json.error.details).toContainEqual({ path: "expected", message: "image/webp" });
  });

  test("another asset's URL cannot upload to this asset, and a missing token is 400", async () => {
    const mine = await announce(a.mailFull);
    const other = await announce(a.mailFull);
    const swapped = other.upload.url.replace(other.id, mine.id);
    const r = await put(swapped, await uniqueJpeg(), mine.upload.headers);
    expect(r.status, describeResponse(r)).toBe(403);
    const bare = await put(`${BASE}/mail/v1/uploads/${mine.id}`, await uniqueJpeg(), mine.upload.headers);
    expect(bare.status, describeResponse(bare)).toBe(400);
    await expectNothingStored(mine.id);
  });

  test("an expired URL is 403 and stores nothing", async () => {
    const announced = await announce(a.mailFull);
    const start = h.clock.now();
    h.clock.advance(15 * 60 * 1000);
    try {
      const r = await put<ErrorEnvelope>(announced.upload.url, await uniqueJpeg(), announced.upload.headers);
      expect(r.status, describeResponse(r)).toBe(403);
      expect(r.json.error).toMatchObject({ code: "forbidden", details: [{ path: "reason", message: "expired" }] });
      const early = await complete<ErrorEnvelope>(a.mailFull, announced.id);
      expect(early.status, describeResponse(early)).toBe(409);
      expect(early.json.error.message).toMatch(/expired/);
    } finally {
      h.clock.set(start);
    }
  });

  test("a URL is single-use: a second PUT is 409, also after complete", async () => {
    const announced = await announce(a.mailFull);
    const first = await uniqueJpeg();
    await upload(announced, first);
    const again = await put<ErrorEnvelope>(announced.upload.url, await uniqueJpeg(), announced.upload.headers);
    expect(again.status, describeResponse(again)).toBe(409);
    expect(again.json.error.details).toContainEqual({ path: "reason", message: "upload_already_used" });
    const done = await complete<Mail["completeAsset"]>(a.mailFull, announced.id);
    expect(done.status, describeResponse(done)).toBe(200);
    const late = await put(announced.upload.url, await uniqueJpeg(), announced.upload.headers);
    expect(late.status, describeResponse(late)).toBe(409);
    // The published image is the first upload's.
    const file = await fetchFile(done.json.data.url);
    expect(await sharp(file.bytes).metadata()).toMatchObject({ width: 64, height: 48 });
  });

  test("a PUT to the URL of a deleted asset is 404", async () => {
    const announced = await announce(a.mailFull);
    expect((await h.call("DELETE", `/mail/v1/assets/${announced.id}`, { key: a.mailFull })).status).toBe(200);
    const r = await put(announced.upload.url, await uniqueJpeg(), announced.upload.headers);
    expect(r.status, describeResponse(r)).toBe(404);
  });
});

describe("browser uploads: CORS on the signed PUT", () => {
  const ORIGIN = "https://portal.example.com";
  const corsHeaders = (headers: Headers) => {
    const found: Record<string, string> = {};
    headers.forEach((value, name) => {
      if (name.startsWith("access-control-")) found[name] = value;
    });
    return found;
  };

  test("the preflight allows PUT with Content-Type from any origin, cached for 10 minutes, and stores nothing", async () => {
    const announced = await announce(a.mailFull);
    const r = await raw(
      await h.root.request(local(announced.upload.url), {
        method: "OPTIONS",
        headers: { origin: ORIGIN, "access-control-request-method": "PUT", "access-control-request-headers": "content-type" },
      }),
    );
    expect(r.status, describeResponse(r)).toBe(204);
    expect(corsHeaders(r.headers)).toEqual({
      "access-control-allow-origin": "*",
      "access-control-allow-methods": "PUT",
      "access-control-allow-headers": "Content-Type",
      "access-control-expose-headers": "X-Request-Id",
      "access-control-max-age": "600",
    });
    expect(Object.keys(announced.upload.headers)).toEqual(["content-type"]);
    expect((await complete<ErrorEnvelope>(a.mailFull, announced.id)).json.error?.details).toContainEqual({ path: "reason", message: "not_uploaded" });
  });

  test("a cross-origin PUT is stored, and the page can read every answer, refusals included", async () => {
    const announced = await announce(a.mailFull);
    const headers = { ...announced.upload.headers, origin: ORIGIN };
    // Each answer read for its request id only, which every envelope has.
    const forged = await put<Partial<ErrorEnvelope>>(`${announced.upload.url}x`, await uniqueJpeg(), headers);
    const wrongType = await put<Partial<ErrorEnvelope>>(announced.upload.url, await uniqueJpeg(), { origin: ORIGIN, "content-type": "image/png" });
    const stored = await put<Partial<ErrorEnvelope>>(announced.upload.url, await uniqueJpeg(), headers);
    const again = await put<Partial<ErrorEnvelope>>(announced.upload.url, await uniqueJpeg(), headers);
    expect([forged.status, wrongType.status, stored.status, again.status], describeResponse(stored)).toEqual([403, 400, 200, 409]);
    for (const r of [forged, wrongType, stored, again]) {
      expect(corsHeaders(r.headers), describeResponse(r)).toEqual({ "access-control-allow-origin": "*", "access-control-expose-headers": "X-Request-Id" });
      expect(r.headers.get("x-request-id")).toBe(r.json.request_id);
    }
    expect((await complete(a.mailFull, announced.id)).status).toBe(200);
  });

  test("the authenticated API answers no CORS: API keys belong on servers", async () => {
    const body = { filename: "a.jpg", content_type: "image/jpeg" };
    const created = await h.call("POST", "/mail/v1/assets", { key: a.mailFull, body, headers: { origin: ORIGIN } });
    expect(created.status, describeResponse(created)).toBe(201);
    const preflight = await h.call("OPTIONS", "/mail/v1/assets", { headers: { origin: ORIGIN, "access-control-request-method": "POST" } });
    for (const r of [created, preflight]) expect(corsHeaders(r.headers), describeResponse(r)).toEqual({});
  });
});

describe("announcing", () => {
  test.each([
    ["an unsupported content type", { filename: "a.svg", content_type: "image/svg+xml" }, "content_type"],
    ["a non-image content type", { filename: "a.txt", content_type: "text/plain" }, "content_type"],
    ["a file name with a slash", { filename: "../../etc/passwd.jpg", content_type: "image/jpeg" }, "filename"],
    ["a file name with a control character", { filename: "a\u0000.jpg", content_type: "image/jpeg" }, "filename"],
    ["an empty file name", { filename: "", content_type: "image/jpeg" }, "filename"],
    ["a blank file name", { filename: "   ", content_type: "image/jpeg" }, "filename"],
    ["a file name over 255 characters", { filename: `${"a".repeat(252)}.jpg`, content_type: "image/jpeg" }, "filename"],
  ])("%s is 422", async (_name, body, path) => {
    const r = await h.call<ErrorEnvelope<ErrorDetail[]>>("POST", "/mail/v1/assets", { key: a.mailFull, body });
    expect(r.status, describeResponse(r)).toBe(422);
    expect(r.json.error.code).toBe("validation_error");
    expect(r.json.error.details.map((d: { path: string }) => d.path)).toEqual([path]);
  });

  test("missing fields are 400", async () => {
    const r = await h.call<ErrorEnvelope>("POST", "/mail/v1/assets", { key: a.mailFull, body: { filename: "a.jpg" } });
    expect(r.status, describeResponse(r)).toBe(400);
    expect(r.json.error.message).toContain("content_type");
  });

  test("with an Idempotency-Key a retry returns the same asset and upload URL", async () => {
    const key = randomUUID();
    const first = await h.call<Mail["createAsset"]>("POST", "/mail/v1/assets", {
      key: a.mailFull,
      body: { filename: "a.jpg", content_type: "image/jpeg" },
      headers: { "idempotency-key": key },
    });
    const second = await h.call<Mail["createAsset"]>("POST", "/mail/v1/assets", {
      key: a.mailFull,
      body: { filename: "a.jpg", content_type: "image/jpeg" },
      headers: { "idempotency-key": key },
    });
    expect(first.status, describeResponse(first)).toBe(201);
    expect(second.json.data, describeResponse(second)).toEqual(first.json.data);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
  });
});

describe("listing", () => {
  test("lists finished images only, newest first, with a cursor", async () => {
    const customer = await h.customer("Assets list");
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      h.clock.advance(1000);
      ids.push((await publish(customer.mailFull, await uniqueJpeg(), { filename: `p${i}.jpg`, content_type: "image/jpeg" })).id);
    }
    await announce(customer.mailFull);
    const first = await h.call<Mail["listAssets"]>("GET", "/mail/v1/assets?limit=2", { key: customer.mailReporting });
    expect(first.status, describeResponse(first)).toBe(200);
    expect(first.json.data.map((x) => x.id)).toEqual([ids[2], ids[1]]);
    expect(first.json.data.every((x) => x.status === "ready")).toBe(true);
    expect(first.json.paging.has_next).toBe(true);
    const second = await h.call<Mail["listAssets"]>("GET", `/mail/v1/assets?limit=2&after=${first.json.paging.after}`, { key: customer.mailReporting });
    expect(
      second.json.data.map((x) => x.id),
      describeResponse(second),
    ).toEqual([ids[0]]);
    expect(second.json.paging).toEqual({ after: null, has_next: false });
  });

  test("a bad cursor is 400 and a limit over 100 is 422", async () => {
    expect((await h.call("GET", "/mail/v1/assets?after=nonsense", { key: a.mailFull })).status).toBe(400);
    expect((await h.call("GET", "/mail/v1/assets?limit=101", { key: a.mailFull })).status).toBe(422);
  });
});

describe("deleting", () => {
  test("delete removes the asset and its file; a second delete is 404", async () => {
    const { id, published } = await publish(a.mailFull, await uniqueJpeg(), { filename: "gone.jpg", content_type: "image/jpeg" });
    expect((await fetchFile(published.url)).status).toBe(200);
    const r = await h.call<Mail["deleteAsset"]>("DELETE", `/mail/v1/assets/${id}`, { key: a.mailFull });
    expect(r.status, describeResponse(r)).toBe(200);
    expect(r.json.data).toEqual({ id, deleted: true });
    expect((await h.call("GET", `/mail/v1/assets/${id}`, { key: a.mailFull })).status).toBe(404);
    const file = await fetchFile<ErrorEnvelope>(published.url);
    expect(file.status, describeResponse(file)).toBe(404);
    expect(file.json.error.code).toBe("not_found");
    expect((await h.call("DELETE", `/mail/v1/assets/${id}`, { key: a.mailFull })).status).toBe(404);
    const listed = await h.call<Mail["listAssets"]>("GET", "/mail/v1/assets?limit=100", { key: a.mailFull });
    expect(listed.json.data.map((x) => x.id)).not.toContain(id);
  });

  test("identical images share one file across customers; it goes with the last asset", async () => {
    const image = await uniqueJpeg();
    const fromA = await publish(a.mailFull, image, { filename: "same.jpg", content_type: "image/jpeg" });
    const fromB = await publish(b.mailFull, image, { filename: "same.jpg", content_type: "image/jpeg" });
    expect(fromB.published.url).toBe(fromA.published.url);
    expect((await h.call("DELETE", `/mail/v1/assets/${fromA.id}`, { key: a.mailFull })).status).toBe(200);
    expect((await fetchFile(fromA.published.url)).status).toBe(200);
    expect((await h.call("DELETE", `/mail/v1/assets/${fromB.id}`, { key: b.mailFull })).status).toBe(200);
    expect((await fetchFile(fromA.published.url)).status).toBe(404);
  });

  test("delete is refused with 409 while a template names the image, and allowed once it no longer does", async () => {
    const customer = await h.customer("Assets templates");
    const { id, published } = await publish(customer.mailFull, await uniqueJpeg(), { filename: "in-use.jpg", content_type: "image/jpeg" });
    const [template] = await h.db
      .insert(mailTemplates)
      .values({
        customerId: customer.id,
        name: "Newsletter with hero",
        kind: "newsletter",
        origin: "customer",
        subject: "Hello",
        blocks: [{ block_id: randomUUID(), values: { image: published.url } }],
      })
      .returning({ id: mailTemplates.id });
    const refused = await h.call<ErrorEnvelope>("DELETE", `/mail/v1/assets/${id}`, { key: customer.mailFull });
    expect(refused.status, describeResponse(refused)).toBe(409);
    expect(refused.json.error.details).toEqual([
      { path: "reason", message: "asset_in_use" },
      { path: "template_ids.0", message: template?.id },
    ]);
    expect((await fetchFile(published.url)).status).toBe(200);

    await h.db
      .update(mailTemplates)
      .set({ deletedAt: new Date() })
      .where(eq(mailTemplates.id, template?.id ?? ""));
    const r = await h.call("DELETE", `/mail/v1/assets/${id}`, { key: customer.mailFull });
    expect(r.status, describeResponse(r)).toBe(200);
  });

  test("deleting a pending asset discards its upload", async () => {
    const announced = await announce(a.mailFull);
    await upload(announced, await uniqueJpeg());
    expect((await h.call("DELETE", `/mail/v1/assets/${announced.id}`, { key: a.mailFull })).status).toBe(200);
    expect((await complete(a.mailFull, announced.id)).status).toBe(404);
  });
});

describe("security", () => {
  let asset: { id: string; published: { url: string } };
  beforeAll(async () => {
    asset = await publish(a.mailFull, await uniqueJpeg(), { filename: "private.jpg", content_type: "image/jpeg" });
  });

  test.each([
    ["POST", "/mail/v1/assets"],
    ["GET", "/mail/v1/assets"],
    ["GET", "/mail/v1/assets/{id}"],
    ["POST", "/mail/v1/assets/{id}/complete"],
    ["DELETE", "/mail/v1/assets/{id}"],
  ])("%s %s without a key is 401", async (method, path) => {
    const r = await h.call(
      method,
      path.replace("{id}", asset.id),
      method === "POST" && !path.includes("{id}") ? { body: { filename: "a.jpg", content_type: "image/jpeg" } } : {},
    );
    expect(r.status, describeResponse(r)).toBe(401);
  });

  test.each([
    ["POST", "/mail/v1/assets"],
    ["POST", "/mail/v1/assets/{id}/complete"],
    ["DELETE", "/mail/v1/assets/{id}"],
  ])("%s %s with a reporting key is 403", async (method, path) => {
    const r = await h.call(method, path.replace("{id}", asset.id), {
      key: a.mailReporting,
      ...(path.includes("{id}") ? {} : { body: { filename: "a.jpg", content_type: "image/jpeg" } }),
    });
    expect(r.status, describeResponse(r)).toBe(403);
  });

  test("reporting keys read", async () => {
    const r = await h.call("GET", `/mail/v1/assets/${asset.id}`, { key: a.mailReporting });
    expect(r.status, describeResponse(r)).toBe(200);
  });

  test.each([
    ["GET", "/mail/v1/assets/{id}"],
    ["POST", "/mail/v1/assets/{id}/complete"],
    ["DELETE", "/mail/v1/assets/{id}"],
  ])("another customer's asset: %s %s is 404", async (method, path) => {
    const r = await h.call<ErrorEnvelope>(method, path.replace("{id}", asset.id), { key: b.mailFull });
    expect(r.status, describeResponse(r)).toBe(404);
    expect(r.json.error.code).toBe("not_found");
  });

  test("another customer's list does not show the asset, and the asset still exists", async () => {
    const listed = await h.call<Mail["listAssets"]>("GET", "/mail/v1/assets?limit=100", { key: b.mailFull });
    expect(listed.json.data.map((x) => x.id)).not.toContain(asset.id);
    expect((await h.call<Mail["getAsset"]>("GET", `/mail/v1/assets/${asset.id}`, { key: a.mailFull })).json.data.status).toBe("ready");
  });

  test("the files route serves published images only, not raw uploads or other paths", async () => {
    const announced = await announce(a.mailFull);
    await upload(announced, await uniqueJpeg());
    for (const path of [`/files/uploads/${announced.id}`, "/files/assets/..%2Fuploads", "/files/assets/abc.jpg", `/files/assets/${"0".repeat(64)}.jpg`]) {
      const r = await raw(await h.root.request(path));
      expect(r.status, `${path}: ${describeResponse(r)}`).toBe(404);
    }
  });
});
