import { z } from "@hono/zod-openapi";
import { GUARD_BOUNDS } from "../../../mail";

export const tags = ["Mail deliverability"];

const Thresholds = z
  .object({
    bounce_rate: z.number().openapi({
      description:
        "Hard-bounce rate (fraction of outcomes) strictly above which a job is paused. Default 0.05 (5 %): half the roughly 10 % at which Postmark reviews an account, so one job cannot bring the shared account there alone.",
      example: 0.05,
    }),
    complaint_rate: z.number().openapi({
      description:
        "Spam-complaint rate (fraction of outcomes) strictly above which a job is paused. Default 0.001 (0.1 %): Postmark's review level and Gmail's \"below 0.10 %\" for bulk senders.",
      example: 0.001,
    }),
    min_sample: z
      .number()
      .int()
      .openapi({ description: "Outcomes (delivered or bounced) a job's sample needs before the guard judges it. Default 500 (one batch).", example: 500 }),
  })
  .openapi("ReputationGuardThresholds");

const KindFigures = z.object({
  delivered: z.number().int().openapi({ description: "Messages delivered.", example: 9_870 }),
  outcomes: z.number().int().openapi({ description: "Messages delivered or bounced: the rates' denominator.", example: 10_000 }),
  hard_bounces: z.number().int().openapi({ description: "Messages that bounced for good (HardBounce, or Postmark deactivated the address).", example: 130 }),
  complaints: z.number().int().openapi({ description: "Messages marked as spam.", example: 4 }),
  hard_bounce_rate: z.number().openapi({ description: "hard_bounces / outcomes (0 without outcomes).", example: 0.013 }),
  complaint_rate: z.number().openapi({ description: "complaints / outcomes (0 without outcomes).", example: 0.0004 }),
});

export const Reputation = z
  .object({
    since: z
      .string()
      .openapi({ description: "Start of the 30-day window (ISO 8601); messages accepted since then, live mode only.", example: "2026-02-08T09:00:00.000Z" }),
    newsletter: KindFigures.extend({
      unsubscribes: z.number().int().openapi({ description: "Recipients who used the unsubscribe link in the window.", example: 25 }),
    }).openapi({ description: "Newsletters (send jobs): what the reputation guard judges." }),
    transactional: KindFigures.openapi({ description: "Transactional mail, shown apart: one-to-one and never paused by the guard." }),
    thresholds: Thresholds.openapi({ description: "The thresholds in force for this customer." }),
    defaults: Thresholds.openapi({
      description:
        "The service's defaults: `bounce_rate` 0.05, `complaint_rate` 0.001, `min_sample` 500 (sources in docs/provider-facts.md, reasons in docs/adr/0051-reputation-guard.md).",
    }),
    over_complaint_threshold: z.boolean().openapi({
      description: "Whether the newsletter complaint rate of the window is above the complaint threshold; readiness then warns (`complaint_rate`).",
      example: false,
    }),
    paused_jobs: z.number().int().openapi({ description: "The customer's jobs the guard has paused and nobody resumed or cancelled yet.", example: 0 }),
  })
  .openapi("MailReputation");

const bounded = (key: keyof typeof GUARD_BOUNDS, description: string, example: number) => {
  const { min, max } = GUARD_BOUNDS[key];
  return z
    .number()
    .min(min)
    .max(max)
    .optional()
    .openapi({ description: `${description} Between ${min} and ${max}.`, example });
};

export const UpdateReputationGuard = z
  .object({
    bounce_rate: bounded("bounce_rate", "Hard-bounce rate threshold (fraction; default 0.05).", 0.03),
    complaint_rate: bounded("complaint_rate", 'Spam-complaint rate threshold (fraction; default 0.001; Gmail\'s "never reach 0.30 %" is the ceiling).', 0.002),
    min_sample: z
      .number()
      .int()
      .min(GUARD_BOUNDS.min_sample.min)
      .max(GUARD_BOUNDS.min_sample.max)
      .optional()
      .openapi({
        description: `Minimum sample of outcomes (default 500). Between ${GUARD_BOUNDS.min_sample.min} and ${GUARD_BOUNDS.min_sample.max}.`,
        example: 500,
      }),
    reset: z.literal(true).optional().openapi({ description: "True: back to the defaults (the other fields must be absent).", example: true }),
  })
  .strict()
  .refine((v) => Object.keys(v).length > 0, "Send at least one field to change.")
  .refine((v) => !v.reset || Object.keys(v).length === 1, "`reset` goes alone.")
  .openapi("UpdateReputationGuard");
