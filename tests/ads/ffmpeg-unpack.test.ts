import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync } from "node:zlib";
import { afterAll, expect, test } from "vitest";
import { unpackFfmpeg } from "../../lib/ads/templates/video";

/*
 * The video function ships ffmpeg brotli-compressed (dist/ffmpeg/ffmpeg.br, lib/commands/build.ts) and unpacks it into
 * the temp directory at its first render. Here with a small executable instead of the 68 MB binary.
 */

const dir = mkdtempSync(join(tmpdir(), "ffmpeg-unpack-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("the compressed binary is unpacked once into the temp directory, executable, and reused", async () => {
  const compressed = join(dir, `ffmpeg-${process.pid}-${Date.now()}.br`);
  writeFileSync(compressed, brotliCompressSync(Buffer.from(`#!/bin/sh\necho "ffmpeg stand-in $1"\n`)));
  const first = await unpackFfmpeg(compressed);
  try {
    expect(first.startsWith(tmpdir())).toBe(true);
    expect(statSync(first).mode & 0o111).not.toBe(0);
    expect(execFileSync(first, ["-version"], { encoding: "utf8" })).toBe("ffmpeg stand-in -version\n");
    const unpackedAt = statSync(first).mtimeMs;
    // The second call finds it (no second unpacking, no partial file left behind).
    expect(await unpackFfmpeg(compressed)).toBe(first);
    expect(statSync(first).mtimeMs).toBe(unpackedAt);
  } finally {
    rmSync(first, { force: true });
  }
});
