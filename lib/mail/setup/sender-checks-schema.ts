import { z } from "@hono/zod-openapi";

/** The operator's view of what Postmark's Account API said about a customer's senders and domains. */

const DnsRecordView = z
  .object({
    purpose: z.enum(["dkim", "return_path", "spf", "dmarc"]).openapi({
      description:
        "What the record is for. `dkim` and `return_path` are Postmark's pending records (from the Domains API); `dmarc` is our recommendation, listed for every domain because Postmark's Account API does not report DMARC.",
      example: "dkim",
    }),
    host: z.string().openapi({ description: "The DNS name to publish at.", example: "20260101000000pm._domainkey.acme.example" }),
    type: z.enum(["TXT", "CNAME"]).openapi({ description: "Record type.", example: "TXT" }),
    value: z.string().openapi({ description: "The record's value.", example: "k=rsa;p=MIGfMA0GCSqGSIb3DQEBAQUAA4GN…" }),
  })
  .openapi("MailDnsRecord");

const SenderCheck = z
  .object({
    email: z.string().openapi({ description: "Sender address (lower-case).", example: "news@acme.example" }),
    found_at_postmark: z.boolean().openapi({ description: "Whether the Postmark account has a sender signature for this address.", example: true }),
    signature_confirmed: z.boolean().openapi({ description: "The sender signature's `Confirmed` at Postmark.", example: false }),
    confirmed: z.boolean().openapi({
      description: "Whether Postmark lets this address send: its signature is confirmed, or its domain has DKIM verified. Readiness is green only when true.",
      example: true,
    }),
    checked_at: z.string().openapi({ description: "When Postmark was asked (ISO 8601).", example: "2026-03-10T09:00:00.000Z" }),
  })
  .openapi("MailSenderCheck");

const DomainCheck = z
  .object({
    domain: z.string().openapi({ description: "Sender domain (lower-case).", example: "acme.example" }),
    found_at_postmark: z.boolean().openapi({ description: "Whether the Postmark account has this domain.", example: true }),
    dkim_verified: z.boolean().openapi({ description: "Postmark's `DKIMVerified`.", example: false }),
    return_path_verified: z
      .boolean()
      .openapi({ description: "Postmark's `ReturnPathDomainVerified`; false gives a readiness warning (bounces not aligned for DMARC).", example: false }),
    spf_verified: z.boolean().openapi({ description: "Postmark's `SPFVerified` (no longer required by Postmark; informational).", example: true }),
    dns_records: z.array(DnsRecordView).openapi({ description: "The records still to publish, and the recommended DMARC record." }),
    checked_at: z.string().openapi({ description: "When Postmark was asked (ISO 8601).", example: "2026-03-10T09:00:00.000Z" }),
  })
  .openapi("MailDomainCheck");

export const SenderChecks = z
  .object({
    account_token_set: z.boolean().openapi({
      description:
        "Whether a Postmark account token is stored for this customer. Without one nothing is checked and readiness warns `not checked with Postmark`.",
      example: true,
    }),
    checked_at: z
      .string()
      .nullable()
      .openapi({ description: "When Postmark was last asked (ISO 8601), whatever the answer; null when never.", example: "2026-03-10T09:00:00.000Z" }),
    error: z.string().nullable().openapi({
      description: "Why the last check could not read Postmark (the senders and domains below are then from the check before); null after a successful check.",
      example: null,
    }),
    senders: z.array(SenderCheck).openapi({ description: "Each configured sender address and default sender, as Postmark last reported it." }),
    domains: z.array(DomainCheck).openapi({ description: "Each configured domain and the domain of each sender, as Postmark last reported it." }),
  })
  .openapi("MailSenderChecks");

export type SenderChecksResponse = z.infer<typeof SenderChecks>;
