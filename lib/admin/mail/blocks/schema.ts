import { z } from "@hono/zod-openapi";
import { BlockFields, BlockParamFields, TagFields } from "../../../mail";
import type { BlockRow } from "../../../mail";
import {
  atLeastOneField,
  atLeastOneFieldMessage,
  blockId,
  checkUniqueNames,
  checkUrlValues,
  customerId,
  isoExample,
  orNull,
  parameterName,
  slug,
} from "../fields";
import { CustomerIdParam } from "../../customers/schema";
import { idPathParam } from "../../../core/openapi";

const MailBlockParam = BlockParamFields.extend({
  name: parameterName.openapi({ description: "Placeholder name used in the block's MJML as `{{name}}` (and `{{#name}}…{{/name}}`).", example: "title" }),
  label: z.string().trim().min(1).max(200).openapi({ description: "Label shown in the builder, 1–200 characters.", example: "Title" }),
  type: BlockParamFields.shape.type.openapi({
    description: "`string` (one line), `text` (line breaks become `<br>`), `url` (link; http, https, mailto or tel) or `image` (image URL, e.g. an asset URL).",
    example: "string",
  }),
  required: BlockParamFields.shape.required.openapi({ description: "Whether a value must be given when the block is used.", example: true }),
  fallback: z
    .string()
    .max(10_000)
    .nullable()
    .openapi({ description: "Used when no (or an empty) value is given; may itself contain placeholders. Null: none.", example: null }),
  hide_if_missing: BlockParamFields.shape.hide_if_missing.openapi({
    description: "Without a value the block's outer element is left out of the mail.",
    example: false,
  }),
  example: z.string().max(10_000).openapi({ description: "Example value, used to render the block's tile.", example: "Our spring news" }),
}).openapi("MailBlockParam");

const MailBlockTag = TagFields.extend({
  slug: slug.openapi({ description: "Stable key that logic uses. `header` and `footer` are built in (labels `Header`, `Footer`).", example: "header" }),
  label: z.string().trim().min(1).max(100).openapi({ description: "Display label, 1–100 characters.", example: "Header" }),
}).openapi("MailBlockTag");

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

export const MailBlock = BlockFields.omit({ tile_url: true })
  .extend({
    id: BlockFields.shape.id.openapi({ description: "Immutable block id; stacks reference blocks by it, never by slug.", example: blockId }),
    slug: BlockFields.shape.slug.openapi({ description: "Human-readable key; may change and need not be unique.", example: "heading" }),
    name: BlockFields.shape.name.openapi({ description: "Display name.", example: "Heading" }),
    description: BlockFields.shape.description.openapi({
      description: "What the block is for; null when none.",
      example: "A main heading with an optional subtitle.",
    }),
    mjml: z.string().openapi({
      description:
        "Body-level MJML (one or more `mj-section`/`mj-wrapper`) with `{{param}}` placeholders, `{{#param}}…{{/param}}` sections, `{{token.<key>}}` design tokens and `{{brand.<key>}}` brand values.",
      example: "<mj-section><mj-column><mj-text><h1>{{title}}</h1>{{#subtitle}}<p>{{subtitle}}</p>{{/subtitle}}</mj-text></mj-column></mj-section>",
    }),
    params: z.array(MailBlockParam).openapi({ description: "Parameter schema of the block." }),
    tags: z.array(MailBlockTag).openapi({ description: "Categories; a block tagged `footer` never appears in a stack (footers come from the frame)." }),
    series: orNull(MailBlockTag).openapi({ description: "At most one series, for grouping in the builder; null when none." }),
    version: BlockFields.shape.version.openapi({
      description: "Starts at 1 and is bumped by every change (tiles and compiled templates follow it).",
      example: 1,
    }),
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

export const BlockIdParam = idPathParam("Block id.", blockId);

export const CustomerBlockParams = CustomerIdParam.extend({
  blockId: z.uuid().openapi({ param: { name: "blockId", in: "path" }, description: "Block id.", example: blockId }),
});

export type MailBlockResponse = z.infer<typeof MailBlock>;
export type MailEnabledBlockResponse = z.infer<typeof MailEnabledBlock>;

export function toMailBlockView(row: BlockRow): MailBlockResponse {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    description: row.description ?? null,
    mjml: row.mjml,
    params: row.params,
    tags: row.tags,
    series: row.series ?? null,
    version: row.version,
    active: row.active,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export const tags = ["Mail blocks"];

/** The global block library and its enablement per customer. */
