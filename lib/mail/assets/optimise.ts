import type { Metadata, OutputInfo, Sharp, SharpOptions } from "sharp";
import { sha256Hex } from "../../core/secrets";
import { MAX_UPLOAD_BYTES } from "./upload-signature";
import { loadSharp } from "../../core/sharp";

/**
 * Turns an uploaded image into what the spec promises for assets (Limits): at most 1360 px wide, JPEG or
 * PNG, under 400 KB, without metadata. Everything here runs on untrusted bytes, so the order matters:
 * sniff the container ourselves, read only the header, check the dimensions, and only then decode.
 */

export const MAX_OUTPUT_WIDTH = 1360;
/** "Under 400 KB" holds whether a KB is 1000 or 1024 bytes. */
export const MAX_OUTPUT_BYTES = 400_000;
/** Decompression-bomb guard: a 50 MP image is already a 200 MB RGBA bitmap. */
const MAX_INPUT_PIXELS = 50_000_000;
/** Also per side: a 1 × 10,000,000 strip is small in pixels but no image anyone means to put in an e-mail. */
const MAX_INPUT_SIDE = 16_384;

/** Tried in order until the JPEG fits; below 40 artefacts show, so smaller dimensions come next. */
const JPEG_QUALITY_STEPS = [82, 72, 62, 52, 40] as const;
/**
 * A lossy result this far above the limit cannot be rescued by the middle steps (82 to 40 shrinks a JPEG
 * about 2.5×), so we jump to the most compact step and on to scaling, sparing the encoder runs.
 */
const HOPELESS_RATIO = 2.5;
/** Scaling stops here: an image that does not fit even this small is rejected rather than ruined. */
const MIN_SCALED_WIDTH = 100;
const MAX_SCALING_ROUNDS = 8;

export type ImageRejection = "unsupported_format" | "too_large" | "too_many_pixels" | "corrupt" | "cannot_fit";

/** The upload is not an image we can publish; the route answers 422 with `message`. */
export class ImageRejectedError extends Error {
  readonly reason: ImageRejection;
  constructor(reason: ImageRejection, message: string) {
    super(message);
    this.name = "ImageRejectedError";
    this.reason = reason;
  }
}

export type OptimisedImage = {
  bytes: Uint8Array;
  contentType: "image/jpeg" | "image/png";
  width: number;
  height: number;
  extension: "jpg" | "png";
};

export type OptimiseOptions = {
  maxWidth?: number;
  maxBytes?: number;
  maxInputBytes?: number;
  maxInputPixels?: number;
  maxInputSide?: number;
};

type InputFormat = "jpeg" | "png" | "webp" | "gif";

/**
 * Magic numbers of the four accepted containers. Checked before sharp sees the bytes, so none of libvips'
 * other loaders (SVG, TIFF, HEIF, JPEG 2000, …) ever parses customer input.
 */
