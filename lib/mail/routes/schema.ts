import { z } from "@hono/zod-openapi";
import { defaultDesignTokens } from "../render/tokens";

const uuidExample = "7b1c9a4e-2f0d-4e8b-9c3a-5d6e7f8a9b0c";

export const BlockParam = z
  .object({
    name: z.string().openapi({ description: "Placeholder name used in the block (`{{name}}`).", example: "title" }),
    label: z.string().openapi({ description: "Label for the builder UI.", example: "Title" }),
    type: z
      .string()
      .openapi({ description: "`string`, `text` (line breaks kept), `url` or `image` (absolute https URL, e.g. an asset URL).", example: "string" }),
    required: z.boolean().openapi({ description: "Whether a value must be given.", example: true }),
    fallback: z.string().nullable().openapi({ description: "Used when no value is given.", example: null }),
    hide_if_missing: z.boolean().openapi({ description: "Without a value the block's element is left out.", example: false }),
    example: z.string().openapi({ description: "Example value (used in tiles).", example: "Our spring news" }),
  })
  .openapi("BlockParam");

export const Tag = z
  .object({
    slug: z.string().openapi({ description: "Stable key; logic uses it. `header` and `footer` are built in.", example: "header" }),
    label: z.string().openapi({ description: "Display label.", example: "Header" }),
  })
  .openapi("BlockTag");

export const Block = z
  .object({
    id: z.uuid().openapi({ description: "Immutable block id; stacks reference blocks by it.", example: uuidExample }),
    slug: z.string().openapi({ description: "Human-readable label; may change.", example: "heading" }),
    name: z.string().openapi({ description: "Display name.", example: "Heading" }),
    tags: z.array(Tag).openapi({ description: "Categories." }),
    series: z
      .object({
        slug: z.string().openapi({ description: "Series key.", example: "classic" }),
        label: z.string().openapi({ description: "Series label.", example: "Classic" }),
      })
      .nullable()
      .openapi({ description: "At most one series, for grouping only; a stack may mix series.", example: { slug: "classic", label: "Classic" } }),
    description: z.string().nullable().openapi({ description: "What the block is for.", example: "A large heading." }),
    version: z.number().int().openapi({ description: "Bumped on every change of the block.", example: 3 }),
    params: z.array(BlockParam).openapi({ description: "Parameter schema." }),
    tile_url: z.string().openapi({ description: "Path of the block's tile (GET, same key).", example: `/mail/v1/blocks/${uuidExample}/tile` }),
  })
  .openapi("Block");

export const Tile = z
  .object({
    block_id: z.uuid().openapi({ description: "The block.", example: uuidExample }),
    slug: z.string().openapi({ description: "The block's slug.", example: "heading" }),
    html: z.string().nullable().openapi({
      description: "Complete HTML document for an iframe `srcdoc`; null when the block cannot render with its examples.",
      example: "<!doctype html>…",
    }),
  })
  .openapi("BlockTile");

export const DesignTokens = z.record(z.string(), z.string()).openapi("DesignTokens", {
  description:
    "Resolved render values (all strings, sizes in px): the customer's overrides over complete defaults. Keys: " +
    Object.keys(defaultDesignTokens).join(", ") +
    ". Besides the spec's keys there are status colours (`color_success`, `color_warning`, `color_danger`, `color_info`) and component tokens (buttons, headings, dividers, images).",
  example: { ...defaultDesignTokens },
});

/**
 * One placeholder value of a template (a block value or a global value): at most 100,000 characters, in
 * the customer API and the admin API alike (422 above). Big enough for any text block, small enough that a
 * stack of 100 blocks stays far below the 4.5 MB request limit.
 */
export const TEMPLATE_VALUE_MAX = 100_000;
const TemplateValue = z.string().max(TEMPLATE_VALUE_MAX);

export const templateKinds = ["transactional", "newsletter"] as const;
export const templateOrigins = ["admin", "customer"] as const;
export const templateStatuses = ["draft", "active", "archived"] as const;

export const Values = z
  .record(z.string(), TemplateValue)
  .openapi({ description: "Placeholder values, name → string.", example: { title: "Spring sale", first_name: "{{first_name}}" } });

