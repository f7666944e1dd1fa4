import { z } from "@hono/zod-openapi";
import { isoExample } from "../fields";

/** Brand URLs appear in `src`/`href`; http is allowed because embedded-mode assets are served over http. */
const brandUrl = z.url({ protocol: /^https?$/ }).max(2000);

const MailBrand = z
  .object({
    company_name: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .openapi({ description: "Company name (logo alt text, footers), 1–200 characters. `{{brand.company_name}}`.", example: "Acme GmbH" }),
    logo_url: brandUrl.nullable().openapi({
      description: "Absolute http(s) URL of the logo, e.g. an asset URL; null: the header shows the company name. `{{brand.logo_url}}`.",
      example: "https://assets.example.com/acme/logo.png",
    }),
    website_url: brandUrl
      .nullable()
      .openapi({ description: "Absolute http(s) URL of the website; null when none. `{{brand.website_url}}`.", example: "https://www.acme.example" }),
    imprint: z.string().max(5000).openapi({
      description: "Legal imprint; line breaks render as `<br>`. `{{brand.imprint}}`.",
      example: "Acme GmbH · Managing director: Jane Doe · Register court Berlin HRB 12345",
    }),
    address: z
      .string()
      .max(2000)
      .openapi({ description: "Postal address; line breaks render as `<br>`. `{{brand.address}}`.", example: "Acme GmbH\nExample Street 1\n10115 Berlin" }),
  })
  .openapi("MailBrand");

const fragment = z.string().max(100_000);
const requiredFragment = fragment.refine((value) => value.trim().length > 0, "Must not be empty.");

export const MailFrame = z
  .object({
    header_mjml: fragment.nullable().openapi({ description: "Body-level MJML placed before every stack (e.g. a logo header); null: none.", example: null }),
    newsletter_footer_mjml: requiredFragment.openapi({
      description:
        'Footer of newsletters. Must contain a link with `href="{{{ pm:unsubscribe }}}"` (Postmark inserts the recipient\'s unsubscribe URL on the broadcast stream).',
      example: '<mj-section><mj-column><mj-text>{{brand.company_name}} · <a href="{{{ pm:unsubscribe }}}">Unsubscribe</a></mj-text></mj-column></mj-section>',
    }),
    transactional_footer_mjml: requiredFragment.openapi({
      description: "Footer of transactional mails (no unsubscribe link: they stay deliverable to unsubscribed addresses).",
      example: "<mj-section><mj-column><mj-text>{{brand.imprint}}</mj-text></mj-column></mj-section>",
    }),
    brand: MailBrand,
    version: z
      .number()
      .int()
      .openapi({ description: "0 while no frame is set (the default frame with the customer's name renders); bumped by every PUT.", example: 1 }),
    updated_at: z.string().nullable().openapi({ description: "ISO 8601 time of the last PUT; null while no frame is set.", example: isoExample }),
  })
  .openapi("MailFrame");

export const PutMailFrame = MailFrame.omit({ version: true, updated_at: true }).strict().openapi("PutMailFrame");

export const tags = ["Mail frame"];
