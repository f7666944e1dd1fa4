import { z } from "@hono/zod-openapi";
import { urlProblem } from "../../../mail/render/escape";
import { defaultDesignTokens, designTokensSchema } from "../../../mail/render/tokens";
import { readinessItems } from "../../../mail/setup/provider-config";
import { BlockReferenceFields, CreateTemplateFields, TemplateFields, templateKinds, templateStatuses, Values } from "../../../mail/routes/schema";

/*
 * Schemas of the operator's mail API (blocks, design rules, frame, provider, admin templates). Names carry
 * the `Mail` prefix: the admin document also describes the ads side.
 */

const blockId = "b7beda4d-2265-4334-ba1f-176be459d030";
const customerId = "3f0e8a52-6f1e-4c1d-9a43-0d2f1b7c5e11";
const templateId = "0c6f3e2a-9b1d-4f5e-8a7c-2d4b6e8f0a13";
const isoExample = "2026-03-01T10:00:00.000Z";

/**
 * A nullable named schema as `anyOf: [$ref, null]`: `.nullable()` on a referenced schema would render as
 * `allOf` with the description nested, which says "not null" and hides the description.
 */
const orNull = <T extends z.ZodType>(schema: T) => z.union([schema, z.null()]);

const paramTypes = ["string", "text", "url", "image"] as const;

/**
 * Parameter names are plain identifiers: `token.*` and `brand.*` resolve to design tokens and brand
 * values before any parameter, so dotted names could never be reached.
 */
const parameterName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "Must be an identifier: letters, digits and _ (not starting with a digit), at most 64 characters.");

const slug = z
  .string()
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "Must be lower-case letters and digits separated by single hyphens.")
  .max(64);

/** Examples and fallbacks of `url`/`image` parameters end up in `href`/`src`: the renderer's scheme allowlist applies. */
function checkUrlValues(entries: readonly { type: string; example: string; fallback?: string | null }[], ctx: z.RefinementCtx): void {
  for (const [i, entry] of entries.entries()) {
    if (entry.type !== "url" && entry.type !== "image") continue;
    const kind = entry.type === "url" ? "link" : "image";
    for (const field of ["example", "fallback"] as const) {
      const value = entry[field];
      const problem = typeof value === "string" ? urlProblem(value, kind) : null;
      if (problem) ctx.addIssue({ code: "custom", path: [i, field], message: problem });
    }
  }
}

/** Names must be unique in a parameter list; the issue points at the repeated entry. */
function checkUniqueNames(entries: readonly { name: string }[], ctx: z.RefinementCtx, what: string): void {
  const seen = new Set<string>();
  for (const [i, entry] of entries.entries()) {
    if (seen.has(entry.name)) ctx.addIssue({ code: "custom", path: [i, "name"], message: `Duplicate ${what} "${entry.name}".` });
    seen.add(entry.name);
  }
}

// Blocks ---------------------------------------------------------------------------------------------

export const MailBlockParam = z
  .object({
    name: parameterName.openapi({ description: "Placeholder name used in the block's MJML as `{{name}}` (and `{{#name}}…{{/name}}`).", example: "title" }),
    label: z.string().trim().min(1).max(200).openapi({ description: "Label shown in the builder, 1–200 characters.", example: "Title" }),
    type: z.enum(paramTypes).openapi({
      description:
        "`string` (one line), `text` (line breaks become `<br>`), `url` (link; http, https, mailto or tel) or `image` (image URL, e.g. an asset URL).",
      example: "string",
    }),
    required: z.boolean().openapi({ description: "Whether a value must be given when the block is used.", example: true }),
    fallback: z
      .string()
      .max(10_000)
      .nullable()
      .openapi({ description: "Used when no (or an empty) value is given; may itself contain placeholders. Null: none.", example: null }),
    hide_if_missing: z.boolean().openapi({ description: "Without a value the block's outer element is left out of the mail.", example: false }),
    example: z.string().max(10_000).openapi({ description: "Example value, used to render the block's tile.", example: "Our spring news" }),
  })
  .openapi("MailBlockParam");

