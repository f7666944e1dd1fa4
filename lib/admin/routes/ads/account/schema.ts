import { z } from "@hono/zod-openapi";
import { graphId } from "../../../../ads/routes/shared";
import { text } from "../shared";
import { AdsOnboarding } from "../../../../ads/onboarding/schema";
import type { Database } from "../../../../db/client";
import { CredentialState, credentialState } from "../../../credentials";

/** The onboarding as the operator reads it, with when each secret last changed and by whom (never a value). */
export const AdsOnboardingStatus = AdsOnboarding.extend({
  access_token_state: CredentialState.openapi({ description: "The system user access token: set, last changed, by whom." }),
  app_secret_state: CredentialState.openapi({ description: "The app secret: set, last changed, by whom." }),
}).openapi("AdsOnboardingStatus");

/** `AdsOnboardingStatus` of an onboarding (the secrets' history from the audit log). */
export async function onboardingStatus<T extends { access_token_set: boolean; app_secret_set: boolean }>(db: Database, customerId: string, onboarding: T) {
  const source = (field: string, set: boolean) => ({ set, operationIds: ["updateCustomerAdAccount"], field });
  const [access_token_state, app_secret_state] = await Promise.all([
    credentialState(db, customerId, source("access_token", onboarding.access_token_set)),
    credentialState(db, customerId, source("app_secret", onboarding.app_secret_set)),
  ]);
  return { ...onboarding, access_token_state, app_secret_state };
}

export const UpdateAdsOnboarding = z
  .strictObject({
    access_token: z.string().trim().min(10).max(2000).optional().openapi({
      description: "System user access token; stored sealed, never returned. Verified with the platform together with the app secret.",
      example: "EAABsbCS1iHgBAxxxxxxxxxxxxxxxx",
    }),
    app_secret: z
      .string()
      .trim()
      .min(8)
      .max(200)
      .optional()
      .openapi({ description: "App secret for `appsecret_proof`; stored sealed, never returned.", example: "0123456789abcdef0123456789abcdef" }),
    ad_account_id: z
      .string()
      .regex(/^(act_)?\d{1,30}$/, "Numeric, optionally prefixed act_.")
      .nullable()
      .optional()
      .openapi({ description: "Ad account id (`act_` prefix optional); verified to be reachable with the token.", example: "act_1234567890" }),
    page_id: graphId("Facebook page id.", "100200300400500").nullable().optional(),
    instagram_account_id: graphId("Instagram account id (second social account).", "17841400000000000").nullable().optional(),
    dsa_beneficiary: text("DSA beneficiary.", "Acme GmbH").nullable().optional(),
    dsa_payor: text("DSA payor.", "Acme GmbH").nullable().optional(),
    legal_name: text("Legal name of the advertiser.", "Acme GmbH").nullable().optional(),
  })
  .openapi("UpdateAdsOnboarding");
