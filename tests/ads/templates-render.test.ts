import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pixelmatch from "pixelmatch";
import sharp from "sharp";
import { describe, expect, test } from "vitest";
import { ValidationError } from "../../lib/core/errors";
import { createSafeFetch } from "../../lib/core/outbound/safe-fetch";
import { DEMO_TEMPLATES, QUOTE_CARD, SALE_BANNER } from "../../lib/ads/templates/demo";
import { layoutProblems, type Layouts } from "../../lib/ads/templates/layout";
import { draw } from "../../lib/ads/templates/draw";
import { layoutElement, renderRatio, renderTemplate, resolveValues } from "../../lib/ads/templates/render";
import { renderWorkerCount } from "../../lib/ads/templates/render-pool";
import { segmentsOf, visibleText } from "../../lib/ads/templates/text";

/**
 * The rendering engine on its real parts (satori, resvg, sharp, the shipped fonts). Golden images: each
 * demo template with its example values is compared with a reference image under tests/ads/golden within a
 * small tolerance (anti-aliasing may differ between builds of resvg); `UPDATE_GOLDEN=1` rewrites them.
 */

const problemsOf = (error: unknown) => ((error as ValidationError).details ?? []) as { path: string; message: string }[];

const GOLDEN = join(import.meta.dirname, "golden");
const deps = { safeFetch: createSafeFetch({ allowLoopbackForTests: false }) };

