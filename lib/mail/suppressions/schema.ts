import { z } from "@hono/zod-openapi";
import { cursorQuery, limitQuery } from "../../core/pagination";
import { mailStreams, suppressionReasons } from "../../db/schema";

/** Wide on purpose: the feed echoes whatever Postmark holds, and a caller must be able to send it back. */
const Address = z
  .string()
  .trim()
  .min(3)
  .max(320)
  .regex(/^[^@\s]+@[^@\s]+$/, "Must be an e-mail address.");

const StreamParam = z
  .enum(mailStreams)
  .default("newsletter")
  .openapi({ description: "`newsletter` (the broadcast stream, default) or `transactional`.", example: "newsletter" });
const Reason = z.enum(suppressionReasons);

export const SuppressionEntry = z
  .object({
    email: z.string().openapi({ description: "The address, lower-cased, in plain text.", example: "jane@example.com" }),
    stream: z.enum(mailStreams).openapi({ description: "Suppressions apply per stream.", example: "newsletter" }),
    active: z.boolean().openapi({ description: "True: suppressed. False: lifted (apply it too: the address may be mailed again).", example: true }),
    reason: Reason.openapi({
      description:
        "`unsubscribe` (the unsubscribe link, or a manual suppression in Postmark), `hard_bounce` or `spam_complaint`. A lifted entry keeps the reason it had.",
      example: "unsubscribe",
    }),
    reactivatable: z.boolean().openapi({
      description:
        "Whether POST /v1/suppressions/reactivate can lift it: true for active unsubscribes and hard bounces, always false for spam complaints and lifted entries.",
      example: true,
    }),
    changed_at: z.string().openapi({
      description: "ISO 8601 with milliseconds; when the mirror recorded this state. Strictly increasing within a feed.",
      example: "2026-03-01T10:00:00.000Z",
    }),
  })
  .openapi("SuppressionEntry");

export const FeedQuery = z.object({
  since: z.iso.datetime({ offset: true }).openapi({
    description: "ISO 8601; entries with `changed_at` at or after it (inclusive). Pass the last entry's `changed_at` next time.",
    example: "2026-03-01T00:00:00.000Z",
  }),
  stream: StreamParam,
  limit: limitQuery(500, 100),
  ...cursorQuery,
});

export const LookupRequest = z
  .object({
    emails: z
      .array(Address)
      .min(1)
      .max(500)
      .openapi({ description: "1–500 addresses; more answer 422.", example: ["jane@example.com", "max@example.com"] }),
    stream: StreamParam,
  })
  .openapi("SuppressionLookupRequest");

export const LookupResult = z
  .object({
    email: z.string().openapi({ description: "The address as it was asked.", example: "jane@example.com" }),
    suppressed: z.boolean().openapi({ description: "Whether the address is suppressed on the stream.", example: true }),
    reason: Reason.optional().openapi({ description: "Only when suppressed.", example: "hard_bounce" }),
    reactivatable: z.boolean().optional().openapi({ description: "Only when suppressed; false for spam complaints.", example: true }),
    since: z
      .string()
      .optional()
      .openapi({ description: "Only when suppressed; ISO 8601 of the change that set the current state.", example: "2026-03-01T10:00:00.000Z" }),
  })
  .openapi("SuppressionLookupResult");

export const ReactivateRequest = z
  .object({
    email: Address.openapi({ description: "The address to lift; only after a new confirmed double opt-in.", example: "jane@example.com" }),
    stream: StreamParam,
  })
  .openapi("SuppressionReactivateRequest");

export const ReactivateResult = z
  .object({
    email: z.string().openapi({ description: "The address as it was given.", example: "jane@example.com" }),
    stream: z.enum(mailStreams).openapi({ description: "The stream.", example: "newsletter" }),
    reactivated: z.boolean().openapi({ description: "Always true: lifted now, or not suppressed in the first place.", example: true }),
  })
  .openapi("SuppressionReactivateResult");
