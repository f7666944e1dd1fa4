import fc from "fast-check";
import mjml2html from "mjml";
import { afterEach, describe, expect, it } from "vitest";
import { defaultFrame, demoBlocks, demoBrand, toBlockDefinition } from "../../lib/mail/blocks/library";
import { compileStack, createFragmentCache, createMjmlCache, defaultDesignTokens, leanSkeleton } from "../../lib/mail/render";
import type { BlockDefinition, CompileStackInput, DesignTokens, Frame } from "../../lib/mail/render";

/*
 * Body fragments (lib/mail/render/fragments.ts): a document assembled from fragments compiled before is
 * the document MJML writes for the whole, byte for byte, for every kind of block MJML has and every
 * design setting; fragments hold MJML only (never a customer's values); the cache stays in its bounds.
 */

function block(slug: string, mjml: string): BlockDefinition {
  return { id: `00000000-0000-4000-8000-${slug.padStart(12, "0").slice(-12)}`, slug, tags: [], params: [], mjml };
}

/** Every body-level element MJML has, placeholders in each kind of position, and MJML it flags as invalid. */
const kinds: BlockDefinition[] = [
  ...demoBlocks.filter((entry) => !entry.tags.some((tag) => tag.slug === "footer")).map(toBlockDefinition),
  block(
    "hero",
    `<mj-hero mode="fixed-height" height="300px" background-url="{{hero_image}}" background-color="#2a2a2a" padding="40px 0"><mj-text color="#ffffff">{{hero_title}}</mj-text><mj-button href="{{hero_link}}">Go</mj-button></mj-hero>`,
  ),
  block(
    "wrapper",
    `<mj-wrapper border="1px solid #dddddd" padding="20px" background-color="#fafafa"><mj-section><mj-column><mj-text>{{wrapped}}</mj-text></mj-column></mj-section><mj-section><mj-column><mj-image src="{{wrapped_image}}" alt="{{wrapped}}" /></mj-column></mj-section></mj-wrapper>`,
  ),
  block("raw", `<mj-raw><p class="raw">{{raw_text}} <a href="{{raw_link}}">link</a></p></mj-raw>\n<!-- a comment between blocks -->`),
  block(
    "group",
    `<mj-section><mj-group><mj-column width="40%"><mj-text>left</mj-text></mj-column><mj-column width="60%" vertical-align="middle"><mj-text>{{group_text}}</mj-text></mj-column></mj-group></mj-section>`,
  ),
  block(
    "social",
    `<mj-section><mj-column><mj-social mode="horizontal"><mj-social-element name="facebook" href="{{social_link}}">Facebook</mj-social-element><mj-social-element name="x" href="https://x.com/example">{{social_text}}</mj-social-element></mj-social></mj-column></mj-section>`,
  ),
  block(
    "navbar",
    `<mj-section><mj-column><mj-navbar hamburger="hamburger"><mj-navbar-link href="https://example.com/a">{{nav_text}}</mj-navbar-link><mj-navbar-link href="{{nav_link}}">B</mj-navbar-link></mj-navbar></mj-column></mj-section>`,
  ),
  block(
    "carousel",
    `<mj-section><mj-column><mj-carousel><mj-carousel-image src="{{carousel_image}}" alt="{{carousel_alt}}" /><mj-carousel-image src="https://img.example.com/2.jpg" /></mj-carousel></mj-column></mj-section>`,
  ),
  block(
    "accordion",
    `<mj-section><mj-column><mj-accordion><mj-accordion-element><mj-accordion-title>{{question}}</mj-accordion-title><mj-accordion-text>{{answer}}</mj-accordion-text></mj-accordion-element></mj-accordion></mj-column></mj-section>`,
  ),
  block("table", `<mj-section><mj-column><mj-table><tr><td>{{cell}}</td><td title="{{cell}}">2</td></tr></mj-table></mj-column></mj-section>`),
  block("spacer", `<mj-section><mj-column><mj-spacer height="{{gap}}" /><mj-divider border-color="{{line_color}}" /></mj-column></mj-section>`),
  block(
    "columns",
    `<mj-section direction="rtl" text-align="left"><mj-column width="150px" padding="10px"><mj-text>a</mj-text></mj-column><mj-column width="{{column_width}}" border="1px solid #cccccc"><mj-button href="https://example.com/{{path}}">{{label}}</mj-button></mj-column></mj-section>`,
  ),
  block(
    "full-width",
    `<mj-section full-width="full-width" background-url="{{background}}" background-size="cover" border-radius="8px"><mj-column><mj-text css-class="lead">{{lead}}</mj-text></mj-column></mj-section>`,
  ),
  block(
    "fonts",
    `<mj-section><mj-column><mj-text font-family="'Open Sans', Lato, sans-serif">{{fonts_text}}</mj-text><mj-text font-family="ROBOTO">upper case</mj-text></mj-column></mj-section>`,
  ),
  block(
    "sections",
    `{{#promo}}<mj-section><mj-column><mj-text>{{promo}}</mj-text></mj-column></mj-section>{{/promo}}{{^promo}}<mj-section><mj-column><mj-text>no promo</mj-text></mj-column></mj-section>{{/promo}}`,
  ),
  block("invalid", `<mj-section><mj-text unknown-attribute="1">{{invalid_text}}</mj-text></mj-section><mj-column><mj-text>{{loose}}</mj-text></mj-column>`),
];

