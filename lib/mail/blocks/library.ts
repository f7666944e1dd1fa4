import type { BlockParam } from "../../db/json-columns";
import type { BlockDefinition, Brand, Frame } from "../render/types";

/*
 * The demo block library: what a fresh installation (and the tests and benchmarks) starts with.
 * Blocks take their look from design tokens (`{{token.*}}`) and the head defaults in render/tokens.ts,
 * so they fit every customer. Ids are fixed: stacks reference blocks by id, never by slug.
 */

interface BlockTag {
  slug: string;
  label: string;
}

/** A block as the admin maintains it (spec: Block, without the computed `tile_url`). */
export interface LibraryBlock {
  id: string;
  slug: string;
  name: string;
  version: number;
  tags: BlockTag[];
  series: BlockTag | null;
  description: string | null;
  mjml: string;
  params: BlockParam[];
}

const headerTag: BlockTag = { slug: "header", label: "Header" };
const footerTag: BlockTag = { slug: "footer", label: "Footer" };
const contentTag: BlockTag = { slug: "content", label: "Content" };
const mediaTag: BlockTag = { slug: "media", label: "Media" };
const actionTag: BlockTag = { slug: "action", label: "Call to action" };
const layoutTag: BlockTag = { slug: "layout", label: "Layout" };
const classic: BlockTag = { slug: "classic", label: "Classic" };

function param(name: string, label: string, type: BlockParam["type"], options: Partial<Omit<BlockParam, "name" | "label" | "type">> = {}): BlockParam {
  return { name, label, type, required: false, fallback: null, hide_if_missing: false, example: "", ...options };
}

const headingStyle =
  "margin:0;font-family:{{token.font_heading}};font-weight:{{token.heading_font_weight}};letter-spacing:{{token.heading_letter_spacing}};color:{{token.color_heading}};";

const headerLogo: LibraryBlock = {
  id: "bfb48946-b6d6-46db-be52-24e3ee624e58",
  slug: "header-logo",
  name: "Header with logo",
  version: 1,
  tags: [headerTag],
  series: classic,
  description: "The customer's logo (or company name when there is no logo) at the top of the mail.",
  mjml: `<mj-section padding="{{token.space_section}} 0">
  <mj-column>
    {{#brand.logo_url}}
    <mj-image src="{{brand.logo_url}}" alt="{{brand.company_name}}" width="{{logo_width}}" align="{{align}}" border-radius="0" />
    {{/brand.logo_url}}
    {{^brand.logo_url}}
    <mj-text align="{{align}}" font-family="{{token.font_heading}}" font-size="{{token.font_size_h2}}" font-weight="{{token.heading_font_weight}}" color="{{token.color_heading}}">{{brand.company_name}}</mj-text>
    {{/brand.logo_url}}
  </mj-column>
</mj-section>`,
  params: [
    param("logo_width", "Logo width", "string", { fallback: "140px", example: "140px" }),
    param("align", "Alignment (left, center, right)", "string", { fallback: "left", example: "left" }),
  ],
};

const heading: LibraryBlock = {
  id: "b7beda4d-2265-4334-ba1f-176be459d030",
  slug: "heading",
  name: "Heading",
  version: 1,
  tags: [contentTag],
  series: classic,
  description: "A main heading with an optional subtitle.",
  mjml: `<mj-section>
  <mj-column>
    <mj-text align="{{align}}">
      <h1 style="${headingStyle}font-size:{{token.font_size_h1}};line-height:1.25;">{{title}}</h1>
      {{#subtitle}}<p style="margin:8px 0 0;color:{{token.color_text_muted}};">{{subtitle}}</p>{{/subtitle}}
    </mj-text>
  </mj-column>
</mj-section>`,
  params: [
    param("title", "Title", "string", { required: true, example: "Our spring update" }),
    param("subtitle", "Subtitle", "text", { example: "What is new this season, in three minutes." }),
    param("align", "Alignment (left, center, right)", "string", { fallback: "left", example: "left" }),
  ],
};