/** The fields of a block reference; `BlockReference` here, `MailBlockReference` in the admin API. */
export const BlockReferenceFields = z.object({
  block_id: z.uuid().openapi({ description: "Id of an enabled, active block.", example: uuidExample }),
  values: z
    .record(z.string(), TemplateValue)
    .default({})
    .openapi({
      description: "Values of the block's parameters; may contain `{{placeholder}}` filled per recipient.",
      example: { title: "Hello {{first_name}}" },
    }),
});

export const BlockReference = BlockReferenceFields.openapi("BlockReference");

export const PreviewRequest = z
  .object({
    blocks: z.array(BlockReference).min(1).max(100).openapi({ description: "The stack, 1–100 blocks." }),
    values: Values.optional().openapi({ description: "Global values merged into and overriding the block values." }),
  })
  .openapi("PreviewRequest");

export const RenderError = z
  .object({
    line: z.number().int().nullable().openapi({ description: "Line in `mjml`.", example: 12 }),
    message: z.string().openapi({ description: "What MJML reported.", example: "mj-column cannot be used inside mj-body" }),
    tagName: z.string().nullable().openapi({ description: "The MJML tag concerned.", example: "mj-column" }),
  })
  .openapi("RenderError");

export const Preview = z
  .object({
    mjml: z.string().openapi({ description: "The MJML document that was compiled.", example: "<mjml>…</mjml>" }),
    html: z.string().openapi({ description: "Compiled responsive HTML.", example: "<!doctype html>…" }),
    errors: z.array(RenderError).openapi({ description: "MJML findings; empty when clean." }),
    stub: z.boolean().openapi({ description: "Always false: this is the real renderer.", example: false }),
  })
  .openapi("Preview");

export const ContractEntry = z
  .object({
    name: z.string().openapi({ description: "Parameter name.", example: "order_number" }),
    label: z.string().openapi({ description: "Label.", example: "Order number" }),
    type: z.string().openapi({ description: "`string`, `text`, `url` or `image`.", example: "string" }),
    required: z.boolean().openapi({ description: "Whether a send must give it.", example: true }),
    example: z.string().openapi({ description: "Example value.", example: "A-10023" }),
  })
  .openapi("TemplateParam");

export const Sender = z
  .object({
    email: z.email().openapi({ description: "Sender address.", example: "news@example.com" }),
    name: z.string().openapi({ description: "Sender name.", example: "Example GmbH" }),
  })
  .openapi("Sender");

/** The fields of a template; `Template` here, `MailTemplate` (with the contract's own schema) in the admin API. */
export const TemplateFields = z.object({
  id: z.uuid().openapi({ description: "Template id.", example: uuidExample }),
  name: z.string().openapi({ description: "Name.", example: "Spring newsletter" }),
  kind: z.enum(templateKinds).openapi({ description: "Transactional (sent singly) or newsletter (send jobs).", example: "newsletter" }),
  origin: z.enum(templateOrigins).openapi({
    description: "`admin`: built by an administrator, with a parameter contract, read-only here. `customer`: saved through this API.",
    example: "customer",
  }),
  subject: z.string().openapi({ description: "Subject; may contain `{{placeholder}}`.", example: "News for {{first_name}}" }),
  status: z.enum(templateStatuses).openapi({ description: "Only `active` templates can be sent.", example: "active" }),
  params: z.array(ContractEntry).openapi({ description: "Parameter contract (admin templates); empty for builder templates." }),
  blocks: z.array(BlockReference).nullable().openapi({ description: "The stack (block references)." }),
  values: Values.openapi({ description: "Global values saved with the stack." }),
  from: Sender.nullable().openapi({ description: "Sender exception of the template, else the account default." }),
  version: z.number().int().openapi({ description: "Bumped on every change.", example: 1 }),
  created_at: z.string().openapi({ description: "ISO 8601.", example: "2026-03-01T10:00:00.000Z" }),
  updated_at: z.string().openapi({ description: "ISO 8601.", example: "2026-03-01T10:00:00.000Z" }),
});

export const Template = TemplateFields.openapi("Template");

export type TemplateResponse = z.infer<typeof Template>;

