import { LruCache } from "../../lib/core/lru-cache";
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { defaultFrame, demoBlocks, demoBrand, toBlockDefinition } from "../../lib/mail/blocks/library";
import {
  assertContract,
  assertNewsletterFooter,
  compileStack,
  compileSubject,
  contentHash,
  createMjmlCache,
  defaultDesignTokens,
  designTokensSchema,
  personalise,
  personaliseSubject,
  refusedUrl,
  renderTile,
  RenderValidationError,
  resolveDesignTokens,
  tileCacheKey,
} from "../../lib/mail/render";
import type { BlockDefinition, BlockParam, CompileStackInput, Frame } from "../../lib/mail/render";

const frame: Frame = {
  header_mjml: null,
  newsletter_footer_mjml: `<mj-section><mj-column><mj-text>NL-FOOTER {{brand.company_name}} <a href="{{{ pm:unsubscribe }}}">Unsubscribe</a></mj-text></mj-column></mj-section>`,
  transactional_footer_mjml: `<mj-section><mj-column><mj-text>TX-FOOTER {{brand.imprint}}</mj-text></mj-column></mj-section>`,
  brand: {
    company_name: "Muster & Söhne",
    logo_url: "https://cdn.example.com/logo.png",
    website_url: null,
    imprint: "Line one\nLine two",
    address: "Street 1",
  },
};

function param(name: string, options: Partial<BlockParam> = {}): BlockParam {
  return { name, label: name, type: "string", required: false, fallback: null, hide_if_missing: false, example: "", ...options };
}

function block(content: string, params: BlockParam[] = [], slug = "test"): BlockDefinition {
  return { id: randomUUID(), slug, tags: [], params, mjml: content };
}

/** A block whose content sits in one mj-column. */
function columnBlock(columnContent: string, params: BlockParam[] = []): BlockDefinition {
  return block(`<mj-section><mj-column>${columnContent}</mj-column></mj-section>`, params);
}

function input(blocks: BlockDefinition[], overrides: Partial<CompileStackInput> = {}, blockValues: Record<string, string>[] = []): CompileStackInput {
  return {
    kind: "transactional",
    blocks,
    stack: blocks.map((definition, index) => ({ block_id: definition.id, values: blockValues[index] ?? {} })),
    tokens: defaultDesignTokens,
    frame,
    ...overrides,
  };
}

async function render(definition: BlockDefinition, values: Record<string, string> = {}, overrides: Partial<CompileStackInput> = {}) {
  return compileStack(input([definition], overrides, [values]));
}

async function problemsOf(promise: Promise<unknown>) {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(RenderValidationError);
  return (error as RenderValidationError).problems;
}

