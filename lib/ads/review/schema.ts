import { z } from "@hono/zod-openapi";
import { adSetStatuses, adStatuses } from "../../db/schema";
import { cursorQuery, limitQuery } from "../../core/pagination";
import { Ad } from "../ad/schema";
import { AdSet } from "../adsets/schema";

/**
 * A customer's ad sets and ads with their review state, as the operator reads them
 * (`/v1/customers/{id}/ads/adsets` and `…/ads/ads` of the admin API): the customer's own `AdSet` and `Ad`
 * resources, extended with what support needs to answer "why is this ad not running?".
 */

export const AdminAdSet = AdSet.extend({
  ads: z
    .object({
      total: z.number().int().openapi({ description: "Ads in the ad set, archived ones included.", example: 3 }),
      by_effective_status: z.record(z.string(), z.number().int()).openapi({
        description: "Ads per cached effective status (only statuses that occur).",
        example: { ACTIVE: 1, DISAPPROVED: 1, PENDING_REVIEW: 1 },
      }),
    })
    .openapi({ description: "The ads of the ad set by review state." }),
}).openapi("AdminAdSet");

const StatusChange = z
  .object({
    previous_status: z.string().openapi({ description: "Effective status before the change.", example: "PENDING_REVIEW" }),
    effective_status: z.string().openapi({ description: "Effective status after it.", example: "DISAPPROVED" }),
    reason: z.string().nullable().openapi({
      description: "Review feedback (`POLICY_CODE: explanation`) or the platform's issue (`error_code: message`), as sent in `ad.status_changed`.",
      example: "TEXT_OVERLAY: Simulated disapproval for policy TEXT_OVERLAY.",
    }),
    source: z.string().openapi({
      description:
        "Which path saw the change first: `poll` (the status poll), `platform_webhook`, `status_read` (GET /v1/status/{ad_id}) or `update` (our own change).",
      example: "poll",
    }),
    at: z.string().openapi({ description: "When it was observed (ISO 8601).", example: "2026-01-15T10:05:00.000Z" }),
  })
  .openapi("AdStatusChange");

export const AdminAd = Ad.extend({
  ad_set: z
    .object({
      id: z.uuid().openapi({ description: "Ad set id.", example: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d" }),
      name: z.string().openapi({ description: "Ad set name (label by this, not by a platform id).", example: "demo-20260115-001" }),
      status: z.enum(adSetStatuses).openapi({ description: "The ad set's configured status.", example: "ACTIVE" }),
      effective_status: z.string().openapi({ description: "The ad set's delivery status (`CAMPAIGN_PAUSED` while its target is paused).", example: "ACTIVE" }),
    })
    .openapi({ description: "The ad set the ad belongs to." }),
  issues: z.string().nullable().openapi({
    description: "While `effective_status` is `WITH_ISSUES`: the platform's `issues_info` as `error_code: message` (several joined with `; `); else null.",
    example: null,
  }),
  last_status_change: StatusChange.nullable().openapi({ description: "The latest recorded change of the effective status; null when it never changed." }),
}).openapi("AdminAd");

export const AdSetReviewQuery = z.object({
  status: z.enum(adSetStatuses).optional().openapi({ description: "Only ad sets with this configured status.", example: "ACTIVE" }),
  target: z.string().min(1).max(64).optional().openapi({ description: "Only ad sets of this target key.", example: "demo" }),
  limit: limitQuery(100, 25),
  ...cursorQuery,
});

export const AdReviewQuery = z.object({
  status: z.enum(adStatuses).optional().openapi({ description: "Only ads with this configured status.", example: "ACTIVE" }),
  effective_status: z
    .string()
    .regex(/^[A-Z_]{1,64}$/, "An effective status in capitals, e.g. DISAPPROVED.")
    .optional()
    .openapi({
      description:
        "Only ads in this review or delivery state (cached effective status): `PENDING_REVIEW`, `ACTIVE`, `DISAPPROVED`, `WITH_ISSUES`, `IN_PROCESS`, `PAUSED`, `ADSET_PAUSED`, `CAMPAIGN_PAUSED`, `ARCHIVED`, …",
      example: "DISAPPROVED",
    }),
  adset_id: z.uuid().optional().openapi({ description: "Only ads of this ad set.", example: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d" }),
  limit: limitQuery(100, 25),
  ...cursorQuery,
});