/** What a template is created from; the admin API's `CreateMailTemplate` extends it. */
export const CreateTemplateFields = z.object({
  name: z.string().trim().min(1).max(200).openapi({ description: "Name, 1–200 characters.", example: "Spring newsletter" }),
  subject: z.string().min(1).max(500).openapi({ description: "Subject, may contain `{{placeholder}}`.", example: "News for {{first_name}}" }),
  blocks: z
    .array(BlockReference)
    .min(1)
    .max(100)
    .openapi({ description: "The builder stack without footer blocks (the footer comes from the account's frame)." }),
  values: Values.optional().openapi({ description: "Global values saved with the stack." }),
  status: z.enum(["draft", "active"]).optional().openapi({ description: "Default `active`.", example: "active" }),
});

export const CreateTemplate = CreateTemplateFields.openapi("CreateTemplate");

export const UpdateTemplate = z
  .object({
    name: CreateTemplate.shape.name.optional(),
    subject: CreateTemplate.shape.subject.optional(),
    blocks: CreateTemplate.shape.blocks.optional(),
    values: Values.optional().openapi({ description: "Global values saved with the stack." }),
    status: z.enum(templateStatuses).optional().openapi({ description: "New status.", example: "archived" }),
  })
  .strict()
  .openapi("UpdateTemplate");

export const SendRequest = z
  .object({
    to: z.string().min(1).max(1000).openapi({
      description: "Recipient address (RFC 5322, e.g. `Jane <jane@example.com>`). An unparsable address yields status `invalid` without a provider call.",
      example: "jane@example.com",
    }),
    params: z
      .record(z.string(), z.string())
      .default({})
      .openapi({ description: "Values of the template's parameters; image parameters take a URL.", example: { order_number: "A-10023" } }),
  })
  .openapi("SendRequest");

export const SendResult = z
  .object({
    message_id: z.uuid().openapi({ description: "Id of the message; store it and read its status later.", example: uuidExample }),
    status: z.enum(["accepted", "suppressed", "invalid"]).openapi({ description: "Result of the send.", example: "accepted" }),
  })
  .openapi("SendResult");

export const MessageEvent = z
  .object({
    type: z.string().openapi({ description: "`accepted`, `delivered`, `bounced`, `complained`, `opened`, `clicked`, …", example: "delivered" }),
    at: z.string().openapi({ description: "ISO 8601.", example: "2026-03-01T10:00:03.000Z" }),
    details: z.record(z.string(), z.unknown()).openapi({ description: "Event details (no recipient address).", example: {} }),
  })
  .openapi("MessageEvent");

const ts = (description: string) => z.string().nullable().openapi({ description, example: null });

export const Message = z
  .object({
    id: z.uuid().openapi({ description: "The message id.", example: uuidExample }),
    kind: z.enum(["transactional", "newsletter"]).openapi({ description: "Kind of mail.", example: "transactional" }),
    mode: z.enum(["live", "sandbox"]).openapi({ description: "Sandbox mails are accepted but not delivered or counted.", example: "live" }),
    status: z.enum(["pending", "accepted", "delivered", "bounced", "complained", "suppressed", "invalid", "failed", "unknown"]).openapi({
      description: "State; `unknown` when the provider's answer was lost (never re-sent; corrected by a later provider event).",
      example: "accepted",
    }),
    template_id: z.uuid().openapi({ description: "Template it was sent from.", example: uuidExample }),
    send_job_id: z.uuid().nullable().openapi({ description: "Send job, null for transactional mail.", example: null }),
    subject: z.string().openapi({ description: "Subject as sent.", example: "Your order A-10023" }),
    bounce_type: z.string().nullable().openapi({ description: "Provider bounce type, e.g. `HardBounce`.", example: null }),
    error: z.string().nullable().openapi({ description: "Why the provider did not accept it.", example: null }),
    created_at: z.string().openapi({ description: "ISO 8601.", example: "2026-03-01T10:00:00.000Z" }),
    delivered_at: ts("ISO 8601 or null."),
    first_opened_at: ts("ISO 8601 or null (newsletters only)."),
    first_clicked_at: ts("ISO 8601 or null (newsletters only)."),
    bounced_at: ts("ISO 8601 or null."),
    complained_at: ts("ISO 8601 or null."),
    events: z.array(MessageEvent).openapi({ description: "History, kept 90 days." }),
  })
  .openapi("Message");

export const IdParam = z.object({
  id: z.uuid().openapi({ param: { name: "id", in: "path" }, description: "Resource id (UUID).", example: uuidExample }),
});
