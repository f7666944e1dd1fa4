import { z } from "@hono/zod-openapi";
import { AD_NAME_TOKENS, AD_SET_NAME_TOKENS, patternProblems } from "../../../../ads/naming";

const pattern = (tokens: readonly string[], description: string, example: string) =>
  z
    .string()
    .min(1)
    .max(200)
    .superRefine((value, ctx) => {
      for (const message of patternProblems(value, tokens)) ctx.addIssue({ code: "custom", message });
    })
    .openapi({ description, example });

export const AdsNaming = z
  .object({
    adset_pattern: z.string().openapi({ description: "Pattern of ad set names.", example: "{target}-{date}-{seq}" }),
    ad_pattern: z.string().openapi({ description: "Pattern of ad names (when the customer gives none).", example: "{adset}-ad{seq}" }),
    adset_pattern_is_default: z.boolean().openapi({ description: "Whether the default ad set pattern applies.", example: true }),
    ad_pattern_is_default: z.boolean().openapi({ description: "Whether the default ad pattern applies.", example: true }),
  })
  .openapi("AdsNaming");

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