export const MailBlockTag = z
  .object({
    slug: slug.openapi({ description: "Stable key that logic uses. `header` and `footer` are built in (labels `Header`, `Footer`).", example: "header" }),
    label: z.string().trim().min(1).max(100).openapi({ description: "Display label, 1–100 characters.", example: "Header" }),
  })
  .openapi("MailBlockTag");

const blockParams = z
  .array(MailBlockParam)
  .max(50)
  .superRefine((params, ctx) => {
    checkUniqueNames(params, ctx, "parameter");
    checkUrlValues(params, ctx);
  });

const blockTags = z
  .array(MailBlockTag)
  .max(20)
  .superRefine((tags, ctx) => {
    const seen = new Set<string>();
    for (const [i, tag] of tags.entries()) {
      if (seen.has(tag.slug)) ctx.addIssue({ code: "custom", path: [i, "slug"], message: `Duplicate tag "${tag.slug}".` });
      seen.add(tag.slug);
    }
  });

export const MailBlock = z
  .object({
    id: z.uuid().openapi({ description: "Immutable block id; stacks reference blocks by it, never by slug.", example: blockId }),
    slug: z.string().openapi({ description: "Human-readable key; may change and need not be unique.", example: "heading" }),
    name: z.string().openapi({ description: "Display name.", example: "Heading" }),
    description: z.string().nullable().openapi({ description: "What the block is for; null when none.", example: "A main heading with an optional subtitle." }),
    mjml: z.string().openapi({
      description:
        "Body-level MJML (one or more `mj-section`/`mj-wrapper`) with `{{param}}` placeholders, `{{#param}}…{{/param}}` sections, `{{token.<key>}}` design tokens and `{{brand.<key>}}` brand values.",
      example: "<mj-section><mj-column><mj-text><h1>{{title}}</h1>{{#subtitle}}<p>{{subtitle}}</p>{{/subtitle}}</mj-text></mj-column></mj-section>",
    }),
    params: z.array(MailBlockParam).openapi({ description: "Parameter schema of the block." }),
    tags: z.array(MailBlockTag).openapi({ description: "Categories; a block tagged `footer` never appears in a stack (footers come from the frame)." }),
    series: orNull(MailBlockTag).openapi({ description: "At most one series, for grouping in the builder; null when none." }),
    version: z.number().int().openapi({ description: "Starts at 1 and is bumped by every change (tiles and compiled templates follow it).", example: 1 }),
    active: z.boolean().openapi({ description: "Inactive blocks are usable by no customer; their enablements are kept.", example: true }),
    created_at: z.string().openapi({ description: "ISO 8601 creation time.", example: isoExample }),
    updated_at: z.string().openapi({ description: "ISO 8601 time of the last change.", example: isoExample }),
  })
  .openapi("MailBlock");

export const CreateMailBlock = z
  .object({
    slug: slug.openapi({ description: "Human-readable key: lower-case letters and digits separated by hyphens, at most 64 characters.", example: "heading" }),
    name: z.string().trim().min(1).max(200).openapi({ description: "Display name, 1–200 characters.", example: "Heading" }),
    description: z
      .string()
      .max(2000)
      .nullable()
      .default(null)
      .openapi({ description: "What the block is for, at most 2,000 characters; default null.", example: "A main heading with an optional subtitle." }),
    mjml: z
      .string()
      .max(100_000)
      .refine((value) => value.trim().length > 0, "Must not be empty.")
      .openapi({
        description: "Body-level MJML, not empty, at most 100,000 characters. Placeholder syntax is checked (unbalanced sections → 422).",
        example: "<mj-section><mj-column><mj-text><h1>{{title}}</h1></mj-text></mj-column></mj-section>",
      }),
    params: blockParams.default([]).openapi({ description: "Parameter schema, at most 50 entries with unique names; default none." }),
    tags: blockTags.default([]).openapi({ description: "Categories with unique slugs, at most 20; default none." }),
    series: orNull(MailBlockTag).default(null).openapi({ description: "At most one series; default null." }),
  })
  .strict()
  .openapi("CreateMailBlock");

const atLeastOneField = (value: object) => Object.keys(value).length > 0;
const atLeastOneFieldMessage = "Send at least one field to change.";