/** The visible body of a mail, without MJML's head and layout noise, for readable assertions. */
function textOf(html: string): string {
  return html
    .replace(/<head>[\s\S]*<\/head>/, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

describe("escaping", () => {
  const tricky = `<b>"Tom" & 'Jerry'</b>\nnext`;

  it("escapes values for element text and for attributes differently", async () => {
    const definition = columnBlock(`<mj-text><p title="{{v}}">{{v}}</p></mj-text><mj-image src="https://img.example.com/a.png" alt="{{v}}" />`);
    const { html } = await render(definition, { v: tricky });
    expect(html).toContain(`>&lt;b&gt;&quot;Tom&quot; &amp; &#39;Jerry&#39;&lt;/b&gt;\nnext</p>`);
    expect(html).toContain(`title="&lt;b&gt;&quot;Tom&quot; &amp; &#39;Jerry&#39;&lt;/b&gt;&#10;next"`);
    expect(html).toContain(`alt="&lt;b&gt;&quot;Tom&quot; &amp; &#39;Jerry&#39;&lt;/b&gt;&#10;next"`);
  });

  it("escapes the same way in phase 2", async () => {
    const definition = columnBlock(`<mj-text><p title="{{v}}">{{v}}</p></mj-text>`);
    const full = await render(definition, { v: tricky });
    const template = await render(definition);
    expect(personalise(template.compiled, { v: tricky })).toBe(full.html);
  });

  it("turns line breaks of text parameters into <br>", async () => {
    const { html } = await render(columnBlock(`<mj-text>{{body}}</mj-text>`, [param("body", { type: "text" })]), { body: "a\r\nb\nc<" });
    expect(html).toContain(">a<br>b<br>c&lt;</div>");
  });

  it("percent-encodes what could leave a URL attribute or a CSS url()", async () => {
    const { html } = await render(columnBlock(`<mj-button href="{{u}}">Go</mj-button>`), { u: `https://x.com/a b"c'd(e)&f=1` });
    expect(html).toContain(`href="https://x.com/a%20b%22c%27d%28e%29&amp;f=1"`);
  });
});

describe("URL values", () => {
  const link = columnBlock(`<mj-button href="{{target}}">Go</mj-button><mj-image src="{{picture}}" alt="" />`);

  it.each([
    "javascript:alert(1)",
    " JaVaScRiPt:alert(1)",
    "java\nscript:alert(1)",
    "vbscript:msgbox(1)",
    "data:text/html;base64,PHNjcmlwdD4=",
    "file:///etc/passwd",
  ])("rejects %j in href with the value's path", async (target) => {
    const problems = await problemsOf(render(link, { picture: "https://img.example.com/a.png" }, { values: { target } }));
    expect(problems).toEqual([{ path: "values.target", message: expect.stringMatching(/is not allowed/) }]);
  });

  it("allows data:image in src but not other data URLs", async () => {
    const { html } = await render(link, { target: "https://x.com", picture: "data:image/png;base64,iVBORw0KGgo=" });
    expect(html).toContain(`src="data:image/png;base64,iVBORw0KGgo="`);
    const problems = await problemsOf(render(link, { target: "https://x.com", picture: "data:text/html,hi" }));
    expect(problems[0].path).toBe("blocks.0.values.picture");
  });

  it("rejects a typed url parameter that is not an absolute URL", async () => {
    const definition = columnBlock(`<mj-button href="{{url}}">Go</mj-button>`, [param("url", { type: "url" })]);
    const problems = await problemsOf(render(definition, { url: "javascript:alert(1)" }));
    expect(problems).toEqual([{ path: "blocks.0.values.url", message: 'URL scheme "javascript:" is not allowed; use http:, https:, mailto:, tel:.' }]);
  });

  it("checks a scheme assembled from several values", async () => {
    const definition = columnBlock(`<mj-button href="{{a}}{{b}}">Go</mj-button>`);
    const problems = await problemsOf(render(definition, { a: "java", b: "script:alert(1)" }));
    expect(problems[0].message).toMatch(/javascript:/);
    // Left to recipient data, the same URL is neutralised per recipient.
    const template = await render(definition);
    expect(personalise(template.compiled, { a: "java", b: "script:alert(1)" })).toContain(`href="${refusedUrl}"`);
    expect(personalise(template.compiled, { a: "https://ok.example", b: "/x" })).toContain(`href="https://ok.example/x"`);
  });

  it("needs no per-recipient check once the start of the URL fixes the scheme", async () => {
    const template = await render(columnBlock(`<mj-button href="https://shop.example.com/{{code}}">Go</mj-button>`));
    expect(template.compiled.nodes.some((node) => typeof node !== "string" && "url" in node)).toBe(false);
    expect(personalise(template.compiled, { code: "javascript:x" })).toContain(`href="https://shop.example.com/javascript:x"`);
  });
});

describe("placeholders", () => {
  it("renders unknown placeholders as nothing, in phase 1 and in phase 2", async () => {
    const result = await render(columnBlock(`<mj-text>A{{nope}}B{{ spaced }}C{{ not a name }}</mj-text>`));
    expect(result.html).toContain(">ABC{{ not a name }}</div>");
    expect(personalise(result.compiled, {})).toBe(result.html);
    expect(personalise(result.compiled, { spaced: "-" })).toContain(">AB-C{{ not a name }}</div>");
    expect(result.compiled.placeholders).toEqual(["nope", "spaced"]);
  });

  it("renders sections only for non-empty values, nested and inverted", async () => {
    const definition = columnBlock(`<mj-text>[{{#a}}A{{#b}}B{{b}}{{/b}}{{/a}}{{^a}}none{{/a}}]</mj-text>`);
    const cases: [Record<string, string>, string][] = [
      [{ a: "1", b: "2" }, "[AB2]"],
      [{ a: "1", b: "" }, "[A]"],
      [{ a: "", b: "2" }, "[none]"],
      [{}, "[none]"],
    ];
    const template = await render(definition);
    for (const [values, expected] of cases) {
      expect((await render(definition, values)).html).toContain(`>${expected}</div>`);
      expect(personalise(template.compiled, values)).toContain(`>${expected}</div>`);
    }
  });

  it("keeps sections that span tags and placeholders in attributes intact through MJML", async () => {
    const definition = block(
      `{{#promo}}<mj-section><mj-column><mj-text>PROMO</mj-text></mj-column></mj-section>{{/promo}}
<mj-section><mj-column>
  <mj-text>{{#city}}<p class="c">City: {{city}}</p><p>second</p>{{/city}}</mj-text>
  {{#code}}<mj-button href="https://shop.example.com/?c={{code}}" title="Code {{code}}">Use {{code}}</mj-button>{{/code}}
</mj-column></mj-section>`,
    );
    const template = await render(definition);
    expect(template.compiled.placeholders).toEqual(["city", "code", "promo"]);
    const nothing = textOf(personalise(template.compiled, {}));
    expect(nothing).not.toMatch(/PROMO|City|second|Use/);
    const everything = personalise(template.compiled, { promo: "y", city: "Köln", code: "A&B" });
    expect(textOf(everything)).toMatch(/PROMO .*City: Köln second .*Use A&amp;B/);
    expect(everything).toContain(`href="https://shop.example.com/?c=A&amp;B"`);
    expect(everything).toContain(`title="Code A&amp;B"`);
    expect(everything).toBe((await render(definition, { promo: "y", city: "Köln", code: "A&B" })).html);
  });

  it("keeps {{{ pm:unsubscribe }}} untouched in every phase", async () => {
    const definition = columnBlock(`<mj-text>{{v}} <a href="{{{ pm:unsubscribe }}}">off</a></mj-text>`);
    const result = await render(definition, { v: "value {{{ pm:unsubscribe }}}" }, { kind: "newsletter" });
    expect(result.mjml).toContain(`<a href="{{{ pm:unsubscribe }}}">off</a>`);
    expect(result.html).toContain(`value {{{ pm:unsubscribe }}} <a href="{{{ pm:unsubscribe }}}">off</a>`);
    expect(personalise(result.compiled, { pm: "x" })).toBe(result.html);
  });

  it("lets block values refer to recipient data", async () => {
    const definition = columnBlock(`<mj-text>{{greeting}}</mj-text>`, [param("greeting")]);
    const template = await render(definition, { greeting: "Hello {{first_name}}{{#last_name}} {{last_name}}{{/last_name}}!" });
    expect(template.compiled.placeholders).toEqual(["first_name", "last_name"]);
    expect(personalise(template.compiled, { first_name: "Ann", last_name: "Lee" })).toContain(">Hello Ann Lee!</div>");
    expect(personalise(template.compiled, { first_name: "Ann" }, { first_name: "Customer" })).toContain(">Hello Ann!</div>");
    expect(personalise(template.compiled, {}, { first_name: "Customer" })).toContain(">Hello Customer!</div>");
    // A value naming itself means the recipient's value.
    const self = await render(definition, { greeting: "{{greeting}}" });
    expect(personalise(self.compiled, { greeting: "Hi" })).toContain(">Hi</div>");
  });

  it("reads dotted names from nested recipient data", async () => {
    const template = await render(columnBlock(`<mj-text>{{company.name}}</mj-text>`));
    expect(personalise(template.compiled, { company: { name: "ACME" } })).toContain(">ACME</div>");
    expect(personalise(template.compiled, { "company.name": "Flat" })).toContain(">Flat</div>");
  });

  it.each([
    ["an unclosed section in a value", columnBlock(`<mj-text>{{v}}</mj-text>`), { v: "{{#a}}open" }, "blocks.0.values.v", /never closed/],
    ["a section crossing elements", columnBlock(`<mj-text>{{#a}}x</mj-text><mj-text>{{/a}}</mj-text>`), {}, "blocks.0", /not closed before/],
    ["a placeholder between elements", columnBlock(`{{v}}<mj-text>x</mj-text>`), {}, "blocks.0", /content element/],
    ["a section inside mj-section", block(`<mj-section>{{#a}}<mj-column></mj-column>{{/a}}</mj-section>`), {}, "blocks.0", /whole sections/],
    ["a section in a URL", columnBlock(`<mj-button href="https://x/{{#a}}y{{/a}}">x</mj-button>`), {}, "blocks.0", /URL attribute/],
    ["an event handler attribute", columnBlock(`<mj-text><a onclick="{{v}}">x</a></mj-text>`), {}, "blocks.0", /onclick/],
    ["a document tag", block(`<mj-section><mj-column><mj-text>x</mj-text></mj-column></mj-section></mj-body></mjml>`), {}, "blocks.0", /renderer writes/],
    ["an unclosed MJML element", block(`<mj-section><mj-column><mj-text>x</mj-text></mj-section>`), {}, "blocks.0", /mj-column/],
    ["a style value from recipient data", columnBlock(`<mj-text color="{{colour}}">x</mj-text>`), {}, "blocks.0", /recipient data cannot fill/],
    [
      "a style value that leaves its declaration",
      columnBlock(`<mj-text color="{{colour}}">x</mj-text>`),
      { colour: "red;background:url(x)" },
      "blocks.0",
      /not allowed/,
    ],
  ])("rejects %s (422)", async (_case, definition, values, path, message) => {
    const problems = await problemsOf(render(definition, values));
    expect(problems).toContainEqual({ path, message: expect.stringMatching(message) });
  });

  it("substitutes style values before MJML so MJML can use them", async () => {
    const { html } = await render(columnBlock(`<mj-text color="{{colour}}" align="{{align}}">x</mj-text>`, [param("align", { fallback: "center" })]), {
      colour: "#abcdef",
    });
    expect(html).toContain("text-align:center;color:#abcdef;");
  });
});

describe("block parameters", () => {
  const titled = columnBlock(`<mj-text>[{{title}}]</mj-text>`, [param("title", { required: true, label: "Title" })]);

  it("rejects a missing or empty required value with its path", async () => {
    expect(await problemsOf(render(titled))).toEqual([{ path: "blocks.0.values.title", message: '"Title" is required.' }]);
    expect(await problemsOf(render(titled, { title: "" }))).toEqual([{ path: "blocks.0.values.title", message: '"Title" is required.' }]);
  });

  it("takes params over global values over block values, and the fallback when missing or empty", async () => {
    const definition = columnBlock(`<mj-text>[{{v}}]</mj-text>`, [param("v", { fallback: "fb" })]);
    expect((await render(definition, { v: "block" }, { values: { v: "global" }, params: { v: "param" } })).html).toContain("[param]");
    expect((await render(definition, { v: "block" }, { values: { v: "global" } })).html).toContain("[global]");
    expect((await render(definition, { v: "block" })).html).toContain("[block]");
    expect((await render(definition, { v: "" })).html).toContain("[fb]");
    expect((await render(definition)).html).toContain("[fb]");
  });

  it("drops the whole block for a missing hide_if_missing value", async () => {
    const definition = columnBlock(`<mj-text>HIDE {{image}}</mj-text>`, [param("image", { hide_if_missing: true })]);
    expect((await render(definition, { image: "" })).html).not.toContain("HIDE");
    expect((await render(definition, { image: "yes" })).html).toContain("HIDE yes");
    // Missing (not empty): recipient data may still supply it.
    const template = await render(definition);
    expect(template.html).not.toContain("HIDE");
    expect(personalise(template.compiled, { image: "late" })).toContain("HIDE late");
  });

  it("drops only the block's own section when it has one", async () => {
    const definition = columnBlock(`<mj-text>KEEP{{#image}} HIDE{{/image}}</mj-text>`, [param("image", { hide_if_missing: true })]);
    const { html } = await render(definition, { image: "" });
    expect(html).toContain("KEEP</div>");
    expect(html).not.toContain("HIDE");
  });

  it("checks image parameters", async () => {
    const definition = columnBlock(`<mj-image src="{{img}}" />`, [param("img", { type: "image" })]);
    expect(await problemsOf(render(definition, { img: "not a url" }))).toEqual([
      { path: "blocks.0.values.img", message: "Must be an absolute http(s) image URL." },
    ]);
  });

  it("rejects unknown blocks, footer blocks in the stack and missing contract params", async () => {
    const footer = { ...columnBlock(`<mj-text>f</mj-text>`), tags: ["footer"] };
    const problems = await problemsOf(
      compileStack({
        ...input([footer]),
        stack: [
          { block_id: randomUUID(), values: {} },
          { block_id: footer.id, values: {} },
        ],
        contract: [{ name: "order_id", label: "Order", type: "string", required: true, example: "1" }],
      }),
    );
    expect(problems.map((p) => p.path)).toEqual(["params.order_id", "blocks.0.block_id", "blocks.1.block_id"]);
  });

  it("checks a contract on its own for job params that recipient data may override", () => {
    const contract = [{ name: "order_id", label: "Order", type: "string", required: true, example: "1" }];
    expect(() => assertContract(contract, { order_id: "" })).toThrow(RenderValidationError);
    expect(() => assertContract(contract, { order_id: "42" })).not.toThrow();
  });
});

describe("MJML", () => {
  it("reports validation findings with line and tag name instead of failing", async () => {
    const definition = block(
      `<mj-section>\n<mj-column>\n<mj-foo>x</mj-foo>\n<mj-image src="https://x/a.png" width="wide" />\n</mj-column>\n</mj-section>`,
      [],
      "bad",
    );
    const result = await render(definition);
    const lines = result.mjml.split("\n");
    const unknown = result.errors.find((issue) => issue.tagName === "mj-foo");
    expect(unknown).toMatchObject({ message: expect.stringMatching(/^block "bad": Element mj-foo/) });
    expect(lines[(unknown?.line ?? 0) - 1]).toContain("<mj-foo>");
    const width = result.errors.find((issue) => issue.tagName === "mj-image");
    expect(lines[(width?.line ?? 0) - 1]).toContain('width="wide"');
  });

  it("returns no findings for the demo library", async () => {
    const blocks = demoBlocks.map(toBlockDefinition);
    const content = blocks.filter((definition) => !definition.tags.includes("footer"));
    const values = Object.fromEntries(content.flatMap((definition) => definition.params.map((p) => [p.name, p.example])));
    const result = await compileStack({
      kind: "newsletter",
      blocks,
      stack: content.map((definition) => ({ block_id: definition.id, values: {} })),
      values,
      tokens: defaultDesignTokens,
      frame: defaultFrame,
    });
    expect(result.errors).toEqual([]);
    expect(result.compiled.placeholders).toEqual([]);
  });
});

describe("design tokens", () => {
  it("has complete defaults with the spec's keys, all strings, sizes in px", () => {
    const specKeys = [
      "color_background",
      "color_container",
      "color_text",
      "color_heading",
      "color_primary",
      "color_on_primary",
      "color_link",
      "color_footer_bg",
      "color_footer_text",
      "font_heading",
      "font_body",
      "font_size_base",
      "font_size_h1",
      "space_section",
      "container_width",
      "button_radius",
    ];
    expect(Object.keys(defaultDesignTokens)).toEqual(expect.arrayContaining(specKeys));
    expect(designTokensSchema.parse(defaultDesignTokens)).toEqual(defaultDesignTokens);
    for (const value of Object.values(defaultDesignTokens)) expect(typeof value).toBe("string");
    for (const key of ["font_size_base", "font_size_h1", "space_section", "container_width", "button_radius"] as const) {
      expect(defaultDesignTokens[key]).toMatch(/^\d+px$/);
    }
  });

  it("applies overrides in the head defaults and in {{token.*}}", async () => {
    const tokens = resolveDesignTokens({ color_primary: "#123abc", color_heading: "#0f0", container_width: "640px" });
    const definition = columnBlock(`<mj-text><h1 style="color:{{token.color_heading}}">T</h1></mj-text><mj-button href="https://x.com">B</mj-button>`);
    const result = await render(definition, {}, { tokens });
    expect(result.html).toContain("background:#123abc;");
    expect(result.html).toContain(`<h1 style="color:#0f0">T</h1>`);
    expect(result.html).toContain("max-width:640px");
    expect(result.html).not.toContain(`background:${defaultDesignTokens.color_primary}`);
  });

  it("rejects invalid overrides, naming each key", () => {
    expect(() => resolveDesignTokens({ color_primary: "red", font_size_base: "16", nope: "x" })).toThrow(RenderValidationError);
    try {
      resolveDesignTokens({ color_primary: "red", font_size_base: "16", font_body: 'Arial"><script>', nope: "x" });
    } catch (error) {
      expect((error as RenderValidationError).problems.map((p) => p.path).sort()).toEqual([
        "design_tokens.color_primary",
        "design_tokens.font_body",
        "design_tokens.font_size_base",
        "design_tokens.nope",
      ]);
    }
    expect(resolveDesignTokens(undefined)).toEqual(defaultDesignTokens);
  });

  it("reports an unknown token and renders it as nothing", async () => {
    const result = await render(columnBlock(`<mj-text>[{{token.nope}}]{{token.nope}}</mj-text>`));
    expect(result.html).toContain("[]");
    expect(result.errors).toEqual([{ line: null, message: expect.stringContaining("token.nope"), tagName: null }]);
  });
});

describe("frame and brand", () => {
  const plain = columnBlock(`<mj-text>BODY</mj-text>`);

  it("appends the footer of the stream", async () => {
    const newsletter = await render(plain, {}, { kind: "newsletter" });
    expect(textOf(newsletter.html)).toMatch(/BODY NL-FOOTER Muster &amp; Söhne Unsubscribe$/);
    expect(newsletter.html).toContain(`href="{{{ pm:unsubscribe }}}"`);
    const transactional = await render(plain, {}, { kind: "transactional" });
    expect(textOf(transactional.html)).toMatch(/BODY TX-FOOTER Line one Line two$/);
    expect(transactional.html).toContain("TX-FOOTER Line one<br>Line two");
    expect(transactional.html).not.toContain("pm:unsubscribe");
  });

  it("puts the frame header first", async () => {
    const header = `<mj-section><mj-column><mj-image src="{{brand.logo_url}}" alt="{{brand.company_name}}" /></mj-column></mj-section>`;
    const { html } = await render(plain, {}, { frame: { ...frame, header_mjml: header } });
    expect(html).toContain(`alt="Muster &amp; Söhne" src="https://cdn.example.com/logo.png"`);
    expect(html.indexOf("logo.png")).toBeLessThan(html.indexOf("BODY"));
  });

  it("uses brand values in blocks, with a missing logo as empty", async () => {
    const definition = columnBlock(
      `<mj-text>{{#brand.logo_url}}LOGO{{/brand.logo_url}}{{^brand.logo_url}}NAME {{brand.company_name}}{{/brand.logo_url}}</mj-text>`,
    );
    expect((await render(definition)).html).toContain(">LOGO</div>");
    const noLogo = await render(definition, {}, { frame: { ...frame, brand: { ...frame.brand, logo_url: null } } });
    expect(noLogo.html).toContain(">NAME Muster &amp; Söhne</div>");
  });

  it("requires the unsubscribe link in the newsletter footer, outside conditional sections", async () => {
    expect(() => assertNewsletterFooter(frame.transactional_footer_mjml)).toThrow(RenderValidationError);
    expect(() => assertNewsletterFooter(frame.newsletter_footer_mjml)).not.toThrow();
    const missing = await problemsOf(render(plain, {}, { kind: "newsletter", frame: { ...frame, newsletter_footer_mjml: frame.transactional_footer_mjml } }));
    expect(missing).toEqual([{ path: "frame.newsletter_footer_mjml", message: expect.stringContaining("pm:unsubscribe") }]);
    const conditional = `<mj-section><mj-column><mj-text>{{#first_name}}<a href="{{{ pm:unsubscribe }}}">x</a>{{/first_name}}</mj-text></mj-column></mj-section>`;
    const hidden = await problemsOf(render(plain, {}, { kind: "newsletter", frame: { ...frame, newsletter_footer_mjml: conditional } }));
    expect(hidden).toEqual([{ path: "frame.newsletter_footer_mjml", message: expect.stringContaining("conditional") }]);
  });
});

describe("subject", () => {
  it("fills placeholders without HTML escaping and strips line breaks", () => {
    const subject = "Hi {{first_name}}{{#city}} from {{city}}{{/city}}\r\n!";
    expect(personaliseSubject(subject, { first_name: "<Ann> & Co\r\nBcc: x@y.z" })).toBe("Hi <Ann> & Co Bcc: x@y.z !");
    expect(personaliseSubject(subject, { first_name: "Ann", city: "Köln" }, { city: "Default" })).toBe("Hi Ann from Köln !");
    expect(personaliseSubject("Order {{order_id}}{{unknown}}", {}, { order_id: 42 })).toBe("Order 42");
    expect(() => compileSubject("{{#a}}never closed")).toThrow(RenderValidationError);
  });
});

describe("tiles and caches", () => {
  const heading = toBlockDefinition(demoBlocks[1]);

  it("changes the tile key with the block version, the tokens and the brand, not with key order", () => {
    const key = tileCacheKey({ id: heading.id, version: 1 }, defaultDesignTokens, demoBrand);
    expect(tileCacheKey({ id: heading.id, version: 2 }, defaultDesignTokens, demoBrand)).not.toBe(key);
    expect(tileCacheKey({ id: heading.id, version: 1 }, { ...defaultDesignTokens, color_primary: "#000000" }, demoBrand)).not.toBe(key);
    expect(tileCacheKey({ id: heading.id, version: 1 }, defaultDesignTokens, { ...demoBrand, logo_url: "https://x/l.png" })).not.toBe(key);
    const reordered = Object.fromEntries(Object.entries(defaultDesignTokens).reverse()) as typeof defaultDesignTokens;
    expect(tileCacheKey({ id: heading.id, version: 1 }, reordered, demoBrand)).toBe(key);
  });

  it("renders every library block as a complete document with its examples", async () => {
    for (const libraryBlock of demoBlocks) {
      const tile = await renderTile(toBlockDefinition(libraryBlock), defaultDesignTokens, demoBrand);
      expect(tile.errors).toEqual([]);
      expect(tile.html).toMatch(/^<!doctype html>/);
    }
    const tile = await renderTile(heading, { ...defaultDesignTokens, color_heading: "#abcdef" }, demoBrand);
    expect(tile.html).toContain("Our spring update");
    expect(tile.html).toContain("#abcdef");
  });

  it("returns no tile HTML for a block that cannot render", async () => {
    const broken = columnBlock(`<mj-text>{{title}}</mj-text>`, [param("title", { required: true })]);
    const tile = await renderTile(broken, defaultDesignTokens, demoBrand);
    expect(tile.html).toBeNull();
    expect(tile.errors[0].message).toMatch(/required/);
  });

  it("evicts the least recently used entry", () => {
    const cache = new LruCache<number>(2);
    cache.set("a", 1);
    cache.set("b", 2);
    expect(cache.get("a")).toBe(1);
    cache.set("c", 3);
    expect(cache.has("b")).toBe(false);
    expect([cache.get("a"), cache.get("c"), cache.size]).toEqual([1, 3, 2]);
  });

  it("hits the MJML cache when only values change", async () => {
    const cache = createMjmlCache();
    const definition = columnBlock(`<mj-text>{{v}}</mj-text>`);
    const first = await compileStack(input([definition], {}, [{ v: "one" }]), { cache });
    const second = await compileStack(input([definition], {}, [{ v: "two" }]), { cache });
    expect(cache.size).toBe(1);
    expect(second.html).toBe(first.html.replace(">one<", ">two<"));
    await compileStack(input([definition], { tokens: { ...defaultDesignTokens, color_text: "#000000" } }, [{ v: "one" }]), { cache });
    expect(cache.size).toBe(2);
  });

  it("hashes content independently of key order", () => {
    expect(contentHash({ a: 1, b: [1, { c: 2, d: 3 }] })).toBe(contentHash({ b: [1, { d: 3, c: 2 }], a: 1 }));
    expect(contentHash({ a: 1 })).not.toBe(contentHash({ a: 2 }));
  });
});

describe("indentation", () => {
  it("drops MJML's indentation at line starts, and keeps values as given", async () => {
    const definition = columnBlock(`<mj-text>Hello {{name}}</mj-text>`, [param("name", { required: true })]);
    const { html } = await render(definition, { name: "A  B" });
    expect(html).toContain("Hello A  B");
    expect(html.split("\n").length).toBeGreaterThan(50);
    expect(html).not.toMatch(/\n[ \t]/);
  });

  it("leaves a mail with <pre> or white-space: pre exactly as MJML wrote it", async () => {
    for (const content of ["<mj-text><pre>a\n    indented</pre></mj-text>", '<mj-text><div style="white-space: pre-wrap">a\n    indented</div></mj-text>']) {
      const { html } = await render(columnBlock(content));
      expect(html).toContain("a\n    indented");
      expect(html).toMatch(/\n {2,}</);
    }
  });
});
