import { AdsOnboarding } from "../../../ads";
import type { Database } from "../../../db/client";
import { CredentialState, credentialState } from "../../credentials";

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
