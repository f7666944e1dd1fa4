import { z } from "@hono/zod-openapi";
import { templateKinds, templateStatuses } from "../../../db/schema";
import { BlockReferenceFields, ContractEntryFields, CreateTemplateFields, TemplateFields, Values } from "../../../mail";
import { MailSender } from "../../../mail";
import {
  atLeastOneField,
  atLeastOneFieldMessage,
  blockId,
  checkUniqueNames,
  checkUrlValues,
  isoExample,
  orNull,
  parameterName,
  redescribed,
  templateId,
} from "../fields";
import { CustomerIdParam } from "../../customers/schema";

const MailTemplateParam = ContractEntryFields.extend({
  name: parameterName.openapi({ description: "Parameter name; the template text refers to it as `{{name}}`.", example: "order_number" }),
  label: z.string().trim().min(1).max(200).openapi({ description: "Label, 1–200 characters.", example: "Order number" }),
  type: ContractEntryFields.shape.type.openapi({ description: "`string`, `text`, `url` or `image` (image parameters take a URL).", example: "string" }),
  required: ContractEntryFields.shape.required.openapi({ description: "Whether every send must give a non-empty value.", example: true }),
  example: z.string().max(10_000).openapi({ description: "Example value for documentation and previews.", example: "A-10023" }),
}).openapi("MailTemplateParam");

const contract = z
  .array(MailTemplateParam)
  .max(100)
  .superRefine((entries, ctx) => {
    checkUniqueNames(entries, ctx, "parameter");
    checkUrlValues(entries, ctx);
  });

/*
 * The admin view of the mail service's Template (lib/mail/templates/schema.ts): the same fields, types and
 * limits (a value is capped at 100,000 characters in both APIs), described for the operator, plus what
 * only the operator sets (kind, parameter contract, sender).
 */

const MailBlockReference = BlockReferenceFields.extend({
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
  ...redescribed(TemplateFields.shape, {
    id: { description: "Template id.", example: templateId },
    name: { description: "Name.", example: "Order confirmation" },
    kind: { description: "`transactional` (sent singly) or `newsletter` (send jobs).", example: "transactional" },
    origin: {
      description: "`admin`: maintained here, with a parameter contract, read-only for the customer. `customer`: saved by the customer's builder.",
      example: "admin",
    },
    subject: { description: "Subject; may contain `{{placeholder}}`.", example: "Your order {{order_number}}" },
    version: { description: "Starts at 1; bumped by every change.", example: 1 },
    created_at: { description: "ISO 8601 creation time.", example: isoExample },
    updated_at: { description: "ISO 8601 time of the last change.", example: isoExample },
  }),
  // What only the operator's view types differently: the contract's own schema, the described references and values, the sender with its limits.
  params: z.array(MailTemplateParam).openapi({ description: "Parameter contract; empty for builder templates." }),
  blocks: z.array(MailBlockReference).nullable().openapi({ description: "The stack of block references." }),
  values: templateValues,
  from: orNull(MailSender).openapi({ description: "Sender of this template; null: the customer's default for the kind." }),
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

export const CustomerTemplateParams = CustomerIdParam.extend({
  templateId: z.uuid().openapi({ param: { name: "templateId", in: "path" }, description: "Template id.", example: templateId }),
});

export const tags = ["Mail templates"];

export const stackRule =
  "The stack may reference only blocks enabled and active for the customer (403 `forbidden` with `details.block_ids` otherwise, the same answer the customer API gives) and no block tagged `footer` (422: the footer comes from the frame).";