function sniffFormat(bytes: Uint8Array): InputFormat | null {
  const ascii = (start: number, end: number) => String.fromCharCode(...bytes.subarray(start, end));
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "jpeg";
  if (bytes.length >= 8 && [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((b, i) => bytes[i] === b)) return "png";
  if (bytes.length >= 6 && (ascii(0, 6) === "GIF87a" || ascii(0, 6) === "GIF89a")) return "gif";
  if (bytes.length >= 12 && ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "webp";
  return null;
}

const NOT_AN_IMAGE = "The file is not a JPEG, PNG, WebP or GIF image";

type Encoding = {
  contentType: OptimisedImage["contentType"];
  /** Only a lossy result predicts the next steps; lossless PNG is always followed by the palette. */
  lossy: boolean;
  apply: (pipeline: Sharp) => Sharp;
};

const jpegSteps: Encoding[] = JPEG_QUALITY_STEPS.map((quality) => ({
  contentType: "image/jpeg",
  lossy: true,
  apply: (pipeline) => pipeline.removeAlpha().jpeg({ quality, mozjpeg: true, progressive: true }),
}));

/**
 * Lossless first (logos and icons, the usual transparent images, fit easily), then a 256-colour palette.
 * Fewer colours is not a useful step with sharp: `colours` only picks the PNG bit depth, so 32 to 255 colours
 * all quantise to 256 and the next real step, 16 colours, posterises; scaling down looks better.
 * Effort 4 keeps quantisation of a noisy 1360 px image near a second (the default 7 takes over ten).
 */
const pngSteps: Encoding[] = [
  { contentType: "image/png", lossy: false, apply: (pipeline) => pipeline.png({ compressionLevel: 9, adaptiveFiltering: true }) },
  { contentType: "image/png", lossy: true, apply: (pipeline) => pipeline.png({ palette: true, colours: 256, effort: 4, compressionLevel: 9 }) },
];

export async function optimiseImage(bytes: Uint8Array, options: OptimiseOptions = {}): Promise<OptimisedImage> {
  const sharp = await loadSharp();
  const maxWidth = options.maxWidth ?? MAX_OUTPUT_WIDTH;
  const maxBytes = options.maxBytes ?? MAX_OUTPUT_BYTES;
  const maxInputBytes = options.maxInputBytes ?? MAX_UPLOAD_BYTES;
  const maxInputPixels = options.maxInputPixels ?? MAX_INPUT_PIXELS;
  const maxInputSide = options.maxInputSide ?? MAX_INPUT_SIDE;

  if (bytes.byteLength > maxInputBytes) {
    throw new ImageRejectedError("too_large", `The file is ${bytes.byteLength} bytes; the limit is ${maxInputBytes} bytes`);
  }
  const format = sniffFormat(bytes);
  if (!format) throw new ImageRejectedError("unsupported_format", NOT_AN_IMAGE);

  // `pages: 1` everywhere: an animated GIF or WebP contributes its first frame only. `failOn: "truncated"`
  // rejects a cut-off upload instead of publishing a half-grey picture, yet tolerates the harmless warnings
  // many cameras' JPEGs produce.
  const inputOptions: SharpOptions = { failOn: "truncated", pages: 1 };

  // Header only, nothing decoded yet: the pixel limit is ours to check right after, with a clear message.
  let header: Metadata;
  try {
    header = await sharp(bytes, { ...inputOptions, limitInputPixels: false }).metadata();
  } catch {
    throw new ImageRejectedError("unsupported_format", NOT_AN_IMAGE);
  }
  if (header.format !== format) throw new ImageRejectedError("unsupported_format", NOT_AN_IMAGE);
  const { width, height } = header;
  if (Math.max(width, height) > maxInputSide || width * height > maxInputPixels) {
    throw new ImageRejectedError(
      "too_many_pixels",
      `The image is ${width}×${height} px; at most ${maxInputSide} px per side and ${maxInputPixels / 1_000_000} megapixels are accepted`,
    );
  }

  // Decoded once into an sRGB bitmap at the final size; every encoding attempt below starts from it.
  // libvips also enforces `limitInputPixels` itself, in case a loader sees other dimensions than the header.
  let decoded: { data: Buffer; info: OutputInfo };
  try {
    decoded = await sharp(bytes, { ...inputOptions, limitInputPixels: maxInputPixels })
      .autoOrient()
      .resize({ width: maxWidth, withoutEnlargement: true })
      .toColourspace("srgb")
      .raw({ depth: "uchar" })
      .toBuffer({ resolveWithObject: true });
  } catch {
    throw new ImageRejectedError("corrupt", "The image data is damaged or truncated and cannot be decoded");
  }
  const { data, info } = decoded;
  const raw = { width: info.width, height: info.height, channels: info.channels };

  // An alpha channel alone is not transparency: many PNGs and every decoded GIF carry one that is fully
  // opaque, and those become (much smaller) JPEGs.
  const transparent = info.hasAlpha && !(await sharp(data, { raw }).stats()).isOpaque;
  const steps = transparent ? pngSteps : jpegSteps;
  const render = (targetWidth: number) => {
    const pipeline = sharp(data, { raw });
    return targetWidth < info.width ? pipeline.resize({ width: targetWidth }) : pipeline;
  };

  let index = 0;
  let attempt = await encode(render(info.width), steps[0]);
  while (attempt.bytes.byteLength >= maxBytes && index < steps.length - 1) {
    // Far above the limit, the middle steps cannot help: jump to the most compact one, whose size also
    // tells the scaling below where to aim.
    const hopeless = steps[index].lossy && attempt.bytes.byteLength > maxBytes * HOPELESS_RATIO;
    index = hopeless ? steps.length - 1 : index + 1;
    attempt = await encode(render(info.width), steps[index]);
  }
  if (attempt.bytes.byteLength < maxBytes) return attempt;

  // Last resort, at the most compact encoding: smaller dimensions. Encoded size grows roughly with the
  // pixel count, so each round aims straight at the limit with a little margin.
  let targetWidth = info.width;
  for (let round = 0; round < MAX_SCALING_ROUNDS; round += 1) {
    const ratio = Math.min(0.9, 0.95 * Math.sqrt(maxBytes / attempt.bytes.byteLength));
    targetWidth = Math.floor(targetWidth * ratio);
    if (targetWidth < MIN_SCALED_WIDTH) break;
    attempt = await encode(render(targetWidth), steps[index]);
    if (attempt.bytes.byteLength < maxBytes) return attempt;
  }
  throw new ImageRejectedError("cannot_fit", `The image cannot be reduced below ${maxBytes} bytes at a usable size`);
}

async function encode(pipeline: Sharp, step: Encoding): Promise<OptimisedImage> {
  // No withMetadata/keep*: sharp writes neither EXIF, XMP, IPTC nor an ICC profile, and the pixels are sRGB.
  const { data, info } = await step.apply(pipeline).toBuffer({ resolveWithObject: true });
  return {
    bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
    contentType: step.contentType,
    width: info.width,
    height: info.height,
    extension: step.contentType === "image/png" ? "png" : "jpg",
  };
}

/** `assets/<sha256 of the published bytes>.<ext>`: identical images share one immutable URL. */
export function contentAddressedPathname(image: Pick<OptimisedImage, "bytes" | "extension">): string {
  return `assets/${sha256Hex(image.bytes)}.${image.extension}`;
}