export const UpdateMailBlock = z
  .object({
    slug: CreateMailBlock.shape.slug.optional(),
    name: CreateMailBlock.shape.name.optional(),
    description: z.string().max(2000).nullable().optional().openapi({ description: "New description; null removes it.", example: "A large heading." }),
    mjml: CreateMailBlock.shape.mjml.optional(),
    params: blockParams.optional().openapi({ description: "The complete new parameter schema (replaces the old one)." }),
    tags: blockTags.optional().openapi({ description: "The complete new tag list (replaces the old one)." }),
    series: orNull(MailBlockTag).optional().openapi({ description: "New series; null removes it." }),
    active: z.boolean().optional().openapi({ description: "`false` deactivates the block for every customer, `true` reactivates it.", example: false }),
  })
  .strict()
  .refine(atLeastOneField, atLeastOneFieldMessage)
  .openapi("UpdateMailBlock");

export const MailEnabledBlock = MailBlock.extend({
  enabled_at: z.string().openapi({ description: "ISO 8601 time the block was enabled for the customer.", example: isoExample }),
}).openapi("MailEnabledBlock");

export const MailBlockEnablement = z
  .object({
    customer_id: z.uuid().openapi({ description: "The customer.", example: customerId }),
    block_id: z.uuid().openapi({ description: "The block.", example: blockId }),
    enabled: z.boolean().openapi({ description: "Whether the block is now enabled for the customer.", example: true }),
  })
  .openapi("MailBlockEnablement");

export const BlockIdParam = z.object({
  id: z.uuid().openapi({ param: { name: "id", in: "path" }, description: "Block id.", example: blockId }),
});

export const CustomerBlockParams = z.object({
  id: z.uuid().openapi({ param: { name: "id", in: "path" }, description: "Customer id.", example: customerId }),
  blockId: z.uuid().openapi({ param: { name: "blockId", in: "path" }, description: "Block id.", example: blockId }),
});

// Design rules ---------------------------------------------------------------------------------------

/** Every token documented from the render schema itself, so the docs cannot drift from what renders. */
export const MailDesignTokens = z
  .object(
    Object.fromEntries(
      Object.entries(designTokensSchema.shape).map(([key, schema]) => [
        key,
        z.string().openapi({ description: String(schema.meta()?.description ?? key), example: defaultDesignTokens[key as keyof typeof defaultDesignTokens] }),
      ]),
    ),
  )
  .openapi("MailDesignTokens", { description: "Complete resolved design tokens: the overrides over the defaults. All strings; sizes in px." });

export const MailDesignRules = z
  .object({
    overrides: z
      .record(z.string(), z.string())
      .openapi({ description: "The customer's own values (a subset of the token keys); empty when none.", example: { color_primary: "#e11d48" } }),
    tokens: MailDesignTokens,
    version: z.number().int().openapi({ description: "0 while the customer has no rules of its own; bumped by every PUT (tiles follow it).", example: 1 }),
  })
  .openapi("MailDesignRules");

export const PutMailDesignRules = z
  .object({
    overrides: z.record(z.string(), z.string()).openapi({
      description:
        "The complete set of overrides (replaces the previous one); any subset of the token keys. Keys left out use the defaults; `{}` resets to the defaults.",
      example: { color_primary: "#e11d48", button_radius: "0px" },
    }),
  })
  .strict()
  .openapi("PutMailDesignRules");

// Frame ----------------------------------------------------------------------------------------------

/** Brand URLs appear in `src`/`href`; http is allowed because embedded-mode assets are served over http. */
const brandUrl = z.url({ protocol: /^https?$/ }).max(2000);

export const MailBrand = z
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

// Provider -------------------------------------------------------------------------------------------

export const MailSender = z
  .object({
    email: z
      .email()
      .max(254)
      .openapi({ description: "Sender address; must be a verified sender or on a verified domain for readiness.", example: "news@acme.example" }),
    name: z.string().trim().min(1).max(200).openapi({ description: "Sender display name, 1–200 characters.", example: "Acme GmbH" }),
  })
  .openapi("MailSender");

const streamId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,99}$/, "Must be a Postmark message stream id: lower-case letters, digits, - and _, at most 100 characters.");

