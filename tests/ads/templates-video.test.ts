import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ffmpeg from "@ffmpeg-installer/ffmpeg";
import sharp from "sharp";
import { afterAll, expect, test } from "vitest";
import type { Layouts } from "../../lib/ads/templates/layout";
import { checkValues, drawOverlay, layoutElement, type ResolvedValues, type TemplateDefinition } from "../../lib/ads/templates/render";
import { composeVideo, VideoCompositionError } from "../../lib/ads/templates/video";

/**
 * The video half of templates on its real parts: the shipped ffmpeg composes a transparent overlay drawn
 * by the template engine onto a background video (made here by ffmpeg's own test source, with sound).
 */

const dir = mkdtempSync(join(tmpdir(), "video-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function ffmpegRun(args: string[]): { status: number | null; stderr: string } {
  const result = spawnSync(ffmpeg.path, ["-hide_banner", ...args], { encoding: "utf8" });
  return { status: result.status, stderr: result.stderr };
}

const box = (height: number) => ({
  type: "box" as const,
  style: { width: 1080, height, flexDirection: "column" as const, justifyContent: "flex-end" as const, padding: 80 },
  children: [
    { type: "text" as const, param: "headline", style: { fontSize: 96, fontWeight: 800 as const, color: "#ffffff", backgroundColor: "#e11d48", padding: 24 } },
  ],
});
const template: TemplateDefinition = {
  params: [
    {
      name: "headline",
      type: "text",
      required: true,
      label: "Headline",
      description: "",
      min_chars: null,
      max_chars: 40,
      example: "Now in stores",
      supports_highlight: false,
    },
  ],
  layouts: { "1:1": box(1080), "4:5": box(1350), "9:16": box(1920) } as Layouts,
  highlight: null,
};

test("a 640×360 video with sound becomes a 1080×1920 H.264 + AAC MP4 with the overlay on top", async () => {
  const background = join(dir, "bg.mp4");
  const made = ffmpegRun([
    "-loglevel",
    "error",
    "-y",
    "-f",
    "lavfi",
    "-i",
    "testsrc=size=640x360:rate=25:duration=2",
    "-f",
    "lavfi",
    "-i",
    "sine=frequency=440:duration=2",
    "-c:v",
    "libx264",
    "-pix_fmt",
    "yuv420p",
    "-c:a",
    "aac",
    "-shortest",
    background,
  ]);
  expect(made.status, made.stderr).toBe(0);

  const { text, color } = checkValues(template, { headline: "Now in stores" }, { useExamples: false });
  const values: ResolvedValues = { text, color, image: new Map() };
  const overlay = await drawOverlay(layoutElement(template, values, "9:16"), "9:16");
  const meta = await sharp(overlay).metadata();
  expect(meta).toMatchObject({ format: "png", width: 1080, height: 1920, hasAlpha: true });
  // Transparent where the layout draws nothing.
  const corner = await sharp(overlay).extract({ left: 10, top: 10, width: 1, height: 1 }).raw().toBuffer();
  expect(corner[3]).toBe(0);

  const video = await composeVideo(readFileSync(background), overlay, "9:16");
  const output = join(dir, "out.mp4");
  writeFileSync(output, video);
  const probe = ffmpegRun(["-i", output]);
  expect(probe.stderr).toMatch(/Video: h264 .*1080x1920/);
  expect(probe.stderr).toMatch(/Audio: aac/);

  // A frame from the middle: the overlay's red box is there at its place, the test picture around it.
  const frame = join(dir, "frame.png");
  expect(ffmpegRun(["-loglevel", "error", "-y", "-ss", "1", "-i", output, "-frames:v", "1", frame]).status).toBe(0);
  const redBox = await sharp(frame)
    .extract({ left: 100, top: 1920 - 80 - 40, width: 1, height: 1 })
    .raw()
    .toBuffer();
  expect(redBox[0]).toBeGreaterThan(180);
  expect(redBox[1]).toBeLessThan(80);
}, 120_000);

test("a file that is not a video is refused with ffmpeg's reason", async () => {
  const overlay = await sharp({ create: { width: 1080, height: 1080, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .png()
    .toBuffer();
  const error = await composeVideo(Buffer.from("not a video"), overlay, "1:1").catch((e: unknown) => e);
  expect(error).toBeInstanceOf(VideoCompositionError);
  expect((error as Error).message).toMatch(/ffmpeg failed/);
});
