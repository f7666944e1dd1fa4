import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defaultFrame } from "../../lib/mail/blocks/library";
import {
  compileStack,
  createMjmlCache,
  defaultDesignTokens,
  escapeUrl,
  personalise,
  refusedUrl,
  RenderValidationError,
  urlProblem,
} from "../../lib/mail/render";
import type { BlockDefinition, CompileStackInput } from "../../lib/mail/render";

/*
 * The two-phase promise (DESIGN §5): personalising the compiled template with recipient data equals
 * rendering the same stack with those values given in phase 1. Blocks cover every position a
 * placeholder can take: text, multi-line text, attributes, URLs (fixed and open scheme), sections in
 * text and around whole sections, inverted sections, hide_if_missing, values referring to recipient data.
 */

const personal: BlockDefinition = {
  id: "11111111-1111-4111-8111-111111111111",
  slug: "personal",
  tags: [],
  params: [
    { name: "greeting", label: "Greeting", type: "text", required: false, fallback: null, hide_if_missing: false, example: "" },
    { name: "bio", label: "Bio", type: "text", required: false, fallback: null, hide_if_missing: false, example: "" },
    { name: "banner", label: "Banner", type: "string", required: false, fallback: null, hide_if_missing: true, example: "" },
  ],
  mjml: `<mj-section>
  <mj-column>
    <mj-text>Hi {{first_name}}! {{#city}}<b title="{{city}}">From {{city}}</b>{{/city}}{{^city}}<i>Nowhere</i>{{/city}}
      <p>{{greeting}}</p><p>{{bio}}</p></mj-text>
    {{#promo}}<mj-button href="https://shop.example.com/p?c={{promo}}" title="{{promo}}">{{promo}}</mj-button>{{/promo}}
    <mj-image src="https://img.example.com/x.png" alt="{{alt_text}}" href="{{link}}" />
  </mj-column>
</mj-section>
{{#banner}}<mj-section><mj-column><mj-text>{{banner}} {{{ pm:unsubscribe }}}</mj-text></mj-column></mj-section>{{/banner}}`,
};

const note: BlockDefinition = {
  id: "22222222-2222-4222-8222-222222222222",
  slug: "note",
  tags: [],
  params: [{ name: "note", label: "Note", type: "string", required: false, fallback: null, hide_if_missing: true, example: "" }],
  mjml: `<mj-section><mj-column><mj-text>Note: {{note}}</mj-text></mj-column></mj-section>`,
};

const recipientNames = ["first_name", "city", "promo", "alt_text", "link", "nick", "banner", "note", "bio"] as const;

// Braces are excluded: phase-1 values are templates by definition, recipient data is never parsed.
const piece = fc.oneof(
  fc.constantFrom("<", ">", "&", '"', "'", "`", "\n", "\r\n", "\t", " ", "é", "😀", "漢字", "&amp;", "<script>", "javascript:", ""),
  fc.string({ unit: "binary", maxLength: 6 }),
);
const textValue = fc
  .array(piece, { maxLength: 5 })
  .map((parts) => parts.join(""))
  .filter((value) => !value.includes("{") && !value.includes("}"));
const linkValue = fc.oneof(
  textValue,
  textValue.map((path) => `https://example.com/${path}`),
  fc.constantFrom("javascript:alert(1)", " JaVa\tscript:x", "mailto:a@b.c"),
);

const recipientData = fc.record(
  {
    first_name: textValue,
    city: textValue,
    promo: textValue,
    alt_text: textValue,
    link: linkValue,
    nick: textValue,
    banner: textValue,
    note: textValue,
    bio: textValue,
  },
  { requiredKeys: [] },
);

const cache = createMjmlCache();

function input(values: Record<string, string>): CompileStackInput {
  return {
    kind: "newsletter",
    blocks: [personal, note],
    stack: [
      { block_id: personal.id, values: { greeting: "Dear {{first_name}}{{#nick}} aka {{nick}}{{/nick}},\nwelcome." } },
      { block_id: note.id, values: {} },
    ],
    values,
    tokens: defaultDesignTokens,
    frame: defaultFrame,
  };
}

describe("two-phase rendering", () => {
  it("personalise(compileStack(placeholders), data) equals compileStack(values given in phase 1)", async () => {
    const template = await compileStack(input({}), { cache });
    expect(template.compiled.placeholders).toEqual([...recipientNames].sort());

    await fc.assert(
      fc.asyncProperty(recipientData, async (data) => {
        const defined = Object.fromEntries(Object.entries(data).filter((entry): entry is [string, string] => entry[1] !== undefined));
        const personalised = personalise(template.compiled, defined);
        const link = defined.link ?? "";
        if (urlProblem(escapeUrl(link), "link") !== null) {
          // Phase 1 refuses the URL outright; phase 2 cannot refuse a recipient, so it neutralises it.
          await expect(compileStack(input(defined), { cache })).rejects.toBeInstanceOf(RenderValidationError);
          expect(personalised).toContain(`href="${refusedUrl}"`);
          return;
        }
        const full = await compileStack(input(defined), { cache });
        expect(personalised).toBe(full.html);
        // What phase 1 did not know stays open; what it knew is gone.
        expect(full.compiled.placeholders).toEqual(recipientNames.filter((name) => !(name in defined)).sort());
      }),
      { numRuns: 200 },
    );
  });
});
