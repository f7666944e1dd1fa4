import { randomBytes } from "node:crypto";
import { getPayloadFromClientToken } from "@vercel/blob/client";
import sharp from "sharp";
import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from "vitest";
import { sweepRawUploads } from "../../lib/mail/assets/cleanup";
import { createAssetStorage } from "../../lib/blob-storage";
import { startBlobFake, type BlobRequest, type FakeBlob } from "../helpers/blob-fake";
import { createHarness, describeResponse, type Harness, type Mail } from "../helpers/harness";

type AnnouncedAsset = Mail["createAsset"]["data"];

/**
 * The production path at the HTTP level: BLOB_READ_WRITE_TOKEN set, so the runtime picks Vercel Blob, and
 * the real `@vercel/blob` SDK talks to a fake of the Blob API on 127.0.0.1 (`VERCEL_BLOB_API_URL`, which
 * the SDK reads itself). The fake checks client tokens as Vercel does (HMAC under the read-write token,
 * then pathname, content types, size cap, expiry, no overwrite), so an upload it accepts or refuses shows
 * the scope of the token the API handed to the caller.
 */

const STORE = "AssetsStore7";
const SECRET = "rwSecretPart0123456789";
const RW_TOKEN = `vercel_blob_rw_${STORE}_${SECRET}`;
const MAX_UPLOAD = 20 * 1024 * 1024;

let fake: Awaited<ReturnType<typeof startBlobFake>>;
let api: string;
let h: Harness;
let customer: Awaited<ReturnType<Harness["customer"]>>;
let seen: BlobRequest[];
let blobs: Map<string, FakeBlob>;

beforeAll(async () => {
  fake = await startBlobFake({ storeId: STORE, readWriteToken: RW_TOKEN });
  ({ url: api, seen, blobs } = fake);
  vi.stubEnv("VERCEL_BLOB_API_URL", api);
  // A refused request must surface at once, not after the SDK's retries with backoff.
  vi.stubEnv("VERCEL_BLOB_RETRIES", "0");
  h = await createHarness({ env: { BLOB_READ_WRITE_TOKEN: RW_TOKEN, VERCEL_BLOB_API_URL: api } });
  customer = await h.customer("Vercel assets");
});

afterAll(async () => {
  await h.close();
  vi.unstubAllEnvs();
  await fake.close();
});

beforeEach(() => {
  seen.length = 0;
});

async function announce(contentType = "image/jpeg"): Promise<AnnouncedAsset> {
  const r = await h.call<Mail["createAsset"]>("POST", "/mail/v1/assets", { key: customer.mailFull, body: { filename: "photo", content_type: contentType } });
  expect(r.status, describeResponse(r)).toBe(201);
  expect(r.text).not.toContain(SECRET);
  return r.json.data;
}

/** The caller's step 2, exactly as documented: PUT upload.url with upload.headers, straight to the store. */
async function putToStore(url: string, headers: Record<string, string>, body: Uint8Array) {
  const response = await fetch(url, { method: "PUT", headers, body: new Uint8Array(body) });
  return { status: response.status, text: await response.text() };
}

/** The raw upload's pathname, as signed into the client token handed to the caller. */
function uploadPathnameOf(announced: AnnouncedAsset): string {
  return getPayloadFromClientToken(announced.upload.headers.authorization?.replace(/^Bearer /, "") ?? "").pathname;
}

/**
 * A 2000×1000 JPEG nobody else uploads: published files are content-addressed and shared by identical
 * images, and the database may hold other runs' assets, so a shared image would keep its file alive.
 */
const photo = () =>
  sharp(randomBytes(200 * 100 * 3), { raw: { width: 200, height: 100, channels: 3 } })
    .resize(2000, 1000)
    .jpeg()
    .toBuffer();

