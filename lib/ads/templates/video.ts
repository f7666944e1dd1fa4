import { spawn } from "node:child_process";
import { createReadStream, createWriteStream, existsSync, statSync } from "node:fs";
import { chmod, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { createBrotliDecompress } from "node:zlib";
import type { CreativeRatio } from "../platform/placement-creative";
import { RATIO_SIZES } from "./layout";

/*
 * Video templates: the layout, drawn as a transparent overlay (`drawOverlay`), composed onto the
 * customer's background video once per ratio by ffmpeg (shipped as an npm package, no system binary).
 * The background is scaled to cover the format and cropped to it; the result is H.264 + AAC in MP4 with
 * the index at the front (`+faststart`), which the platform ingests fastest.
 */

/** Longest output; the platform's in-feed limit is far above it, a render job's time is not. */
const MAX_VIDEO_SECONDS = 60;
/** Composition of one ratio may take this long before it is given up. */
const FFMPEG_TIMEOUT_MS = 5 * 60_000;

export class VideoCompositionError extends Error {}

/**
 * The functions' bundle ships the binary brotli-compressed (`dist/ffmpeg/ffmpeg.br`, 68 → 19 MB; lib/commands/build.ts):
 * the video function unpacks it once per instance into the temp directory (the one writable place of a
 * function), at its first render, the way serverless Chromium builds ship their browser.
 */
const COMPRESSED_FFMPEG = process.env.FUNCTION_BUNDLE === "1" ? fileURLToPath(new URL("../ffmpeg/ffmpeg.br", import.meta.url)) : null;
let unpacked: Promise<string> | null = null;

export async function unpackFfmpeg(compressed: string): Promise<string> {
  // Named after the compressed file's size, so an instance never runs another build's binary.
  const target = join(tmpdir(), `mail-ads-ffmpeg-${statSync(compressed).size}`);
  if (existsSync(target)) return target;
  const partial = `${target}.${process.pid}.partial`;
  await pipeline(createReadStream(compressed), createBrotliDecompress(), createWriteStream(partial, { mode: 0o755 }));
  await chmod(partial, 0o755);
  // Atomic: a second instance sharing the directory sees either nothing or the whole binary.
  await rename(partial, target);
  return target;
}

/**
 * The shipped binary, loaded on first use: it is 66 MB, so only the Vercel function that runs render jobs
 * (api/video) ships it (see vercel.json), and the others must not load it when they start.
 */
async function ffmpegPath(): Promise<string> {
  try {
    if (COMPRESSED_FFMPEG && existsSync(COMPRESSED_FFMPEG)) {
      unpacked ??= unpackFfmpeg(COMPRESSED_FFMPEG).catch((error: unknown) => {
        unpacked = null;
        throw error;
      });
      return await unpacked;
    }
    const { default: ffmpeg } = await import("@ffmpeg-installer/ffmpeg");
    return ffmpeg.path;
  } catch (error) {
    throw new VideoCompositionError(`ffmpeg is not available here: ${String(error)}`);
  }
}

/** Runs the shipped ffmpeg; rejects with the tail of its error output. */
async function run(args: string[]): Promise<void> {
  const binary = await ffmpegPath();
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ["ignore", "ignore", "pipe"] });
    let errors = "";
    child.stderr.on("data", (chunk: Buffer) => {
      errors = (errors + chunk.toString("utf8")).slice(-4000);
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), FFMPEG_TIMEOUT_MS);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(new VideoCompositionError(`ffmpeg could not start: ${error.message}`));
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new VideoCompositionError(`ffmpeg failed (${code ?? signal}): ${errors.trim().split("\n").slice(-3).join(" ")}`));
    });
  });
}

/**
 * The background video (bytes of any container ffmpeg reads) with the overlay PNG on top, in the ratio's
 * size, at most `MAX_VIDEO_SECONDS`. Audio is kept when there is some (re-encoded to AAC).
 */
export async function composeVideo(background: Uint8Array, overlayPng: Uint8Array, ratio: CreativeRatio): Promise<Buffer> {
  const { width, height } = RATIO_SIZES[ratio];
  const dir = await mkdtemp(join(tmpdir(), "ad-video-"));
  try {
    const input = join(dir, "background");
    const overlay = join(dir, "overlay.png");
    const output = join(dir, "out.mp4");
    await Promise.all([writeFile(input, background), writeFile(overlay, overlayPng)]);
    const filter = `[0:v]scale=${width}:${height}:force_original_aspect_ratio=increase,crop=${width}:${height},setsar=1[bg];[bg][1:v]overlay=0:0,format=yuv420p[v]`;
    await run([
      "-hide_banner",
      "-loglevel",
      "error",
      "-y",
      "-i",
      input,
      "-i",
      overlay,
      "-filter_complex",
      filter,
      "-map",
      "[v]",
      "-map",
      "0:a?",
      "-t",
      String(MAX_VIDEO_SECONDS),
      "-c:v",
      "libx264",
      "-preset",
      "veryfast",
      "-crf",
      "23",
      "-c:a",
      "aac",
      "-b:a",
      "128k",
      "-movflags",
      "+faststart",
      output,
    ]);
    return await readFile(output);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A short background video made by ffmpeg alone (an animated texture in blue with a tone, 3 s: a render of
 * it takes seconds even on a busy machine): the Demo's sample, so a video template can be rendered right after start without a video server.
 */
export async function sampleBackgroundVideo(): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), "ad-video-sample-"));
  try {
    const output = join(dir, "sample.mp4");
    const texture =
      "life=size=180x320:rate=12:ratio=0.3:death_color=#1d4ed8:life_color=#60a5fa:mold=10:mold_color=#0f172a,scale=360:640:flags=neighbor,boxblur=2,fps=25";
    await run([
      "-hide_banner",
      "-loglevel",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      texture,
      "-f",
      "lavfi",
      "-i",
      "sine=frequency=220:duration=3",
      "-t",
      "3",
      "-c:v",
      "libx264",
      "-preset",
      "veryfast",
      "-crf",
      "30",
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "aac",
      "-b:a",
      "64k",
      "-shortest",
      "-movflags",
      "+faststart",
      output,
    ]);
    return await readFile(output);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