const text: LibraryBlock = {
  id: "ad02c744-81ad-4d68-9013-90a68202adb2",
  slug: "text",
  name: "Text",
  version: 1,
  tags: [contentTag],
  series: classic,
  description: "A paragraph of body text; line breaks are kept.",
  mjml: `<mj-section>
  <mj-column>
    <mj-text>{{body}}</mj-text>
  </mj-column>
</mj-section>`,
  params: [
    param("body", "Text", "text", {
      required: true,
      example: "Spring is here, and so are our new opening hours.\nFrom April we are open on Saturdays as well.",
    }),
  ],
};

const image: LibraryBlock = {
  id: "72893213-2ce1-4671-abc2-796efd779b38",
  slug: "image",
  name: "Image",
  version: 1,
  tags: [mediaTag],
  series: classic,
  description: "A full-width image with an optional link and caption.",
  mjml: `<mj-section>
  <mj-column>
    {{#link}}<mj-image src="{{image_url}}" alt="{{alt}}" href="{{link}}" />{{/link}}
    {{^link}}<mj-image src="{{image_url}}" alt="{{alt}}" />{{/link}}
    {{#caption}}
    <mj-text padding="8px {{token.space_gutter}} 0" align="center" color="{{token.color_text_muted}}" font-size="{{token.font_size_small}}" line-height="18px">{{caption}}</mj-text>
    {{/caption}}
  </mj-column>
</mj-section>`,
  params: [
    param("image_url", "Image", "image", { required: true, example: "https://assets.example.com/demo/spring-1200x600.jpg" }),
    param("alt", "Alternative text", "string", { fallback: "", example: "Flowers in the shop window" }),
    param("link", "Link", "url", { example: "https://www.example.com/spring" }),
    param("caption", "Caption", "text", { example: "Our shop window this week." }),
  ],
};

const button: LibraryBlock = {
  id: "cf244abf-ecb9-45b9-961d-1991a28088b0",
  slug: "button",
  name: "Button",
  version: 1,
  tags: [actionTag],
  series: classic,
  description: "A call-to-action button in the primary colour.",
  mjml: `<mj-section>
  <mj-column>
    <mj-button href="{{url}}" align="{{align}}">{{label}}</mj-button>
  </mj-column>
</mj-section>`,
  params: [
    param("label", "Label", "string", { required: true, example: "See what is new" }),
    param("url", "Link", "url", { required: true, example: "https://www.example.com/spring" }),
    param("align", "Alignment (left, center, right)", "string", { fallback: "center", example: "center" }),
  ],
};

function column(side: "left" | "right", padding: string): string {
  return `<mj-column padding="${padding}">
    {{#${side}_image}}<mj-image src="{{${side}_image}}" alt="{{${side}_title}}" padding="0 0 12px" />{{/${side}_image}}
    <mj-text padding="0">
      <h2 style="${headingStyle}font-size:{{token.font_size_h2}};line-height:1.3;margin-bottom:8px;">{{${side}_title}}</h2>
      {{${side}_text}}
    </mj-text>
  </mj-column>`;
}

const twoColumns: LibraryBlock = {
  id: "9ede78d7-5fea-4fea-9430-0eb646a49ef3",
  slug: "two-columns",
  name: "Two columns",
  version: 1,
  tags: [layoutTag, contentTag],
  series: classic,
  description: "Two teasers side by side (stacked on phones), each with an optional image.",
  mjml: `<mj-section padding="{{token.space_section}} {{token.space_gutter}} 0">
  ${column("left", "0 8px 0 0")}
  ${column("right", "0 0 0 8px")}
</mj-section>`,
  params: [
    param("left_image", "Left image", "image", { example: "https://assets.example.com/demo/left-600x400.jpg" }),
    param("left_title", "Left title", "string", { required: true, example: "New: Saturdays" }),
    param("left_text", "Left text", "text", { required: true, example: "Open from 9 to 14." }),
    param("right_image", "Right image", "image", { example: "https://assets.example.com/demo/right-600x400.jpg" }),
    param("right_title", "Right title", "string", { required: true, example: "Spring menu" }),
    param("right_text", "Right text", "text", { required: true, example: "Fresh from the market." }),
  ],
};

