import { createHash, randomBytes } from "node:crypto";
import { deflateSync } from "node:zlib";
import sharp from "sharp";
import { beforeAll, describe, expect, test } from "vitest";
import {
  contentAddressedPathname,
  ImageRejectedError,
  MAX_OUTPUT_BYTES,
  MAX_OUTPUT_WIDTH,
  optimiseImage,
  type ImageRejection,
  type OptimisedImage,
} from "../../lib/mail/assets/optimise";

/**
 * Real sharp on generated images. Every input is built here and its properties (EXIF GPS, ICC, XMP,
 * alpha, frames) are checked on the input first, so a passing output check means the optimiser removed or
 * handled them, not that they were never there.
 */

const XMP = `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" dc:creator="XMP-CREATOR-MARKER"/></rdf:RDF></x:xmpmeta>`;

/** Minimal EXIF (TIFF) reader: the GPS IFD's GPSLatitude as [degrees, minutes, seconds], or null. */
function gpsLatitudeOf(exif: Buffer): number[] | null {
  const tiff = exif.subarray(exif.indexOf("Exif\0\0", 0, "latin1") + 6);
  const little = tiff.toString("latin1", 0, 2) === "II";
  const u16 = (at: number) => (little ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (little ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  const entries = (ifd: number) =>
    Array.from({ length: u16(ifd) }, (_, i) => {
      const at = ifd + 2 + i * 12;
      return { tag: u16(at), count: u32(at + 4), value: u32(at + 8) };
    });
  const gpsPointer = entries(u32(4)).find((e) => e.tag === 0x8825);
  if (!gpsPointer) return null;
  const latitude = entries(gpsPointer.value).find((e) => e.tag === 0x0002);
  if (!latitude) return null;
  return Array.from({ length: latitude.count }, (_, i) => u32(latitude.value + i * 8) / u32(latitude.value + i * 8 + 4));
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function crc32(data: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of data) {
    crc ^= byte;
    for (let k = 0; k < 8; k += 1) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * A decompression bomb in a few dozen bytes: a valid PNG header claiming huge dimensions, followed by one
 * tiny IDAT. Decoding would fail (the data is short), so a `too_many_pixels` rejection proves the header
 * was checked before any decoding started.
 */
function pngBomb(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, deflate, no filter, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", header),
    pngChunk("IDAT", deflateSync(Buffer.alloc(16))),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

async function rejection(bytes: Uint8Array): Promise<ImageRejectedError> {
  const error = await optimiseImage(bytes).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ImageRejectedError);
  return error as ImageRejectedError;
}

async function expectClean(image: OptimisedImage) {
  const meta = await sharp(image.bytes).metadata();
  expect({ exif: meta.exif, icc: meta.icc, xmp: meta.xmp, iptc: meta.iptc, hasProfile: meta.hasProfile }).toEqual({
    exif: undefined,
    icc: undefined,
    xmp: undefined,
    iptc: undefined,
    hasProfile: false,
  });
  expect(meta.width).toBe(image.width);
  expect(meta.height).toBe(image.height);
  expect(image.bytes.byteLength).toBeLessThan(MAX_OUTPUT_BYTES);
  return meta;
}

describe("a large camera JPEG with GPS, ICC and XMP", () => {
  let input: Buffer;
  let output: OptimisedImage;

  beforeAll(async () => {
    // Smooth content with some texture, like a photo; 4000×3000 as a phone delivers it.
    const noise = randomBytes(400 * 300 * 3);
    input = await sharp(noise, { raw: { width: 400, height: 300, channels: 3 } })
      .resize(4000, 3000, { kernel: "cubic" })
      .jpeg({ quality: 92 })
      .withIccProfile("p3")
      .withXmp(XMP)
      .withExif({
        IFD0: { Copyright: "EXIF-COPYRIGHT-MARKER", Make: "TestCam" },
        IFD3: { GPSLatitudeRef: "N", GPSLatitude: "52/1 31/1 1234/100", GPSLongitudeRef: "E", GPSLongitude: "13/1 24/1 0/1" },
      })
      .toBuffer();
    output = await optimiseImage(input);
  });

  test("the input really carries EXIF GPS, an ICC profile and XMP", async () => {
    const meta = await sharp(input).metadata();
    expect([meta.width, meta.height, meta.format]).toEqual([4000, 3000, "jpeg"]);
    expect(meta.exif).toBeDefined();
    expect(gpsLatitudeOf(meta.exif as Buffer)).toEqual([52, 31, 12.34]);
    expect(meta.hasProfile).toBe(true);
    expect(meta.xmpAsString).toContain("XMP-CREATOR-MARKER");
  });

  test("comes out as a progressive JPEG 1360 px wide, under 400 KB, with no metadata at all", async () => {
    expect(output).toMatchObject({ contentType: "image/jpeg", extension: "jpg", width: MAX_OUTPUT_WIDTH, height: 1020 });
    const meta = await expectClean(output);
    expect(meta.format).toBe("jpeg");
    expect(meta.isProgressive).toBe(true);
    expect(meta.space).toBe("srgb");
    const raw = Buffer.from(output.bytes).toString("latin1");
    for (const marker of ["Exif\0\0", "EXIF-COPYRIGHT-MARKER", "TestCam", "XMP-CREATOR-MARKER", "ICC_PROFILE"]) {
      expect(raw).not.toContain(marker);
    }
  });

  test("is named by the SHA-256 of the published bytes", () => {
    const hash = createHash("sha256").update(output.bytes).digest("hex");
    expect(contentAddressedPathname(output)).toBe(`assets/${hash}.jpg`);
  });
});

describe("format decisions", () => {
  test("a PNG with real transparency stays PNG and keeps its alpha", async () => {
    const input = await sharp({ create: { width: 1600, height: 900, channels: 4, background: { r: 200, g: 30, b: 30, alpha: 1 } } })
      .composite([
        { input: { create: { width: 800, height: 900, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }, left: 0, top: 0, blend: "source" },
      ])
      .png()
      .toBuffer();
    expect((await sharp(input).stats()).isOpaque).toBe(false);
    const output = await optimiseImage(input);
    expect(output).toMatchObject({ contentType: "image/png", extension: "png", width: 1360, height: 765 });
    const meta = await expectClean(output);
    expect(meta.format).toBe("png");
    expect(meta.hasAlpha).toBe(true);
    expect((await sharp(output.bytes).stats()).isOpaque).toBe(false);
  });

  test("a PNG whose alpha channel is fully opaque becomes a JPEG", async () => {
    const input = await sharp({ create: { width: 600, height: 400, channels: 4, background: { r: 10, g: 100, b: 200, alpha: 1 } } })
      .png()
      .toBuffer();
    expect((await sharp(input).metadata()).hasAlpha).toBe(true);
    const output = await optimiseImage(input);
    expect(output).toMatchObject({ contentType: "image/jpeg", width: 600, height: 400 });
    await expectClean(output);
  });

  test("a small image is not enlarged", async () => {
    const input = await sharp({ create: { width: 320, height: 200, channels: 3, background: "#3366aa" } })
      .jpeg()
      .toBuffer();
    const output = await optimiseImage(input);
    expect([output.width, output.height]).toEqual([320, 200]);
  });

  test("EXIF orientation is applied before resizing, then dropped", async () => {
    const input = await sharp({ create: { width: 2000, height: 1000, channels: 3, background: "#884422" } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    expect((await sharp(input).metadata()).orientation).toBe(6);
    const output = await optimiseImage(input);
    // Portrait after rotation, so 1000 px wide already fits and the height stays 2000.
    expect([output.width, output.height]).toEqual([1000, 2000]);
    expect((await expectClean(output)).orientation).toBeUndefined();
  });

  test("WebP input is accepted", async () => {
    const input = await sharp({ create: { width: 2000, height: 1500, channels: 3, background: "#22aa66" } })
      .webp()
      .toBuffer();
    const output = await optimiseImage(input);
    expect(output).toMatchObject({ contentType: "image/jpeg", width: 1360, height: 1020 });
    await expectClean(output);
  });

  test("an animated GIF yields its first frame only", async () => {
    const frame = (background: string) =>
      sharp({ create: { width: 60, height: 40, channels: 3, background } })
        .png()
        .toBuffer();
    const input = await sharp([await frame("#ff0000"), await frame("#00ff00")], { join: { animated: true } })
      .gif()
      .toBuffer();
    expect((await sharp(input).metadata()).pages).toBe(2);
    const output = await optimiseImage(input);
    expect(output).toMatchObject({ contentType: "image/jpeg", width: 60, height: 40 });
    const { dominant } = await sharp(output.bytes).stats();
    expect(dominant.r).toBeGreaterThan(200);
    expect(dominant.g).toBeLessThan(50);
  });
});

describe("size budget", () => {
  test("a large image of pure noise still ends under 400 KB", async () => {
    const input = await sharp(randomBytes(3000 * 2000 * 3), { raw: { width: 3000, height: 2000, channels: 3 } })
      .jpeg({ quality: 95 })
      .toBuffer();
    expect(input.byteLength).toBeGreaterThan(4 * MAX_OUTPUT_BYTES);
    const output = await optimiseImage(input);
    expect(output.contentType).toBe("image/jpeg");
    expect(output.width).toBeLessThanOrEqual(MAX_OUTPUT_WIDTH);
    await expectClean(output);
  });

  test("a large transparent image of pure noise is scaled until it fits as PNG", async () => {
    const input = await sharp(randomBytes(1600 * 1200 * 4), { raw: { width: 1600, height: 1200, channels: 4 } })
      .png({ compressionLevel: 1 })
      .toBuffer();
    const output = await optimiseImage(input);
    expect(output.contentType).toBe("image/png");
    // Noise cannot be compressed, so only fewer pixels bring it under the limit.
    expect(output.width).toBeLessThan(MAX_OUTPUT_WIDTH);
    await expectClean(output);
  });
});

describe("rejected uploads", () => {
  test.each([
    ["a 30000×30000 PNG header", pngBomb(30_000, 30_000)],
    ["a 1×10,000,000 PNG header", pngBomb(1, 10_000_000)],
    ["a 20000×20000 PNG header", pngBomb(20_000, 20_000)],
  ])("%s is refused from its header, before decoding", async (_name, bomb) => {
    expect(bomb.byteLength).toBeLessThan(100);
    const error = await rejection(bomb);
    expect(error.reason).toBe<ImageRejection>("too_many_pixels");
    expect(error.message).toMatch(/px/);
  });

  test("a real image over a lowered pixel limit is refused too", async () => {
    const input = await sharp({ create: { width: 1200, height: 1000, channels: 3, background: "#000" } })
      .png()
      .toBuffer();
    const error = await optimiseImage(input, { maxInputPixels: 1_000_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImageRejectedError);
    expect((error as ImageRejectedError).reason).toBe("too_many_pixels");
  });

  test.each([
    ["a text file", Buffer.from("hello, this is not an image\n".repeat(20))],
    ["an SVG", Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>')],
    ["an empty file", Buffer.alloc(0)],
    ["PNG magic followed by garbage", Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(200)])],
  ])("%s is not an image", async (_name, bytes) => {
    const error = await rejection(bytes);
    expect(error.reason).toBe<ImageRejection>("unsupported_format");
    expect(error.message).toBe("The file is not a JPEG, PNG, WebP or GIF image");
  });

  test("a TIFF is refused although sharp could read it", async () => {
    const tiff = await sharp({ create: { width: 20, height: 20, channels: 3, background: "#fff" } })
      .tiff()
      .toBuffer();
    expect((await rejection(tiff)).reason).toBe<ImageRejection>("unsupported_format");
  });

  test("a truncated JPEG is refused as corrupt", async () => {
    const full = await sharp(randomBytes(200 * 200 * 3), { raw: { width: 200, height: 200, channels: 3 } })
      .jpeg()
      .toBuffer();
    const error = await rejection(full.subarray(0, Math.floor(full.length / 2)));
    expect(error.reason).toBe<ImageRejection>("corrupt");
  });

  test("a file over the upload cap is refused without looking at it", async () => {
    const error = await optimiseImage(Buffer.alloc(2048), { maxInputBytes: 1024 }).catch((e: unknown) => e);
    expect((error as ImageRejectedError).reason).toBe("too_large");
  });
});
