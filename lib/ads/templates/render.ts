import { ValidationError, type FieldProblem } from "../../core/errors";
import { assertOutboundUrl, OutboundError } from "../../core/outbound/safe-fetch";
import { FILES_PATH } from "../../core/public-files";
import { fetchImage } from "../media/images";
import type { AdsDeps } from "../deps";
import { CREATIVE_RATIOS, type CreativeRatio } from "../platform/placement-creative";
import type { Element } from "./draw";
import { textWidth } from "./fonts";
import { drawOffThread } from "./render-pool";
import { RATIO_SIZES, type HighlightStyle, type LayoutNode, type LayoutStyle, type Layouts, type TemplateParam } from "./layout";
import { fittingFontSize, segmentsOf, visibleText, type Segment } from "./text";
// sharp is loaded on first use: only the Vercel functions that process images ship libvips (vercel.json, lib/commands/build.ts).
import { loadSharp } from "../../core/sharp";

/*
 * The rendering engine: a template's layout per ratio and a customer's values → satori (layout to SVG) →
 * resvg (SVG to pixels) → sharp (JPEG, sRGB). Values are checked first, each problem a 422 naming the
 * parameter (`params.<name>`); text that would overflow its box is shrunk down to the node's minimum
 * size and refused past it, never cut off.
 */

export type TemplateDefinition = { params: TemplateParam[]; layouts: Layouts; highlight: HighlightStyle | null };

/** Values after checking: text and colours as given, images decoded into data URIs. */
export type ResolvedValues = { text: Map<string, Segment[]>; color: Map<string, string>; image: Map<string, string> };

const COLOR = /^#[0-9a-fA-F]{6}$/;
const DEFAULT_FONT_SIZE = 48;
const DEFAULT_LINE_HEIGHT = 1.2;
/** Images inside a creative never need more than twice the canvas. */
const MAX_IMAGE_EDGE = 2160;

function problem(name: string, message: string): FieldProblem {
  return { path: `params.${name}`, message };
}

export type CheckedValues = { text: Map<string, Segment[]>; color: Map<string, string>; imageUrls: Map<string, string>; videoUrls: Map<string, string> };

/**
 * How image and video values are checked where they are stored before anything fetches them (the
 * operator's preview values, a video render's job): as the SSRF-safe client will check them (https, no
 * credentials, no internal host or address literal: no `file:`, `javascript:`, loopback, link-local or
 * metadata address), without DNS. A video may also be one of our own published files (read from the store,
 * never fetched: the embedded Demo's background under `PUBLIC_BASE_URL/files/`).
 */
export type ValueUrlPolicy = { allowLoopback: boolean; ownFilesPrefix: string };

export function valueUrlPolicy(deps: Pick<AdsDeps, "allowLoopbackOutbound" | "publicBaseUrl">): ValueUrlPolicy {
  return { allowLoopback: deps.allowLoopbackOutbound, ownFilesPrefix: `${deps.publicBaseUrl}${FILES_PATH}/` };
}

function urlProblem(value: string, kind: "image" | "video", policy: ValueUrlPolicy | undefined): string | null {
  const wanted = kind === "image" ? "An image is an https URL." : "A video is an https URL.";
  if (!URL.canParse(value)) return wanted;
  if (!policy || (kind === "video" && value.startsWith(policy.ownFilesPrefix))) return null;
  try {
    assertOutboundUrl(value, { allowLoopbackForTests: policy.allowLoopback });
    return null;
  } catch (error) {
    if (error instanceof OutboundError) return `${wanted} ${error.message}`;
    throw error;
  }
}

/**
 * Checks values against the template's parameters without fetching anything: unknown names, required ones
 * missing, text length (visible characters, highlight brackets not counted where they apply), colours,
 * image and video URLs (with `urls`, as the fetch will check them). `useExamples` fills what is missing
 * with each parameter's example (previews).
 */
export function checkValues(
  template: TemplateDefinition,
  input: Record<string, unknown>,
  options: { useExamples: boolean; urls?: ValueUrlPolicy },
): CheckedValues {
  const problems: FieldProblem[] = [];
  const byName = new Map(template.params.map((p) => [p.name, p]));
  for (const name of Object.keys(input)) if (!byName.has(name)) problems.push(problem(name, "Not a parameter of this template."));
  const checked: CheckedValues = { text: new Map(), color: new Map(), imageUrls: new Map(), videoUrls: new Map() };
  for (const param of template.params) {
    let value = input[param.name];
    if ((value === undefined || value === null || value === "") && options.useExamples) value = param.example ?? undefined;
    if (value === undefined || value === null || value === "") {
      // Previews never draw the background video, so they need none.
      if (param.required && !(options.useExamples && param.type === "video")) problems.push(problem(param.name, "Required."));
      continue;
    }
    if (typeof value !== "string") {
      problems.push(problem(param.name, "Must be a string."));
      continue;
    }
    switch (param.type) {
      case "text": {
        const segments = segmentsOf(value, param.supports_highlight);
        const length = [...visibleText(segments)].length;
        if (param.min_chars !== null && length < param.min_chars) problems.push(problem(param.name, `At least ${param.min_chars} characters (has ${length}).`));
        else if (param.max_chars !== null && length > param.max_chars)
          problems.push(problem(param.name, `At most ${param.max_chars} characters (has ${length}).`));
        else checked.text.set(param.name, segments);
        break;
      }
      case "color":
        if (COLOR.test(value)) checked.color.set(param.name, value.toLowerCase());
        else problems.push(problem(param.name, "A colour is #rrggbb."));
        break;
      case "image":
      case "video": {
        // Fetched through the SSRF-safe client (a video by the render job), which checks again with DNS.
        const wrong = urlProblem(value, param.type, options.urls);
        if (wrong) problems.push(problem(param.name, wrong));
        else (param.type === "image" ? checked.imageUrls : checked.videoUrls).set(param.name, value);
        break;
      }
    }
  }
  if (problems.length > 0) throw new ValidationError("The template values are invalid; see details.", problems);
  return checked;
}

