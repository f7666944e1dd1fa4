import { z } from "@hono/zod-openapi";
import { AD_NAME_TOKENS, AD_SET_NAME_TOKENS, patternProblems } from "../../../ads";

const pattern = (tokens: readonly string[], description: string, example: string) =>
  z
    .string()
    .min(1)
    .max(200)
    .superRefine((value, ctx) => {
      for (const message of patternProblems(value, tokens)) ctx.addIssue({ code: "custom", message });
    })
    .openapi({ description, example });

export const UpdateAdsNaming = z
  .strictObject({
    adset_pattern: pattern(
      AD_SET_NAME_TOKENS,
      "Tokens {target}, {date} (UTC, YYYYMMDD), {seq} (required); null restores the default `{target}-{date}-{seq}`.",
      "{target}-{date}-{seq}",
    )
      .nullable()
      .optional(),
    ad_pattern: pattern(AD_NAME_TOKENS, "Tokens {adset}, {target}, {date}, {seq} (required); null restores the default `{adset}-ad{seq}`.", "{adset}-ad{seq}")
      .nullable()
      .optional(),
  })
  .openapi("UpdateAdsNaming");