export const MailProviderConfig = z
  .object({
    server_token_set: z
      .boolean()
      .openapi({ description: "Whether a Postmark server token is stored. The token itself is write-only and never returned.", example: true }),
    transactional_stream: z.string().nullable().openapi({ description: "Postmark transactional message stream id; null until set.", example: "outbound" }),
    broadcast_stream: z
      .string()
      .nullable()
      .openapi({ description: "Postmark broadcast message stream id (newsletters); null until set.", example: "broadcast" }),
    verified_senders: z.array(z.string()).openapi({ description: "Sender addresses verified at Postmark (lower-case).", example: ["news@acme.example"] }),
    verified_domains: z.array(z.string()).openapi({ description: "Sender domains verified at Postmark (lower-case).", example: ["acme.example"] }),
    default_newsletter_from: orNull(MailSender).openapi({ description: "Default sender of newsletters; null until set." }),
    default_transactional_from: orNull(MailSender).openapi({ description: "Default sender of transactional mails; null: the newsletter default applies." }),
  })
  .openapi("MailProviderConfig");

export const UpdateMailProviderConfig = z
  .object({
    server_token: z.string().trim().min(1).max(200).optional().openapi({
      description: "Postmark server token (write-only): encrypted at rest (AES-256-GCM), never returned or logged.",
      example: "b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e",
    }),
    transactional_stream: streamId.optional().openapi({ description: "Transactional message stream id.", example: "outbound" }),
    broadcast_stream: streamId.optional().openapi({ description: "Broadcast message stream id.", example: "broadcast" }),
    verified_senders: z
      .array(z.email().max(254))
      .max(500)
      .optional()
      .openapi({ description: "The complete list of verified sender addresses (replaces the old one), at most 500.", example: ["news@acme.example"] }),
    verified_domains: z
      .array(z.string().regex(z.regexes.domain, "Must be a domain name such as acme.example.").max(253))
      .max(100)
      .optional()
      .openapi({ description: "The complete list of verified sender domains (replaces the old one), at most 100.", example: ["acme.example"] }),
    default_newsletter_from: orNull(MailSender).optional().openapi({ description: "Default newsletter sender; null removes it." }),
    default_transactional_from: orNull(MailSender).optional().openapi({ description: "Default transactional sender; null removes it." }),
  })
  .strict()
  .refine(atLeastOneField, atLeastOneFieldMessage)
  .openapi("UpdateMailProviderConfig");

export const MailReadinessItem = z
  .object({
    item: z.enum(readinessItems).openapi({ description: "The checked item.", example: "server_token" }),
    status: z.enum(["green", "red"]).openapi({ description: "`green`: in place; `red`: missing or invalid.", example: "green" }),
    message: z.string().openapi({ description: "`ok`, or what to do.", example: "ok" }),
  })
  .openapi("MailReadinessItem");

export const MailReadiness = z
  .object({
    ready: z.boolean().openapi({
      description: "True when every item is green; sends of a customer that is not ready answer 403 naming the red items in `details.missing`.",
      example: false,
    }),
    items: z.array(MailReadinessItem).openapi({ description: "Every item, in a fixed order." }),
  })
  .openapi("MailReadiness");

// Admin templates ------------------------------------------------------------------------------------

export const MailTemplateParam = z
  .object({
    name: parameterName.openapi({ description: "Parameter name; the template text refers to it as `{{name}}`.", example: "order_number" }),
    label: z.string().trim().min(1).max(200).openapi({ description: "Label, 1–200 characters.", example: "Order number" }),
    type: z.enum(paramTypes).openapi({ description: "`string`, `text`, `url` or `image` (image parameters take a URL).", example: "string" }),
    required: z.boolean().openapi({ description: "Whether every send must give a non-empty value.", example: true }),
    example: z.string().max(10_000).openapi({ description: "Example value for documentation and previews.", example: "A-10023" }),
  })
  .openapi("MailTemplateParam");

const contract = z
  .array(MailTemplateParam)
  .max(100)
  .superRefine((entries, ctx) => {
    checkUniqueNames(entries, ctx, "parameter");
    checkUrlValues(entries, ctx);
  });

/*
 * The admin view of the mail service's Template (lib/mail/routes/schema.ts): the same fields, types and
 * limits (a value is capped at 100,000 characters in both APIs), described for the operator, plus what
 * only the operator sets (kind, parameter contract, sender).
 */

