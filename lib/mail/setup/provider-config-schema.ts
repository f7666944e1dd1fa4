import { z } from "@hono/zod-openapi";
import { SenderFields } from "../templates/schema";

/**
 * The provider configuration's API shapes, owned by the mail service (its setup reads and writes them, and
 * imports from here, never the other way round); the admin API serves them under these names and extends
 * `MailProviderConfig` with its own fields (`MailProviderStatus`, `lib/admin/mail/provider/schema.ts`).
 */

/** The readiness items in the order they are reported (`readiness()` in provider-config.ts checks them). */
const readinessItems = [
  "server_token",
  "transactional_stream",
  "broadcast_stream",
  "verified_senders",
  "default_newsletter_from",
  "newsletter_footer",
  "transactional_footer",
  "postmark_check",
  "return_path",
  "complaint_rate",
] as const;

const orNull = <T extends z.ZodType>(schema: T) => z.union([schema, z.null()]);

export const MailSender = SenderFields.extend({
  email: SenderFields.shape.email
    .max(254)
    .openapi({ description: "Sender address; must be a verified sender or on a verified domain for readiness.", example: "news@acme.example" }),
  name: z.string().trim().min(1).max(200).openapi({ description: "Sender display name, 1–200 characters.", example: "Acme GmbH" }),
}).openapi("MailSender");

const streamId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,99}$/, "Must be a Postmark message stream id: lower-case letters, digits, - and _, at most 100 characters.");

export const MailProviderConfig = z
  .object({
    server_token_set: z
      .boolean()
      .openapi({ description: "Whether a Postmark server token is stored. The token itself is write-only and never returned.", example: true }),
    account_token_set: z.boolean().openapi({
      description:
        "Whether a Postmark account token is stored (write-only, never returned). With it the service reads the account's sender signatures and domains and readiness trusts only what Postmark confirms.",
      example: true,
    }),
    transactional_stream: z.string().nullable().openapi({ description: "Postmark transactional message stream id; null until set.", example: "outbound" }),
    broadcast_stream: z
      .string()
      .nullable()
      .openapi({ description: "Postmark broadcast message stream id (newsletters); null until set.", example: "broadcast" }),
    verified_senders: z.array(z.string()).openapi({ description: "Sender addresses verified at Postmark (lower-case).", example: ["news@acme.example"] }),
    verified_domains: z.array(z.string()).openapi({ description: "Sender domains verified at Postmark (lower-case).", example: ["acme.example"] }),
    default_newsletter_from: orNull(MailSender).openapi({ description: "Default sender of newsletters; null until set." }),
    default_transactional_from: orNull(MailSender).openapi({ description: "Default sender of transactional mails; null: the newsletter default applies." }),
    bulk_api_enabled: z.boolean().openapi({
      description:
        "Newsletter send jobs use Postmark's Bulk API (`POST /email/bulk`: the HTML once per request of up to 500 recipients, each with its own template model and metadata) instead of `/email/batch`. Switch it on only once Postmark support has enabled the Bulk API on the account; a request the Bulk API refuses as a whole falls back to `/email/batch` for that batch. Default false.",
      example: false,
    }),
  })
  .openapi("MailProviderConfig");

export const UpdateMailProviderConfig = z
  .object({
    server_token: z.string().trim().min(1).max(200).optional().openapi({
      description: "Postmark server token (write-only): encrypted at rest (AES-256-GCM), never returned or logged.",
      example: "b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e",
    }),
    account_token: z.string().trim().min(1).max(200).optional().openapi({
      description:
        "Postmark account token (write-only), for the Account API's sender signatures and domains: encrypted at rest like the server token, never returned or logged. Setting it (or changing the senders) checks the senders with Postmark at once.",
      example: "c3d4e5f6-a7b8-4c9d-0e1f-2a3b4c5d6e7f",
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
    bulk_api_enabled: z.boolean().optional().openapi({
      description:
        "Newsletter send jobs use Postmark's Bulk API (`POST /email/bulk`: the HTML once per request of up to 500 recipients, each with its own template model and metadata) instead of `/email/batch`. Switch it on only once Postmark support has enabled the Bulk API on the account; a request the Bulk API refuses as a whole falls back to `/email/batch` for that batch. Default false.",
      example: true,
    }),
  })
  .strict()
  .refine((value) => Object.keys(value).length > 0, "Send at least one field to change.")
  .openapi("UpdateMailProviderConfig");

const MailReadinessItem = z
  .object({
    item: z.enum(readinessItems).openapi({ description: "The checked item.", example: "server_token" }),
    status: z.enum(["green", "warning", "red"]).openapi({
      description:
        "`green`: in place; `warning`: sending works but deliverability is at risk (what to do in `message`); `red`: missing or invalid, sends are refused.",
      example: "green",
    }),
    message: z.string().openapi({ description: "`ok`, or what to do.", example: "ok" }),
  })
  .openapi("MailReadinessItem");

export const MailReadiness = z
  .object({
    ready: z.boolean().openapi({
      description:
        "True when no item is red (warnings do not block); sends of a customer that is not ready answer 403 naming the red items in `details.missing`.",
      example: false,
    }),
    items: z.array(MailReadinessItem).openapi({ description: "Every item, in a fixed order." }),
  })
  .openapi("MailReadiness");

export type MailProviderConfigResponse = z.infer<typeof MailProviderConfig>;
export type MailReadinessResponse = z.infer<typeof MailReadiness>;
