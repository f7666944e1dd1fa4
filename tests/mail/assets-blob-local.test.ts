import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createLocalBlobStore, PUBLISHED_FILE_MAX_AGE_SECONDS, UploadTooLargeError, type LocalBlobStore } from "../../lib/adapters/blob";
import { ManualClock } from "../../lib/base/clock";
import { localUploadUrlSigner, newUploadPathname, UPLOAD_TOKEN_PARAM, verifyUpload } from "../../lib/mail/assets/upload-signature";

const SECRET = "local-upload-secret-0123456789abcdef";
const clock = new ManualClock("2026-03-01T12:00:00.000Z");
let directory: string;
let store: LocalBlobStore;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "blobs-"));
  store = createLocalBlobStore({
    directory,
    filesBaseUrl: "http://localhost:3000/files/",
    signUploadUrl: localUploadUrlSigner({ uploadsBaseUrl: "http://localhost:3000/mail/v1/uploads", secret: SECRET }),
  });
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe("local blob store", () => {
  test("put publishes under the files URL and get serves bytes with type and cache header", async () => {
    const bytes = new Uint8Array([1, 2, 3, 4]);
    const { url } = await store.put("assets/abc.png", bytes, { contentType: "image/png", cacheControlMaxAge: PUBLISHED_FILE_MAX_AGE_SECONDS });
    expect(url).toBe("http://localhost:3000/files/assets/abc.png");
    expect(await store.get("assets/abc.png")).toEqual({
      bytes,
      contentType: "image/png",
      cacheControl: `public, max-age=${PUBLISHED_FILE_MAX_AGE_SECONDS}, immutable`,
    });
  });

  test("readPublished reads a published file by its URL; raw uploads, other origins and missing files are null", async () => {
    const name = `creatives/${"ab".repeat(32)}.mp4`;
    await store.put(name, new Uint8Array([5, 6, 7]), { contentType: "video/mp4", cacheControlMaxAge: PUBLISHED_FILE_MAX_AGE_SECONDS });
    await store.put("uploads/raw-upload", new Uint8Array([1]), { contentType: "image/jpeg", cacheControlMaxAge: 60 });
    expect(await store.readPublished(`http://localhost:3000/files/${name}`, 100)).toEqual(new Uint8Array([5, 6, 7]));
    expect(await store.readPublished("http://localhost:3000/files/uploads/raw-upload", 100)).toBeNull();
    expect(await store.readPublished(`https://elsewhere.example/files/${name}`, 100)).toBeNull();
    expect(await store.readPublished(`http://localhost:3000/files/creatives/${"cd".repeat(32)}.mp4`, 100)).toBeNull();
    await expect(store.readPublished(`http://localhost:3000/files/${name}`, 2)).rejects.toBeInstanceOf(UploadTooLargeError);
  });

  test("delete by URL or pathname removes the file, and deleting again is fine", async () => {
    const { url } = await store.put("assets/gone.jpg", new Uint8Array([9]), { contentType: "image/jpeg", cacheControlMaxAge: 60 });
    await store.delete(url);
    expect(await store.get("assets/gone.jpg")).toBeNull();
    await expect(store.delete("assets/gone.jpg")).resolves.toBeUndefined();
  });

  test("delete takes many files in one call", async () => {
    for (const name of ["assets/one.jpg", "assets/two.jpg"]) await store.put(name, new Uint8Array([1]), { contentType: "image/jpeg", cacheControlMaxAge: 60 });
    await store.delete(["assets/one.jpg", "http://localhost:3000/files/assets/two.jpg", "assets/never.jpg"]);
    expect([await store.get("assets/one.jpg"), await store.get("assets/two.jpg")]).toEqual([null, null]);
    await expect(store.delete([])).resolves.toBeUndefined();
  });

  test("listPathnames lists the files under a prefix, nested ones too, but no write in progress and nothing elsewhere", async () => {
    const listed = async (prefix: string) => {
      const all: string[] = [];
      for await (const page of store.listPathnames(prefix)) all.push(...page);
      return all.sort();
    };
    expect(await listed("listing/")).toEqual([]);
    for (const name of ["listing/a", "listing/b", "listing/deeper/c", "elsewhere/d"]) {
      await store.put(name, new Uint8Array([1]), { contentType: "image/png", cacheControlMaxAge: 0 });
    }
    await writeFile(join(directory, "objects", "listing", "e.0c1d2e3f.tmp"), "half written");
    expect(await listed("listing/")).toEqual(["listing/a", "listing/b", "listing/deeper/c"]);
    await expect(listed("listing")).rejects.toThrow(/ends with/);
    await expect(listed("../")).rejects.toThrow(/Invalid blob pathname/);
  });

  test("no temporary files are left behind", async () => {
    await store.put("assets/tidy.jpg", new Uint8Array(10), { contentType: "image/jpeg", cacheControlMaxAge: 60 });
    const names = await readdir(join(directory, "objects", "assets"));
    expect(names.filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });

  test.each(["../escape", "assets/../../etc/passwd", "/absolute", "assets//double", ".hidden", "assets/.meta", ""])(
    "refuses the pathname %j",
    async (pathname) => {
      await expect(store.put(pathname, new Uint8Array(1), { contentType: "image/png", cacheControlMaxAge: 60 })).rejects.toThrow(/Invalid blob pathname/);
      await expect(store.get(pathname)).rejects.toThrow(/Invalid blob pathname/);
    },
  );

  test("a URL-encoded traversal in a files URL is refused on delete", async () => {
    await expect(store.delete("http://localhost:3000/files/..%2F..%2Fsecret")).rejects.toThrow(/Invalid blob pathname/);
  });
});

describe("three-step upload in the embedded mode", () => {
  const assetId = "0d6b1c2e-8f0a-4c57-9e3b-2a1f4d5c6b7a";
  const pathname = newUploadPathname(assetId);

  test("the target is the app's signed PUT URL; the route verifies it and stores the bytes; readUpload returns them", async () => {
    const target = await store.createUploadTarget({
      pathname,
      assetId,
      contentType: "image/jpeg",
      maxBytes: 1000,
      expiresAt: new Date("2026-03-01T12:15:00Z"),
    });
    expect(target.method).toBe("PUT");
    expect(target.headers).toEqual({ "content-type": "image/jpeg" });
    expect(await store.readUpload({ pathname, maxBytes: 1000 })).toBeNull();

    // What the upload route does with the PUT.
    const url = new URL(target.url);
    const verification = verifyUpload(
      url.searchParams.get(UPLOAD_TOKEN_PARAM),
      { assetId: url.pathname.split("/").pop() ?? "", contentType: target.headers["content-type"], contentLength: 3 },
      SECRET,
      clock,
    );
    if (!verification.ok) throw new Error(`upload refused: ${verification.reason}`);
    expect(verification.grant).toMatchObject({ assetId, pathname, contentType: "image/jpeg", maxBytes: 1000 });
    await store.put(verification.grant.pathname, new Uint8Array([7, 8, 9]), { contentType: verification.grant.contentType, cacheControlMaxAge: 60 });

    expect(await store.readUpload({ pathname, maxBytes: 1000 })).toEqual({ bytes: new Uint8Array([7, 8, 9]), contentType: "image/jpeg" });
    await expect(store.readUpload({ pathname, maxBytes: 2 })).rejects.toBeInstanceOf(UploadTooLargeError);
  });
});
