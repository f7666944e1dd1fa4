import { z } from "@hono/zod-openapi";
import { adsAccountStates, adsStages } from "../../db/schema/index";

const stage = (description: string) => z.enum(adsStages).openapi({ description, example: "growth" });
const cents = (description: string, example: number | null) =>
  z
    .number()
    .int()
    .openapi({ description, example: example ?? 0 });
const day = (description: string, example: string) => z.string().openapi({ description, example });

export const Plan = z
  .object({
    state: z
      .enum(adsAccountStates)
      .openapi({ description: "Contract state. Anything but `active` answers writes with 402 `payment_required`.", example: "active" }),
    stage: stage(
      "Stage of the running cycle: the higher of `selected_stage` and the stage the cycle's real spend reaches (it follows spend retroactively for the whole cycle).",
    ),
    selected_stage: stage("Stage chosen (by upgrade or downgrade, else set by the operator)."),
    stage_reason: z
      .enum(["selection", "spend"])
      .openapi({ description: "Why `stage` is what it is: the selection, or spend above the selection's included spend.", example: "spend" }),
    cycle: z
      .object({ start: day("First day of the running cycle (a calendar month, UTC).", "2026-01-01"), end: day("Last day of the running cycle.", "2026-01-31") })
      .openapi({ description: "The running billing cycle." }),
    currency: z.literal("EUR").openapi({ description: "Currency of every amount of the plan.", example: "EUR" }),
    base_fee_cents: cents("Base fee of `stage` per cycle, EUR cents (Starter 14,900; Growth 29,900; Scale 59,900; Enterprise from 150,000).", 29900),
    media_fee_percent: z.number().openapi({ description: "Media fee of `stage` in percent of the spend (5, 4, 3; Enterprise 1–2).", example: 4 }),
    inclusions: z
      .object({
        ads: z.number().int().nullable().openapi({
          description: "Ads that may be published per cycle (5, 25, 100; Enterprise as agreed, null = no cap). More answer 402 `quota_exceeded`.",
          example: 25,
        }),
        spend_cents: z.number().int().nullable().openapi({
          description:
            "Spend the stage covers per cycle in EUR cents (250,000; 1,000,000; 5,000,000; Enterprise null); spend above it moves the cycle to the next stage.",
          example: 1000000,
        }),
      })
      .openapi({ description: "What `stage` includes per cycle." }),
    expected_fee_cents: cents(
      "Fee expected for the running cycle in EUR cents: base fee plus media fee on the spend projected to the cycle's end, at the stage that projection reaches.",
      34120,
    ),
    scheduled_change: z
      .object({ stage: stage("Stage selected from the next cycle."), effective_from: day("First day it applies.", "2026-02-01") })
      .nullable()
      .openapi({ description: "A downgrade waiting for the next cycle; null when none." }),
  })
  .openapi("Plan");

export const PlanUsage = z
  .object({
    cycle: z
      .object({
        start: day("First day of the running cycle.", "2026-01-01"),
        end: day("Last day of the running cycle.", "2026-01-31"),
        days: z.number().int().openapi({ description: "Days in the cycle.", example: 31 }),
        elapsed_days: z.number().int().openapi({ description: "Days of the cycle up to and including today (UTC).", example: 15 }),
      })
      .openapi({ description: "The running cycle." }),
    state: Plan.shape.state,
    stage: Plan.shape.stage,
    currency: Plan.shape.currency,
    ads: z
      .object({
        published: z
          .number()
          .int()
          .openapi({ description: "Ads published this cycle through the API (archived ones included) plus those being published now.", example: 6 }),
        included: z.number().int().nullable().openapi({ description: "Ads included in the stage; null = no cap.", example: 25 }),
        remaining: z.number().int().nullable().openapi({ description: "Ads that can still be published this cycle; null = no cap.", example: 19 }),
      })
      .openapi({ description: "Published ads of the cycle." }),
    spend: z
      .object({
        spend_cents: cents("Spend of the cycle so far from the daily snapshots (days of the ad account's time zone within the month), cents.", 312550),
        included_cents: z.number().int().nullable().openapi({ description: "Spend the stage covers; null = no cap.", example: 1000000 }),
        projected_cents: cents(
          "Spend expected by the cycle's end: the spend so far spread over the elapsed days, for the whole cycle (a deactivated account: the spend so far).",
          645937,
        ),
      })
      .openapi({ description: "Media spend of the cycle." }),
    fee_to_date_cents: cents("Fee for the spend so far at the current stage, EUR cents.", 42402),
    expected_stage: stage("Stage the projected spend reaches."),
    expected_fee_cents: cents("Fee expected for the whole cycle, EUR cents.", 55737),
  })
  .openapi("PlanUsage");

export const ChangeStage = z
  .strictObject({
    stage: z.enum(["starter", "growth", "scale"]).optional().openapi({
      description:
        "Stage to select. Omitted: the next stage above the running cycle's. Higher than the running stage: applies at once to the running cycle. Lower than the selected stage: a downgrade from the next cycle. Enterprise is agreed with the operator.",
      example: "growth",
    }),
  })
  .openapi("ChangeStage");

export const StageChange = z
  .object({
    change: z.enum(["upgraded", "downgrade_scheduled", "unchanged"]).openapi({ description: "What happened.", example: "upgraded" }),
    effective_from: day("First day the selection applies (the running cycle's start for an upgrade, the next cycle's for a downgrade).", "2026-01-01"),
    plan: Plan,
  })
  .openapi("StageChange");

export const Deactivation = z
  .object({
    state: z.literal("deactivated").openapi({ description: "The new contract state.", example: "deactivated" }),
    deactivated_at: z.string().openapi({ description: "When (ISO 8601).", example: "2026-01-15T10:00:00.000Z" }),
    fee_cents: z.literal(0).openapi({ description: "What deactivating costs: nothing (EUR cents).", example: 0 }),
    plan: Plan,
  })
  .openapi("Deactivation");
