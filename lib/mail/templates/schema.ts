import { z } from "@hono/zod-openapi";
import { blockParamTypes, templateKinds, templateOrigins, templateStatuses } from "../../db/schema";
import { uuidExample } from "../fields";

/**
 * One placeholder value of a template (a block value or a global value): at most 100,000 characters, in
 * the customer API and the admin API alike (422 above). Big enough for any text block, small enough that a
 * stack of 100 blocks stays far below the 4.5 MB request limit.
 */
export const TEMPLATE_VALUE_MAX = 100_000;
const TemplateValue = z.string().max(TEMPLATE_VALUE_MAX);

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

/** The fields of a contract parameter; `TemplateParam` here, `MailTemplateParam` in the admin API. */
export const ContractEntryFields = z.object({
  name: z.string().openapi({ description: "Parameter name.", example: "order_number" }),
  label: z.string().openapi({ description: "Label.", example: "Order number" }),
  type: z.enum(blockParamTypes).openapi({ description: "`string`, `text`, `url` or `image`.", example: "string" }),
  required: z.boolean().openapi({ description: "Whether a send must give it.", example: true }),
  example: z.string().openapi({ description: "Example value.", example: "A-10023" }),
});

const ContractEntry = ContractEntryFields.openapi("TemplateParam");

/** The fields of a sender; `Sender` here, `MailSender` (with the limits the operator must keep) in the admin API. */
export const SenderFields = z.object({
  email: z.email().openapi({ description: "Sender address.", example: "news@example.com" }),
  name: z.string().openapi({ description: "Sender name.", example: "Example GmbH" }),
});

const Sender = SenderFields.openapi("Sender");

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
