import { z } from "@hono/zod-openapi";
import { adsAccountStates, adsStages, mailModes } from "../../db/schema";
import { idPathParam } from "../../core/openapi";

export const MailSettings = z
  .object({
    sending_blocked: z
      .boolean()
      .openapi({ description: "Administrative switch: when true the sending endpoints answer 403; reads keep working.", example: false }),
    mode: z.enum(mailModes).openapi({ description: "`sandbox`: the provider accepts mail, nothing is delivered or counted.", example: "live" }),
    monthly_limit: z
      .int32()
      .min(0)
      .openapi({ description: "Accepted live e-mails per calendar month (UTC) before 429 `quota_exceeded`; 0–2,147,483,647.", example: 100000 }),
    max_per_job: z.int32().min(1).openapi({ description: "Maximum recipients of one send job; 1–2,147,483,647.", example: 50000 }),
  })
  .openapi("AdminMailSettings");

export const AdsSettings = z
  .object({
    account_state: z
      .enum(adsAccountStates)
      .openapi({ description: "Anything but `active` answers 402 on writes; reads stay available while `deactivated` or `overdue`.", example: "active" }),
    stage: z.enum(adsStages).openapi({
      description:
        "The stage selected for the running cycle: the same value as the plan's `selected_stage` (one source, the plan's selections; the customer's upgrades and downgrades through the ads API change it too). Setting it selects that stage from the running cycle's start and drops a scheduled change. The plan's `stage` is the higher of this and the stage the cycle's spend reached.",
      example: "starter",
    }),
    enterprise_included_ads: z
      .int32()
      .min(0)
      .nullable()
      .openapi({ description: "Included ads per month for the enterprise stage (custom), 0–2,147,483,647; null otherwise.", example: null }),
  })
  .openapi("AdminAdsSettings");

export const Customer = z
  .object({
    id: z.uuid().openapi({ description: "Customer id.", example: "3f0e8a52-6f1e-4c1d-9a43-0d2f1b7c5e11" }),
    name: z.string().openapi({ description: "Display name.", example: "Demo" }),
    created_at: z.string().openapi({ description: "ISO 8601 creation time.", example: "2026-01-15T10:00:00.000Z" }),
    mail: MailSettings,
    ads: AdsSettings,
  })
  .openapi("Customer");

export const CreateCustomer = z
  .object({
    name: z.string().trim().min(1).max(200).openapi({ description: "Display name, 1–200 characters.", example: "Acme GmbH" }),
    mail: MailSettings.partial().optional().openapi({ description: "Initial mail settings; defaults apply otherwise." }),
    ads: AdsSettings.partial().optional().openapi({ description: "Initial ads settings; defaults apply otherwise." }),
  })
  .openapi("CreateCustomer");

export const UpdateCustomer = z
  .object({
    name: z.string().trim().min(1).max(200).optional().openapi({ description: "New display name.", example: "Acme GmbH" }),
    mail: MailSettings.partial().optional().openapi({ description: "Mail settings to change." }),
    ads: AdsSettings.partial().optional().openapi({ description: "Ads settings to change." }),
  })
  .strict()
  .openapi("UpdateCustomer");

export const CustomerIdParam = idPathParam("Customer id.", "3f0e8a52-6f1e-4c1d-9a43-0d2f1b7c5e11");