async function rgba(jpeg: Buffer) {
  const { data, info } = await sharp(jpeg).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

async function diff(a: Buffer, b: Buffer) {
  const [x, y] = await Promise.all([rgba(a), rgba(b)]);
  expect([x.width, x.height]).toEqual([y.width, y.height]);
  const out = Buffer.alloc(x.data.length);
  const count = pixelmatch(x.data, y.data, out, x.width, x.height, { threshold: 0.1 });
  // The bounding box of the differing pixels (pixelmatch paints them red in `out`).
  let [minX, minY, maxX, maxY] = [Infinity, Infinity, -1, -1];
  for (let i = 0; i < x.width * x.height; i++) {
    if (out[i * 4] === 255 && out[i * 4 + 1] === 0 && out[i * 4 + 2] === 0) {
      const px = i % x.width;
      const py = Math.floor(i / x.width);
      minX = Math.min(minX, px);
      minY = Math.min(minY, py);
      maxX = Math.max(maxX, px);
      maxY = Math.max(maxY, py);
    }
  }
  return { count, share: count / (x.width * x.height), box: count > 0 ? { minX, minY, maxX, maxY } : null };
}

describe("golden images", () => {
  for (const template of DEMO_TEMPLATES) {
    test(`${template.name}: the three formats with the example values match the references`, async () => {
      const values = await resolveValues(deps, template, {}, { useExamples: true });
      const formats = await renderTemplate(template, values);
      for (const [ratio, jpeg] of Object.entries(formats)) {
        const meta = await sharp(jpeg).metadata();
        expect(meta.format).toBe("jpeg");
        expect(meta.space).toBe("srgb");
        expect(`${meta.width}x${meta.height}`).toBe({ "1:1": "1080x1080", "4:5": "1080x1350", "9:16": "1080x1920" }[ratio]);
        const file = join(GOLDEN, `${template.name.toLowerCase().replaceAll(" ", "-")}-${ratio.replace(":", "x")}.jpg`);
        if (process.env.UPDATE_GOLDEN === "1" || !existsSync(file)) {
          mkdirSync(GOLDEN, { recursive: true });
          writeFileSync(file, jpeg);
          if (process.env.UPDATE_GOLDEN !== "1") throw new Error(`no reference yet: wrote ${file}; check it and commit it`);
        }
        const reference = readFileSync(file);
        const { share } = await diff(jpeg, reference);
        expect(share, `${file}`).toBeLessThan(0.002);
      }
    }, 60_000);
  }
});

test("a highlight changes exactly its word's area; the same text without a mark is drawn plain", async () => {
  const render = async (headline: string) =>
    renderRatio(SALE_BANNER, await resolveValues(deps, SALE_BANNER, { headline, price: "€ 9", brand_color: "#0f766e" }, { useExamples: false }), "1:1");
  const plain = await render("Spring Sale on all shoes");
  const marked = await render("Spring [[Sale]] on all shoes");
  const { count, box } = await diff(plain, marked);
  expect(count).toBeGreaterThan(2000);
  // "Sale" is the second word of the first line: right of "Spring", within the headline's first line.
  expect(box).not.toBeNull();
  if (!box) return;
  expect(box.minY).toBeGreaterThanOrEqual(80);
  expect(box.maxY).toBeLessThan(80 + 96 * 1.1 + 10);
  expect(box.minX).toBeGreaterThan(300);
  expect(box.maxX - box.minX).toBeLessThan(320);
  // The marked word is drawn on the highlight colour.
  const { data, width } = await rgba(marked);
  const centre = (Math.round((box.minY + box.maxY) / 2) * width + box.minX + 6) * 4;
  expect([data[centre], data[centre + 1], data[centre + 2]].map((v) => Math.round((v ?? 0) / 16))).toEqual([0xfa, 0xcc, 0x15].map((v) => Math.round(v / 16)));
}, 60_000);

describe("values", () => {
  test("brackets stay as typed where a parameter does not support highlights, and are not counted where it does", () => {
    expect(segmentsOf("a [[b]] c", false)).toEqual([{ text: "a [[b]] c", highlight: false }]);
    expect(segmentsOf("a [[b]] c", true)).toEqual([
      { text: "a ", highlight: false },
      { text: "b", highlight: true },
      { text: " c", highlight: false },
    ]);
    expect(visibleText(segmentsOf("[[Sale]]", true))).toBe("Sale");
  });

  test("every problem is a 422 naming its parameter: unknown, required, lengths, colours, image URLs", async () => {
    const error = await resolveValues(
      deps,
      SALE_BANNER,
      { headline: "Hi", brand_color: "teal", nonsense: "x", product_image: "not a url" },
      { useExamples: false },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    const paths = problemsOf(error)
      .map((d) => d.path)
      .sort();
    expect(paths).toEqual(["params.brand_color", "params.headline", "params.nonsense", "params.price", "params.product_image"]);
    // An image URL the SSRF-safe client refuses (not https, or not public) names the parameter too.
    const fetched = await resolveValues(
      deps,
      SALE_BANNER,
      { headline: "Big sale", price: "1", brand_color: "#000000", product_image: "http://127.0.0.1:9/x.png" },
      { useExamples: false },
    ).catch((e: unknown) => e);
    expect(problemsOf(fetched)).toEqual([{ path: "params.product_image", message: "Only https URLs are accepted." }]);
  });

  test("text too long for its box shrinks down to the minimum size, and past it is refused (422), never cut off", async () => {
    const long = "The fastest delivery we have ever had, truly the fastest, ordered on a Monday and wearing them on Tuesday, what a delight for everyone.";
    const fits = await resolveValues(deps, QUOTE_CARD, { quote: long, author: "— A" }, { useExamples: false });
    await expect(renderRatio(QUOTE_CARD, fits, "1:1")).resolves.toBeInstanceOf(Buffer);
    const narrow = {
      ...QUOTE_CARD,
      layouts: {
        ...QUOTE_CARD.layouts,
        "1:1": { type: "box", children: [{ type: "text", param: "quote", style: { width: 300, height: 120, fontSize: 40 }, min_font_size: 30 }] },
      } as Layouts,
    };
    const error = await renderRatio(narrow, fits, "1:1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(problemsOf(error)[0]?.path).toBe("params.quote");
  });
});

test("layouts are checked on save: unknown and mistyped parameters, missing highlight style, sizes, with paths", () => {
  const layouts = {
    ...SALE_BANNER.layouts,
    "1:1": {
      type: "box",
      style: { width: 1000, backgroundColor: { param: "headline" } },
      children: [
        { type: "text", param: "nope" },
        { type: "image", param: "product_image" },
        { type: "text", text: "x", param: "price" },
      ],
    },
  } as Layouts;
  const problems = layoutProblems(SALE_BANNER.params, layouts, null)
    .map((p) => p.path)
    .sort();
  expect(problems).toEqual(
    [
      "highlight",
      "layouts.1:1.children.0.param",
      "layouts.1:1.children.1.style",
      "layouts.1:1.children.2",
      "layouts.1:1.style.backgroundColor.param",
      "layouts.1:1.style.width",
    ].sort(),
  );
  for (const template of DEMO_TEMPLATES) expect(layoutProblems(template.params, template.layouts, template.highlight)).toEqual([]);
});

test("drawing runs on worker threads, one per core, and gives the bytes the calling thread would", async () => {
  const values = await resolveValues(deps, SALE_BANNER, {}, { useExamples: true });
  const onPool = await renderRatio(SALE_BANNER, values, "4:5");
  expect(await renderWorkerCount()).toBeGreaterThanOrEqual(1);
  const inline = await draw({ root: layoutElement(SALE_BANNER, values, "4:5"), ratio: "4:5", output: "jpeg", backdrop: "#ffffff" });
  expect(onPool.equals(inline)).toBe(true);
});