describe("assets on Vercel Blob", () => {
  test("the upload target is a client token scoped to one pathname, type, size and expiry, made without a request", async () => {
    const announced = await announce("image/png");
    expect(seen).toEqual([]);
    const pathname = uploadPathnameOf(announced);
    expect(pathname).toMatch(new RegExp(`^uploads/${announced.id}-[0-9a-f]{32}$`));
    expect(announced.upload.url).toBe(`${api}/?pathname=${encodeURIComponent(pathname)}`);
    const token = announced.upload.headers.authorization?.replace(/^Bearer /, "") ?? "";
    expect(token.startsWith(`vercel_blob_client_${STORE}_`)).toBe(true);
    expect(announced.upload.headers).toEqual({
      authorization: `Bearer ${token}`,
      "x-api-version": "12",
      "x-vercel-blob-store-id": STORE,
      "x-vercel-blob-access": "public",
      "x-content-type": "image/png",
    });
    expect(getPayloadFromClientToken(token)).toEqual({
      pathname,
      allowedContentTypes: ["image/png"],
      maximumSizeInBytes: MAX_UPLOAD,
      validUntil: Date.parse(announced.upload.expires_at),
      addRandomSuffix: false,
      allowOverwrite: false,
    });
    expect(Date.parse(announced.upload.expires_at) - h.clock.now().getTime()).toBe(15 * 60 * 1000);
  });

  test("the store refuses the token for another pathname, another type, more than 20 MiB and a second upload", async () => {
    const announced = await announce();
    const { url, headers } = announced.upload;
    const elsewhere = await putToStore(`${api}/?pathname=assets%2Fhijack.jpg`, headers, await photo());
    expect(elsewhere).toMatchObject({ status: 400, text: expect.stringContaining("is not the token's") });
    const svg = await putToStore(url, { ...headers, "x-content-type": "image/svg+xml" }, Buffer.from("<svg/>"));
    expect(svg).toMatchObject({ status: 400, text: expect.stringContaining("not allowed") });
    const huge = await putToStore(url, headers, new Uint8Array(MAX_UPLOAD + 1));
    expect(huge).toMatchObject({ status: 400, text: expect.stringContaining(`larger than ${MAX_UPLOAD}`) });
    expect(blobs.has(uploadPathnameOf(announced))).toBe(false);
    const guessed = await putToStore(`${api}/?pathname=uploads%2F${announced.id}`, headers, await photo());
    expect(guessed).toMatchObject({ status: 400, text: expect.stringContaining("is not the token's") });

    expect((await putToStore(url, headers, await photo())).status).toBe(200);
    const again = await putToStore(url, headers, await photo());
    expect(again).toMatchObject({ status: 400, text: expect.stringContaining("already exists") });
  });

  test("complete reads the upload with the read-write token, publishes the optimised image for a year and removes the upload", async () => {
    const announced = await announce();
    const early = await h.call("POST", `/mail/v1/assets/${announced.id}/complete`, { key: customer.mailFull });
    expect(early.status, describeResponse(early)).toBe(409);

    expect((await putToStore(announced.upload.url, announced.upload.headers, await photo())).status).toBe(200);
    seen.length = 0;
    const done = await h.call<Mail["completeAsset"]>("POST", `/mail/v1/assets/${announced.id}/complete`, { key: customer.mailFull });
    expect(done.status, describeResponse(done)).toBe(200);
    const url: string = done.json.data.url;
    expect(done.json.data).toEqual({ url: expect.stringMatching(new RegExp(`^${api}/public/assets/[0-9a-f]{64}\\.jpg$`)), width: 1360, height: 680 });

    const pathname = url.slice(`${api}/public/`.length);
    const raw = uploadPathnameOf(announced);
    expect(seen.map((s) => `${s.method} ${decodeURIComponent(s.url)}`)).toEqual([
      `GET /?url=${raw}`,
      `GET /public/${raw}`,
      `PUT /?pathname=${pathname}`,
      "POST /delete",
    ]);
    const publish = seen[2];
    expect(publish?.authorization).toBe(`Bearer ${RW_TOKEN}`);
    expect(publish?.headers).toMatchObject({ "x-content-type": "image/jpeg", "x-cache-control-max-age": "31536000", "x-allow-overwrite": "1" });
    expect(JSON.parse(seen[3]?.body.toString("utf8") ?? "{}")).toEqual({ urls: [raw] });
    expect(blobs.has(raw)).toBe(false);

    const file = await fetch(url);
    expect(file.headers.get("content-type")).toBe("image/jpeg");
    expect((await sharp(Buffer.from(await file.arrayBuffer())).metadata()).width).toBe(1360);

    const again = await h.call<Mail["completeAsset"]>("POST", `/mail/v1/assets/${announced.id}/complete`, { key: customer.mailFull });
    expect(again.json.data, describeResponse(again)).toEqual(done.json.data);

    const deleted = await h.call("DELETE", `/mail/v1/assets/${announced.id}`, { key: customer.mailFull });
    expect(deleted.status, describeResponse(deleted)).toBe(200);
    expect(JSON.parse(seen.at(-1)?.body.toString("utf8") ?? "{}")).toEqual({ urls: [url] });
    expect(blobs.has(pathname)).toBe(false);
  });

  test("the raw upload is public only under its unguessable name: the asset id alone finds nothing", async () => {
    const announced = await announce();
    expect((await putToStore(announced.upload.url, announced.upload.headers, await photo())).status).toBe(200);
    expect((await fetch(`${api}/public/${uploadPathnameOf(announced)}`)).status).toBe(200);
    expect((await fetch(`${api}/public/uploads/${announced.id}`)).status).toBe(404);
    expect(uploadPathnameOf(await announce())).not.toBe(uploadPathnameOf(announced));
  });

  test("a second PUT after complete or delete (the token cannot be revoked) leaves no orphan: the sweep removes it, the pending upload stays", async () => {
    const completed = await announce();
    const deleted = await announce();
    const pending = await announce();
    for (const announced of [completed, deleted, pending]) {
      expect((await putToStore(announced.upload.url, announced.upload.headers, await photo())).status).toBe(200);
    }
    const done = await h.call<Mail["completeAsset"]>("POST", `/mail/v1/assets/${completed.id}/complete`, { key: customer.mailFull });
    expect(done.status, describeResponse(done)).toBe(200);
    const removed = await h.call("DELETE", `/mail/v1/assets/${deleted.id}`, { key: customer.mailFull });
    expect(removed.status, describeResponse(removed)).toBe(200);
    expect([blobs.has(uploadPathnameOf(completed)), blobs.has(uploadPathnameOf(deleted))]).toEqual([false, false]);

    // Within the token's 15 minutes the store takes the same upload once more.
    for (const announced of [completed, deleted]) {
      expect((await putToStore(announced.upload.url, announced.upload.headers, await photo())).status).toBe(200);
      expect(blobs.has(uploadPathnameOf(announced))).toBe(true);
    }
    const swept = await sweepRawUploads({ db: h.deps.db, assets: createAssetStorage(h.deps) });
    expect(swept).toBe(2);
    expect([completed, deleted, pending].map((x) => blobs.has(uploadPathnameOf(x)))).toEqual([false, false, true]);
    expect(await sweepRawUploads({ db: h.deps.db, assets: createAssetStorage(h.deps) })).toBe(0);

    const again = await h.call<Mail["completeAsset"]>("POST", `/mail/v1/assets/${completed.id}/complete`, { key: customer.mailFull });
    expect(again.json.data, describeResponse(again)).toEqual(done.json.data);
    const later = await h.call("POST", `/mail/v1/assets/${pending.id}/complete`, { key: customer.mailFull });
    expect(later.status, describeResponse(later)).toBe(200);
  });

  test("the embedded upload route and files route are not in service", async () => {
    const announced = await announce();
    const upload = await h.root.request(`/mail/v1/uploads/${announced.id}?token=x`, {
      method: "PUT",
      headers: { "content-type": "image/jpeg" },
      body: new Uint8Array([1]),
    });
    expect(upload.status, await upload.clone().text()).toBe(404);
    expect((await h.root.request("/files/assets/x.jpg")).status).toBe(404);
  });
});
