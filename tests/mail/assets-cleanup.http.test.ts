import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { LocalBlobStore } from "../../lib/adapters/blob";
import { ManualClock } from "../../lib/base/clock";
import { randomToken } from "../../lib/core/secrets";
import { findCronJob } from "../../lib/cron";
import { mailAssets } from "../../lib/db/schema";
import { ABANDONED_ASSET_AFTER_MS } from "../../lib/mail/assets/cleanup";
import { createAssetStorage } from "../../lib/blob-storage";
import { createHarness, describeResponse, type Harness, type Mail, type CronRun } from "../helpers/harness";

type AnnouncedAsset = Mail["createAsset"]["data"];

/**
 * The `mail-assets-cleanup` cron in the embedded mode, with the harness's manual clock. The clock starts
 * in 2000 so that, when the suite shares one PostgreSQL database, "older than 24 hours" can only ever
 * mean this file's assets; every assertion names this file's own rows and files.
 */

const HOUR = 60 * 60 * 1000;
const CRON_SECRET = randomToken(24);

let h: Harness;
let dataDir: string;
let customer: Awaited<ReturnType<Harness["customer"]>>;
let store: LocalBlobStore;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "assets-cleanup-"));
  h = await createHarness({ env: { DATA_DIR: dataDir, CRON_SECRET }, clock: new ManualClock("2000-06-01T00:00:00.000Z") });
  customer = await h.customer("Assets cleanup");
  // The same directory the app writes to, as the cron's own storage sees it.
  const local = createAssetStorage(h.deps).local;
  if (!local) throw new Error("the embedded mode stores files locally");
  store = local;
});

afterAll(async () => {
  await h.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function announce(): Promise<AnnouncedAsset> {
  const r = await h.call<Mail["createAsset"]>("POST", "/mail/v1/assets", {
    key: customer.mailFull,
    body: { filename: "photo.jpg", content_type: "image/jpeg" },
  });
  expect(r.status, describeResponse(r)).toBe(201);
  return r.json.data;
}

async function upload(announced: AnnouncedAsset, bytes: Uint8Array): Promise<void> {
  const url = new URL(announced.upload.url);
  const r = await h.root.request(`${url.pathname}${url.search}`, { method: "PUT", headers: announced.upload.headers, body: new Uint8Array(bytes) });
  expect(r.status, await r.clone().text()).toBe(200);
}

const complete = <T>(id: string) => h.call<T>("POST", `/mail/v1/assets/${id}/complete`, { key: customer.mailFull });

async function uploadPathnameOf(id: string): Promise<string> {
  const [row] = await h.db.select({ uploadPathname: mailAssets.uploadPathname }).from(mailAssets).where(eq(mailAssets.id, id));
  if (!row) throw new Error(`asset ${id} has no row`);
  return row.uploadPathname;
}

async function rawUploads(): Promise<string[]> {
  const all: string[] = [];
  for await (const page of store.listPathnames("uploads/")) all.push(...page);
  return all.sort();
}

const jpeg = () =>
  sharp(randomBytes(32 * 24 * 3), { raw: { width: 32, height: 24, channels: 3 } })
    .jpeg()
    .toBuffer();

async function runCron(): Promise<Record<string, number | string>> {
  const job = findCronJob("mail-assets-cleanup");
  if (!job) throw new Error("the cron job is registered");
  return job.run(h.cronDeps);
}

describe("mail-assets-cleanup", () => {
  test("removes leftover raw uploads at once, abandoned announcements after 24 hours, and is idempotent", async () => {
    const start = h.clock.now();
    const untouched = await announce();
    const uploaded = await announce();
    await upload(uploaded, await jpeg());
    const published = await announce();
    await upload(published, await jpeg());
    const done = await complete<Mail["completeAsset"]>(published.id);
    expect(done.status, describeResponse(done)).toBe(200);
    const failed = await announce();
    await upload(failed, Buffer.from("not an image at all"));
    expect((await complete(failed.id)).status).toBe(422);

    // Leftovers the service could not remove itself: a failed asset's upload whose deletion failed, the
    // upload of an asset that no longer exists, and a name we never hand out.
    const leftovers = [await uploadPathnameOf(failed.id), `uploads/${randomUUID()}-${randomBytes(16).toString("hex")}`, "uploads/junk"];
    for (const pathname of leftovers) await store.put(pathname, new Uint8Array([1, 2, 3]), { contentType: "image/jpeg", cacheControlMaxAge: 0 });
    const uploadedRaw = await uploadPathnameOf(uploaded.id);
    expect(await rawUploads()).toEqual([uploadedRaw, ...leftovers].sort());

    h.clock.set(new Date(start.getTime() + ABANDONED_ASSET_AFTER_MS - 1));
    expect(await runCron()).toEqual({ abandoned_assets: 0, raw_uploads_deleted: 3 });
    expect(await rawUploads()).toEqual([uploadedRaw]);
    for (const announced of [untouched, uploaded]) {
      const r = await h.call<Mail["getAsset"]>("GET", `/mail/v1/assets/${announced.id}`, { key: customer.mailFull });
      expect(r.json.data?.status, describeResponse(r)).toBe("pending");
    }

    h.clock.set(new Date(start.getTime() + ABANDONED_ASSET_AFTER_MS + 1));
    const viaVercelCron = await h.call<CronRun>("GET", "/api/cron/mail-assets-cleanup", { headers: { authorization: `Bearer ${CRON_SECRET}` } });
    expect(viaVercelCron.status, describeResponse(viaVercelCron)).toBe(200);
    expect(viaVercelCron.json.data).toEqual({ job: "mail-assets-cleanup", result: { abandoned_assets: 2, raw_uploads_deleted: 1 } });
    expect(await rawUploads()).toEqual([]);
    for (const announced of [untouched, uploaded]) {
      const r = await h.call("GET", `/mail/v1/assets/${announced.id}`, { key: customer.mailFull });
      expect(r.status, describeResponse(r)).toBe(404);
      expect((await complete(announced.id)).status).toBe(404);
    }

    // Finished assets stay, with their published files.
    const ready = await h.call<Mail["getAsset"]>("GET", `/mail/v1/assets/${published.id}`, { key: customer.mailFull });
    expect(ready.json.data, describeResponse(ready)).toMatchObject({ status: "ready", url: done.json.data.url });
    const file = await h.root.request(new URL(done.json.data.url as string).pathname);
    expect(file.status).toBe(200);
    const stillFailed = await complete(failed.id);
    expect(stillFailed.status, describeResponse(stillFailed)).toBe(422);

    expect(await runCron()).toEqual({ abandoned_assets: 0, raw_uploads_deleted: 0 });
  });

  test("two runs at once both succeed: the abandoned asset is deleted once and no upload is left", async () => {
    const start = h.clock.now();
    const abandoned = await announce();
    await upload(abandoned, await jpeg());
    const orphan = `uploads/${randomUUID()}-${randomBytes(16).toString("hex")}`;
    await store.put(orphan, new Uint8Array([1]), { contentType: "image/jpeg", cacheControlMaxAge: 0 });

    h.clock.set(new Date(start.getTime() + ABANDONED_ASSET_AFTER_MS + HOUR));
    const results = await Promise.all([runCron(), runCron()]);
    expect(results.reduce((sum, r) => sum + Number(r.abandoned_assets), 0)).toBe(1);
    expect(await rawUploads()).toEqual([]);
    expect((await h.call("GET", `/mail/v1/assets/${abandoned.id}`, { key: customer.mailFull })).status).toBe(404);
  });
});