/** Layout values MJML interprets must be known when compiling. */
const layoutValues: Record<string, string> = { gap: "24px", line_color: "#ff0000", column_width: "300px" };

/** Each design token at a value other than its default. */
const otherTokens: DesignTokens = {
  color_background: "#000000",
  color_container: "#fefefe",
  color_text: "#333333",
  color_heading: "#444444",
  color_primary: "#ff6600",
  color_on_primary: "#000000",
  color_link: "#0000ee",
  color_footer_bg: "#eeeeee",
  color_footer_text: "#555555",
  font_heading: "Lato, sans-serif",
  font_body: "'Open Sans', Arial",
  font_size_base: "15px",
  font_size_h1: "32px",
  font_size_h2: "22px",
  space_section: "16px",
  container_width: "480px",
  button_radius: "0px",
  color_success: "#00aa00",
  color_warning: "#aaaa00",
  color_danger: "#aa0000",
  color_info: "#0000aa",
  color_text_muted: "#999999",
  font_size_small: "11px",
  line_height_base: "22px",
  heading_letter_spacing: "1px",
  heading_font_weight: "900",
  space_gutter: "8px",
  button_padding: "8px 12px 10px",
  divider_color: "#123456",
  divider_width: "3px",
  image_radius: "12px",
};

const header = `<mj-section><mj-column><mj-text>{{brand.company_name}} header</mj-text></mj-column></mj-section>`;

function frameWith(options: { header: boolean; logo: boolean }): Frame {
  return {
    ...defaultFrame,
    header_mjml: options.header ? header : null,
    brand: { ...demoBrand, logo_url: options.logo ? "https://cdn.example.com/logo.png" : null },
  };
}

function stackInput(blocks: readonly BlockDefinition[], tokens: DesignTokens, frame: Frame, kind: "newsletter" | "transactional"): CompileStackInput {
  return {
    kind,
    blocks: kinds,
    stack: blocks.map((entry) => ({
      block_id: entry.id,
      values: { ...Object.fromEntries(entry.params.map((param) => [param.name, param.example])), ...layoutValues },
    })),
    tokens,
    frame,
  };
}

/** mj-carousel and mj-navbar draw random ids; both compiles of a pair draw the same ones. */
const random = Math.random;
afterEach(() => {
  Math.random = random;
});

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function compilePair(input: CompileStackInput, fragments: ReturnType<typeof createFragmentCache>, seed: number) {
  Math.random = seeded(seed);
  const whole = await compileStack(input);
  Math.random = seeded(seed);
  const assembled = await compileStack(input, { fragments });
  Math.random = random;
  return { whole, assembled };
}

function expectSame(pair: Awaited<ReturnType<typeof compilePair>>): void {
  expect(pair.assembled.html).toBe(pair.whole.html);
  expect(pair.assembled.errors).toEqual(pair.whole.errors);
  expect(pair.assembled.compiled).toEqual(pair.whole.compiled);
}

