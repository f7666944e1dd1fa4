import { z } from "@hono/zod-openapi";
import { configuredStatuses } from "../../db/schema/index";

export const CALL_TO_ACTIONS = [
  "SIGN_UP",
  "SUBSCRIBE",
  "SEE_MORE",
  "DOWNLOAD",
  "APPLY_NOW",
  "BOOK_NOW",
  "BUY_TICKETS",
  "CONTACT_US",
  "GET_OFFER",
  "GET_QUOTE",
  "GET_SHOWTIMES",
  "WATCH_MORE",
  "LEARN_MORE",
  "LISTEN_NOW",
  "ORDER_NOW",
] as const;

/** Brand domain plus an optional short path: `shop.example.com/summer`, never a scheme or a query. */
const DISPLAY_LINK = /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]{2,63}(?:\/[^\s?#]*)?$/;

export const Ad = z
  .object({
    id: z.uuid().openapi({ description: "Ad id (UUID).", example: "5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a" }),
    ad_set_id: z.uuid().openapi({ description: "Ad set of the ad.", example: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d" }),
    creative_id: z.uuid().openapi({ description: "Creative the ad was built from.", example: "3c2b1a09-8f7e-4d6c-9b5a-4f3e2d1c0b9a" }),
    name: z.string().openapi({ description: "Name, from the naming convention unless given.", example: "demo-20260115-001-ad001" }),
    status: z.enum(configuredStatuses).openapi({ description: "Configured status.", example: "PAUSED" }),
    effective_status: z.string().openapi({
      description:
        "Cached delivery status (e.g. `PENDING_REVIEW`, `ACTIVE`, `PAUSED`, `DISAPPROVED`, `ADSET_PAUSED`, `CAMPAIGN_PAUSED`, `ARCHIVED`); refreshed live by GET /v1/status/{ad_id}.",
      example: "PENDING_REVIEW",
    }),
    disapproval_reason: z
      .string()
      .nullable()
      .openapi({ description: "Review feedback as `POLICY_CODE: explanation` when disapproved, else null.", example: null }),
    platform_ad_id: z.string().openapi({ description: "The platform's ad id.", example: "120210000000000789" }),
    platform_creative_id: z.string().nullable().openapi({ description: "The platform's creative id the ad uses.", example: "120210000000000788" }),
    status_checked_at: z
      .string()
      .nullable()
      .openapi({ description: "When the effective status was last read from the platform (ISO 8601); null = never since creation.", example: null }),
    created_at: z.string().openapi({ description: "Creation time (ISO 8601).", example: "2026-01-15T10:00:00.000Z" }),
    updated_at: z.string().openapi({ description: "Last change (ISO 8601).", example: "2026-01-15T10:00:00.000Z" }),
  })
  .openapi("Ad");

export const CreateAd = z
  .strictObject({
    ad_set_id: z.uuid().openapi({ description: "Ad set (UUID).", example: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d" }),
    creative_id: z.uuid().openapi({
      description: "Creative draft (from POST /v1/creatives or a template render) or a final creative (UUID).",
      example: "3c2b1a09-8f7e-4d6c-9b5a-4f3e2d1c0b9a",
    }),
    link: z
      .url({ protocol: /^https?$/, error: "Must be an http(s) URL." })
      .max(1024)
      .optional()
      .openapi({
        description:
          "Clean destination URL; required while the creative is a draft. We append utm_source=meta, utm_medium=paid_social, utm_campaign=<target key>, utm_content=<creative id>; a link already carrying one of them → 422.",
        example: "https://shop.example.com/summer",
        format: "uri",
      }),
    display_link: z
      .string()
      .max(100)
      .regex(DISPLAY_LINK, "Brand domain plus optional path, without scheme and query.")
      .optional()
      .openapi({ description: "Shown link: brand domain plus optional short path, without scheme and query.", example: "shop.example.com/summer" }),
    call_to_action: z.enum(CALL_TO_ACTIONS).optional().openapi({ description: "Button; default `LEARN_MORE`.", example: "SIGN_UP" }),
    message: z
      .string()
      .max(125)
      .optional()
      .openapi({ description: "Primary text, at most 125 characters, without a call to action.", example: "Summer sale: 30 % off running shoes." }),
    headline: z.string().max(40).optional().openapi({ description: "Headline, at most 40 characters.", example: "Summer sale" }),
    description: z.string().max(25).optional().openapi({ description: "Link description, at most 25 characters.", example: "Only until Sunday" }),
    name: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .openapi({ description: "Ad name; default from the naming convention (`{adset}-ad{seq}`).", example: "summer-sale-a" }),
    status: z.enum(["ACTIVE", "PAUSED"]).optional().openapi({ description: "Initial status; default `PAUSED`.", example: "PAUSED" }),
  })
  .openapi("CreateAd");

export const UpdateAd = z
  .strictObject({
    status: z.enum(["ACTIVE", "PAUSED"]).openapi({ description: "Activate or pause.", example: "ACTIVE" }),
  })
  .openapi("UpdateAd");

export const AdLiveStatus = z
  .object({
    id: z.uuid().openapi({ description: "Ad id (UUID).", example: "5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a" }),
    platform_ad_id: z.string().openapi({ description: "The platform's ad id.", example: "120210000000000789" }),
    status: z.enum(configuredStatuses).openapi({ description: "Configured status as the platform reports it.", example: "ACTIVE" }),
    effective_status: z.string().openapi({
      description: "Live delivery status, e.g. `PENDING_REVIEW`, `ACTIVE`, `PAUSED`, `DISAPPROVED`, `ADSET_PAUSED`, `CAMPAIGN_PAUSED`, `ARCHIVED`.",
      example: "ACTIVE",
    }),
    disapproval_reason: z
      .string()
      .nullable()
      .openapi({ description: "Review feedback as `POLICY_CODE: explanation` when disapproved, else null.", example: null }),
    checked_at: z.string().openapi({ description: "When the platform was asked (ISO 8601).", example: "2026-01-15T10:05:00.000Z" }),
  })
  .openapi("AdLiveStatus");