export const MailBlockReference = BlockReferenceFields.extend({
  block_id: BlockReferenceFields.shape.block_id.openapi({ description: "Id of a block enabled and active for the customer.", example: blockId }),
  values: BlockReferenceFields.shape.values.openapi({
    description: "Values of the block's parameters; may refer to contract parameters as `{{name}}`.",
    example: { title: "Order {{order_number}} confirmed" },
  }),
}).openapi("MailBlockReference");

const templateValues = Values.openapi({
  description: "Global values merged into and overriding every block's values.",
  example: { support_email: "help@acme.example" },
});

export const MailTemplate = TemplateFields.extend({
  id: TemplateFields.shape.id.openapi({ description: "Template id.", example: templateId }),
  name: TemplateFields.shape.name.openapi({ description: "Name.", example: "Order confirmation" }),
  kind: TemplateFields.shape.kind.openapi({ description: "`transactional` (sent singly) or `newsletter` (send jobs).", example: "transactional" }),
  origin: TemplateFields.shape.origin.openapi({
    description: "`admin`: maintained here, with a parameter contract, read-only for the customer. `customer`: saved by the customer's builder.",
    example: "admin",
  }),
  subject: TemplateFields.shape.subject.openapi({ description: "Subject; may contain `{{placeholder}}`.", example: "Your order {{order_number}}" }),
  params: z.array(MailTemplateParam).openapi({ description: "Parameter contract; empty for builder templates." }),
  blocks: z.array(MailBlockReference).nullable().openapi({ description: "The stack of block references." }),
  values: templateValues,
  from: orNull(MailSender).openapi({ description: "Sender of this template; null: the customer's default for the kind." }),
  version: TemplateFields.shape.version.openapi({ description: "Starts at 1; bumped by every change.", example: 1 }),
  created_at: TemplateFields.shape.created_at.openapi({ description: "ISO 8601 creation time.", example: isoExample }),
  updated_at: TemplateFields.shape.updated_at.openapi({ description: "ISO 8601 time of the last change.", example: isoExample }),
}).openapi("MailTemplate");

export const CreateMailTemplate = z
  .object({
    name: CreateTemplateFields.shape.name.openapi({ description: "Name, 1–200 characters.", example: "Order confirmation" }),
    kind: z.enum(templateKinds).default("transactional").openapi({ description: "Default `transactional`. Cannot change later.", example: "transactional" }),
    subject: CreateTemplateFields.shape.subject.openapi({
      description: "Subject, 1–500 characters; may contain `{{placeholder}}`.",
      example: "Your order {{order_number}}",
    }),
    blocks: z
      .array(MailBlockReference)
      .min(1)
      .max(100)
      .openapi({ description: "The stack, 1–100 block references, without footer blocks (the footer comes from the frame)." }),
    values: templateValues.optional(),
    params: contract.default([]).openapi({ description: "Parameter contract: at most 100 entries with unique names; default none." }),
    from: orNull(MailSender).default(null).openapi({ description: "Sender of this template; default null (the customer's default)." }),
    status: z.enum(["draft", "active"]).default("active").openapi({ description: "Default `active`.", example: "active" }),
  })
  .strict()
  .openapi("CreateMailTemplate");

export const UpdateMailTemplate = z
  .object({
    name: CreateMailTemplate.shape.name.optional(),
    subject: CreateMailTemplate.shape.subject.optional(),
    blocks: CreateMailTemplate.shape.blocks.optional(),
    values: templateValues.optional(),
    params: contract.optional().openapi({ description: "The complete new contract (replaces the old one); admin-origin templates only." }),
    from: orNull(MailSender).optional().openapi({ description: "New sender; null: the customer's default." }),
    status: z.enum(templateStatuses).optional().openapi({ description: "New status.", example: "archived" }),
  })
  .strict()
  .refine(atLeastOneField, atLeastOneFieldMessage)
  .openapi("UpdateMailTemplate");

export const CustomerTemplateParams = z.object({
  id: z.uuid().openapi({ param: { name: "id", in: "path" }, description: "Customer id.", example: customerId }),
  templateId: z.uuid().openapi({ param: { name: "templateId", in: "path" }, description: "Template id.", example: templateId }),
});