/**
 * `checkValues`, then each image fetched by the SSRF-safe client (JPG/PNG/WebP by content, at most 30 MB,
 * 422 naming the parameter otherwise), decoded with sharp's pixel limit and kept as a data URI.
 */
export async function resolveValues(
  deps: Pick<AdsDeps, "safeFetch">,
  template: TemplateDefinition,
  input: Record<string, unknown>,
  options: { useExamples: boolean },
): Promise<ResolvedValues> {
  const checked = checkValues(template, input, options);
  const resolved: ResolvedValues = { text: checked.text, color: checked.color, image: new Map() };
  await Promise.all(
    [...checked.imageUrls].map(async ([name, url]) => {
      const image = await fetchImage(deps, url, { field: `params.${name}`, anyRatio: true });
      const sharp = await loadSharp();
      const meta = await sharp(image.bytes, { limitInputPixels: 100_000_000 }).metadata();
      const decoded = sharp(image.bytes, { limitInputPixels: 100_000_000 })
        .rotate()
        .resize({ width: MAX_IMAGE_EDGE, height: MAX_IMAGE_EDGE, fit: "inside", withoutEnlargement: true });
      const output = meta.hasAlpha ? await decoded.png().toBuffer() : await decoded.jpeg({ quality: 92 }).toBuffer();
      resolved.image.set(name, `data:image/${meta.hasAlpha ? "png" : "jpeg"};base64,${output.toString("base64")}`);
    }),
  );
  return resolved;
}

export type { Element } from "./draw";

function colorOf(value: LayoutStyle["color"], values: ResolvedValues, params: Map<string, TemplateParam>): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "string") return value;
  return values.color.get(value.param) ?? params.get(value.param)?.example ?? undefined;
}

function styleOf(style: LayoutStyle | undefined, values: ResolvedValues, params: Map<string, TemplateParam>): Record<string, unknown> {
  const out: Record<string, unknown> = { display: "flex", boxSizing: "border-box" };
  for (const [key, value] of Object.entries(style ?? {})) {
    if (key === "backgroundColor" || key === "color" || key === "borderColor") {
      const color = colorOf(value as LayoutStyle["color"], values, params);
      if (color) out[key] = color;
    } else if (key === "borderWidth") {
      out.borderWidth = value;
      out.borderStyle = "solid";
    } else out[key] = value;
  }
  return out;
}

class FitError extends Error {
  constructor(readonly param: string | null) {
    super("text does not fit");
  }
}