const divider: LibraryBlock = {
  id: "7503cfaa-8772-4dc5-be98-54811f18c7c8",
  slug: "divider",
  name: "Divider",
  version: 1,
  tags: [layoutTag],
  series: null,
  description: "A thin line between blocks.",
  mjml: `<mj-section>
  <mj-column>
    <mj-divider />
  </mj-column>
</mj-section>`,
  params: [],
};

/** Closes the content container with the usual block spacing before the footer's own background. */
const containerEnd = `<mj-section padding="0">
  <mj-column>
    <mj-spacer height="{{token.space_section}}" />
  </mj-column>
</mj-section>`;

const footerText = `color="{{token.color_footer_text}}" font-size="{{token.font_size_small}}" line-height="20px" align="center"`;
const footerLink = `style="color:{{token.color_footer_text}};text-decoration:underline;"`;

const newsletterFooter: LibraryBlock = {
  id: "71e0a7a6-5b80-4d72-8829-6f3a3b7f0c9f",
  slug: "newsletter-footer",
  name: "Newsletter footer",
  version: 1,
  tags: [footerTag],
  series: classic,
  description: "Company, address, imprint and the unsubscribe link the provider fills per recipient.",
  mjml: `${containerEnd}
<mj-section background-color="{{token.color_footer_bg}}" padding="{{token.space_section}} 0">
  <mj-column>
    <mj-text ${footerText}>
      <p style="margin:0 0 8px;"><strong>{{brand.company_name}}</strong><br>{{brand.address}}</p>
      <p style="margin:0 0 8px;">{{brand.imprint}}</p>
      <p style="margin:0;">You receive this newsletter because you subscribed to it. <a href="{{{ pm:unsubscribe }}}" ${footerLink}>Unsubscribe</a>{{#brand.website_url}} · <a href="{{brand.website_url}}" ${footerLink}>Website</a>{{/brand.website_url}}</p>
    </mj-text>
  </mj-column>
</mj-section>`,
  params: [],
};

const transactionalFooter: LibraryBlock = {
  id: "da05b0eb-9650-41c8-a7eb-860d6a0546b6",
  slug: "transactional-footer",
  name: "Transactional footer",
  version: 1,
  tags: [footerTag],
  series: classic,
  description: "Company, address and imprint for service mails (no unsubscribe: they are not marketing).",
  mjml: `${containerEnd}
<mj-section background-color="{{token.color_footer_bg}}" padding="{{token.space_section}} 0">
  <mj-column>
    <mj-text ${footerText}>
      <p style="margin:0 0 8px;"><strong>{{brand.company_name}}</strong><br>{{brand.address}}</p>
      <p style="margin:0;">{{brand.imprint}}</p>
      {{#brand.website_url}}<p style="margin:8px 0 0;"><a href="{{brand.website_url}}" ${footerLink}>Website</a></p>{{/brand.website_url}}
    </mj-text>
  </mj-column>
</mj-section>`,
  params: [],
};

export const demoBlocks: readonly LibraryBlock[] = [headerLogo, heading, text, image, button, twoColumns, divider, newsletterFooter, transactionalFooter];

/** The renderer's view of a library block (tags by slug). */
export function toBlockDefinition(block: LibraryBlock): BlockDefinition {
  return { id: block.id, slug: block.slug, mjml: block.mjml, params: block.params, tags: block.tags.map((tag) => tag.slug) };
}

export const demoBrand: Brand = {
  company_name: "Example GmbH",
  logo_url: null,
  website_url: "https://www.example.com",
  imprint: "Example GmbH · Managing director: Erika Mustermann\nRegister court Berlin HRB 123456 · VAT ID DE123456789",
  address: "Musterstraße 1\n10115 Berlin, Germany",
};

/** The frame a customer starts with: library footers and the demo brand, no extra header. */
export const defaultFrame: Frame = {
  header_mjml: null,
  newsletter_footer_mjml: newsletterFooter.mjml,
  transactional_footer_mjml: transactionalFooter.mjml,
  brand: demoBrand,
};