describe("documents assembled from compiled body fragments", () => {
  it("equal MJML's whole-document compile for every block kind, first and later, in both designs and frames", async () => {
    const fragments = createFragmentCache();
    for (const tokens of [defaultDesignTokens, otherTokens]) {
      for (const [index, options] of [
        { header: false, logo: false, kind: "newsletter" as const },
        { header: true, logo: true, kind: "transactional" as const },
      ].entries()) {
        const frame = frameWith(options);
        // Every kind first once (without a header), every kind twice in one document, orders reversed.
        const forwards = await compilePair(stackInput([...kinds, ...kinds], tokens, frame, options.kind), fragments, index + 1);
        expectSame(forwards);
        const sizeAfterForwards = fragments.size;
        const backwards = await compilePair(stackInput([...kinds].reverse(), tokens, frame, options.kind), fragments, index + 7);
        expectSame(backwards);
        // The reversed stack reused what the first compile left (only the first child's position is new).
        expect(fragments.size - sizeAfterForwards).toBeLessThanOrEqual(2);
      }
    }
    const validation = (await compileStack(stackInput(kinds, defaultDesignTokens, defaultFrame, "newsletter"))).errors;
    expect(validation.some((issue) => issue.message.includes('block "invalid"'))).toBe(true);
  });

  it("equal MJML's whole-document compile for any stack, design overrides, frame and values", async () => {
    const fragments = createFragmentCache();
    const tokenKeys = Object.keys(otherTokens) as (keyof DesignTokens)[];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: kinds.length - 1 }), { minLength: 1, maxLength: 6 }),
        fc.subarray(tokenKeys),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom("newsletter" as const, "transactional" as const),
        fc.dictionary(
          fc.constantFrom("hero_title", "promo", "cell", "question", "raw_text", "nav_text"),
          fc.string({ maxLength: 8 }).filter((value) => !/[{}]/.test(value)),
        ),
        fc.integer(),
        async (picks, changed, withHeader, logo, kind, values, seed) => {
          const tokens = { ...defaultDesignTokens, ...Object.fromEntries(changed.map((key) => [key, otherTokens[key]])) };
          const input = {
            ...stackInput(
              picks.map((pick) => kinds[pick]),
              tokens,
              frameWith({ header: withHeader, logo }),
              kind,
            ),
            values,
          };
          expectSame(await compilePair(input, fragments, seed));
          // The same blocks in another order: taken from the cache this time.
          expectSame(await compilePair({ ...input, stack: [...input.stack].reverse() }, fragments, seed));
        },
      ),
      { numRuns: 12 },
    );
  });

  it("hold MJML only: two customers' values never meet, and their layout values give fragments of their own", async () => {
    const fragments = createFragmentCache();
    const blocks = demoBlocks.map(toBlockDefinition);
    const pick = (slug: string) => blocks.find((entry) => entry.slug === slug) as BlockDefinition;
    const customer = (title: string, align: string, company: string): CompileStackInput => ({
      kind: "newsletter",
      blocks,
      stack: [
        { block_id: pick("heading").id, values: { title, align } },
        { block_id: pick("text").id, values: { body: `${title} body` } },
        { block_id: pick("button").id, values: { label: `${title} button`, url: "https://example.com/x" } },
      ],
      tokens: defaultDesignTokens,
      frame: { ...defaultFrame, brand: { ...demoBrand, company_name: company } },
    });
    const first = await compileStack(customer("Alpha secret", "left", "Alpha GmbH"), { fragments });
    const size = fragments.size;
    const second = await compileStack(customer("Beta news", "left", "Beta AG"), { fragments });
    // Every fragment of the second customer came from the first one's compile, and its HTML is its own.
    expect(fragments.size).toBe(size);
    expect(second.html).toBe((await compileStack(customer("Beta news", "left", "Beta AG"))).html);
    for (const secret of ["Alpha secret", "Alpha GmbH"]) {
      expect(first.html).toContain(secret);
      expect(second.html).not.toContain(secret);
    }
    for (const [key, fragment] of fragments.entries()) {
      for (const value of ["Alpha", "Beta"]) {
        expect(key).not.toContain(value);
        expect(fragment.html).not.toContain(value);
      }
    }
    // A layout value is part of the MJML: another alignment is another fragment, each customer gets its own.
    const right = await compileStack(customer("Gamma", "right", "Gamma SA"), { fragments });
    expect(fragments.size).toBe(size + 1);
    expect(right.html).toBe((await compileStack(customer("Gamma", "right", "Gamma SA"))).html);
    expect((await compileStack(customer("Alpha secret", "left", "Alpha GmbH"), { fragments })).html).toBe(first.html);
  });

  it("stay within their bounds in entries and bytes and still give the same HTML", async () => {
    const input = stackInput(kinds.slice(0, 8), defaultDesignTokens, defaultFrame, "newsletter");
    const expected = (await compileStack(input)).html;
    const fewEntries = createFragmentCache(3, 1024 * 1024);
    const fewBytes = createFragmentCache(1000, 24 * 1024);
    for (const fragments of [fewEntries, fewBytes]) {
      for (let round = 0; round < 2; round++) expect((await compileStack(input, { fragments })).html).toBe(expected);
    }
    expect(fewEntries.size).toBe(3);
    expect(fewBytes.size).toBeGreaterThan(0);
    expect(fewBytes.calculatedSize).toBeLessThanOrEqual(24 * 1024);
    expect(fewBytes.size).toBeLessThan(new Set(input.stack.map((entry) => entry.block_id)).size + 2);
  });

  it("the skeleton given only the fonts the HTML names writes the same document as MJML's", async () => {
    const skeletons: { options: Parameters<ReturnType<typeof leanSkeleton>>[0]; html: string }[] = [];
    const { default: skeleton } = await import("mjml-core/lib/helpers/skeleton.js");
    const capture = (options: Parameters<typeof skeleton>[0]) => {
      const html = skeleton(options);
      skeletons.push({ options, html });
      return html;
    };
    for (const tokens of [defaultDesignTokens, otherTokens]) {
      // Any MJML document will do: the skeleton's options as MJML gives them, with and without those fonts.
      const plain = kinds.filter((entry) => ["fonts", "group", "divider"].includes(entry.slug));
      const { mjml } = await compileStack(stackInput(plain, tokens, defaultFrame, "transactional"), { cache: createMjmlCache() });
      await mjml2html(mjml, { validationLevel: "soft", skeleton: capture as () => string });
    }
    expect(skeletons.length).toBe(2);
    for (const { options, html } of skeletons) {
      expect(leanSkeleton(skeleton)(options)).toBe(html);
    }
    // Fonts named in any case are linked (Open Sans, Lato and ROBOTO); the others are not.
    expect(skeletons[1].html).toContain("family=Roboto");
    expect(skeletons[1].html).toContain("family=Lato");
    expect(skeletons[0].html).not.toContain("family=Ubuntu");
  });
});