function textElement(
  node: Extract<LayoutNode, { type: "text" }>,
  template: TemplateDefinition,
  values: ResolvedValues,
  params: Map<string, TemplateParam>,
): Element | null {
  const segments = node.param !== undefined ? values.text.get(node.param) : node.text !== undefined ? [{ text: node.text, highlight: false }] : undefined;
  if (!segments) return null;
  const style = styleOf(node.style, values, params);
  const fontSize = node.style?.fontSize ?? DEFAULT_FONT_SIZE;
  const weight = node.style?.fontWeight ?? 400;
  const letterSpacing = node.style?.letterSpacing ?? 0;
  const lineHeight = node.style?.lineHeight ?? DEFAULT_LINE_HEIGHT;
  const shown = node.style?.textTransform === "uppercase" ? segments.map((s) => ({ ...s, text: s.text.toUpperCase() })) : segments;
  let size = fontSize;
  if (typeof node.style?.width === "number") {
    const box = {
      width: node.style.width - (node.style.paddingLeft ?? node.style.padding ?? 0) - (node.style.paddingRight ?? node.style.padding ?? 0),
      height: typeof node.style.height === "number" ? node.style.height : null,
      maxLines: node.max_lines ?? null,
      lineHeight,
      weight,
      letterSpacing,
    };
    const fitted = fittingFontSize(shown, fontSize, node.min_font_size ?? fontSize, box);
    if (fitted === null) throw new FitError(node.param ?? null);
    size = fitted;
  }
  style.fontSize = size;
  style.fontFamily = "Inter";
  style.fontWeight = weight;
  style.lineHeight = lineHeight;
  const param = node.param !== undefined ? params.get(node.param) : undefined;
  if (!param?.supports_highlight) return { type: "div", props: { style, children: visibleText(shown) } };
  // Text that may carry highlights flows word by word, so a highlight sits on its word wherever the line
  // breaks; the highlight's padding reaches into the spaces around the word (negative margins), so a
  // highlight changes the pixels of its word's area and nothing else.
  const space = textWidth(" ", size, weight, letterSpacing);
  const align = node.style?.textAlign;
  style.flexWrap = "wrap";
  style.flexDirection = "row";
  style.alignItems = "center";
  style.alignContent = "flex-start";
  style.justifyContent = align === "center" ? "center" : align === "right" ? "flex-end" : "flex-start";
  // Words as typed: a highlight's boundary inside a word ("[[season]],") splits it without a space.
  const words: { word: string; highlight: boolean; spaceBefore: boolean }[] = [];
  let pendingSpace = false;
  for (const segment of shown) {
    for (const part of segment.text.split(/(\s+)/)) {
      if (part === "") continue;
      if (/^\s+$/.test(part)) pendingSpace = true;
      else {
        words.push({ word: part, highlight: segment.highlight, spaceBefore: pendingSpace && words.length > 0 });
        pendingSpace = false;
      }
    }
  }
  const highlight = template.highlight;
  const children = words.map(({ word, highlight: marked }, i) => {
    const gap = words[i + 1]?.spaceBefore ? space : 0;
    return {
      type: "span",
      props: {
        style: {
          marginRight: gap,
          ...(marked && highlight
            ? {
                backgroundColor: colorOf(highlight.backgroundColor, values, params),
                color: colorOf(highlight.color, values, params) ?? style.color,
                paddingLeft: highlight.paddingX,
                paddingRight: highlight.paddingX,
                marginLeft: -highlight.paddingX,
                marginRight: gap - highlight.paddingX,
              }
            : {}),
        },
        children: word,
      },
    };
  });
  return { type: "div", props: { style, children } };
}

function elementOf(node: LayoutNode, template: TemplateDefinition, values: ResolvedValues, params: Map<string, TemplateParam>): Element | null {
  switch (node.type) {
    case "box":
      return {
        type: "div",
        props: {
          style: styleOf(node.style, values, params),
          children: (node.children ?? []).map((child) => elementOf(child, template, values, params)).filter((e): e is Element => e !== null),
        },
      };
    case "image": {
      const src = values.image.get(node.param);
      if (!src) return null;
      const style = styleOf(node.style, values, params);
      return {
        type: "img",
        props: { src, width: node.style?.width, height: node.style?.height, style: { ...style, objectFit: node.style?.objectFit ?? "cover" } },
      };
    }
    case "text":
      return textElement(node, template, values, params);
  }
}

/**
 * The satori element tree of one ratio, text sizes fitted; a text that does not fit even at its minimum
 * is a 422 naming its parameter.
 */
export function layoutElement(template: TemplateDefinition, values: ResolvedValues, ratio: CreativeRatio): Element {
  const { width, height } = RATIO_SIZES[ratio];
  const params = new Map(template.params.map((p) => [p.name, p]));
  let root: Element | null;
  try {
    root = elementOf(template.layouts[ratio], template, values, params);
  } catch (error) {
    if (error instanceof FitError) {
      const path = error.param ? `params.${error.param}` : "template";
      throw new ValidationError("A text does not fit its box even at the smallest size; shorten it.", [
        { path, message: `Too long for its box in the ${ratio} format, even at the layout's smallest font size.` },
      ]);
    }
    throw error;
  }
  if (!root) throw new Error("a layout root rendered nothing");
  (root.props.style as Record<string, unknown>).width = width;
  (root.props.style as Record<string, unknown>).height = height;
  return root;
}

/**
 * A video template's layout as a PNG that keeps its transparency: the overlay ffmpeg puts on the
 * background video (`video.ts`).
 */
export function drawOverlay(root: Element, ratio: CreativeRatio): Promise<Buffer> {
  return drawOffThread({ root, ratio, output: "png" });
}

/** An element tree to JPEG (sRGB, `backdrop` under transparency), on the render pool. */
function drawElement(root: Element, ratio: CreativeRatio, backdrop = "#ffffff"): Promise<Buffer> {
  return drawOffThread({ root, ratio, output: "jpeg", backdrop });
}

/** One ratio to JPEG. */
export async function renderRatio(template: TemplateDefinition, values: ResolvedValues, ratio: CreativeRatio, backdrop?: string): Promise<Buffer> {
  return drawElement(layoutElement(template, values, ratio), ratio, backdrop);
}

/** The three formats. Text fitting is checked for all of them before any is drawn. */
export async function renderTemplate(template: TemplateDefinition, values: ResolvedValues): Promise<Record<CreativeRatio, Buffer>> {
  const elements = CREATIVE_RATIOS.map((ratio) => layoutElement(template, values, ratio));
  const rendered = await Promise.all(CREATIVE_RATIOS.map((ratio, i) => drawElement(elements[i] as Element, ratio)));
  return Object.fromEntries(CREATIVE_RATIOS.map((ratio, i) => [ratio, rendered[i]])) as Record<CreativeRatio, Buffer>;
}
