import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "../../db/client";
import { adsAccounts } from "../../db/schema";
import { ValidationError } from "../../core/errors";
import type { AdsDeps } from "../deps";
import { PlatformError, type GraphSession } from "../platform";
import { toApiError } from "../upstream";
import { queueSnapshot } from "../insights/snapshot-queue";
import type { z } from "zod";
import { AD_ACCOUNT_ITEMS, ONBOARDING_ITEMS, type AdsOnboarding, type TOKEN_STATUSES, type UpdateAdsOnboarding } from "./schema";

type OnboardingItem = (typeof ONBOARDING_ITEMS)[number];

type TokenStatus = (typeof TOKEN_STATUSES)[number];

export type OnboardingInput = z.infer<typeof UpdateAdsOnboarding>;

/** The API's `AdsOnboarding` schema (one schema per resource). */
export type OnboardingView = z.infer<typeof AdsOnboarding>;

type Row = typeof adsAccounts.$inferSelect;

function isPresent(row: Row | undefined, item: OnboardingItem): boolean {
  if (!row) return false;
  switch (item) {
    case "access_token":
      return tokenStatus(row) === "verified";
    case "app_secret":
      return Boolean(row.appSecretSealed);
    case "ad_account_id":
      return Boolean(row.adAccountId);
    case "page_id":
      return Boolean(row.pageId);
    case "instagram_account_id":
      return Boolean(row.instagramAccountId);
    case "dsa_beneficiary":
      return Boolean(row.dsaBeneficiary);
    case "dsa_payor":
      return Boolean(row.dsaPayor);
    case "legal_name":
      return Boolean(row.legalName);
  }
}

function tokenStatus(row: Row | undefined): TokenStatus {
  if (!row?.accessTokenSealed) return "missing";
  if (row.tokenInvalidAt !== null) return "invalid";
  return row.tokenVerifiedAt === null ? "unverified" : "verified";
}

function toOnboardingView(row: Row | undefined): OnboardingView {
  const present = ONBOARDING_ITEMS.filter((item) => isPresent(row, item));
  const missing = ONBOARDING_ITEMS.filter((item) => !isPresent(row, item));
  return {
    access_token_set: Boolean(row?.accessTokenSealed),
    app_secret_set: Boolean(row?.appSecretSealed),
    token_verified_at: row?.tokenVerifiedAt?.toISOString() ?? null,
    token_status: tokenStatus(row),
    token_invalid_at: row?.tokenInvalidAt?.toISOString() ?? null,
    token_error_code: row?.tokenErrorCode ?? null,
    token_error_subcode: row?.tokenErrorSubcode ?? null,
    complete: missing.length === 0,
    present,
    missing,
  };
}

/** The account identifiers and legal details are sealed like the secrets (AES-256-GCM) and never returned. */
function sealField(deps: Pick<AdsDeps, "secrets">, value: string | null): string | null {
  return value === null ? null : deps.secrets.seal(value);
}

function openField(deps: Pick<AdsDeps, "secrets">, sealed: string | null | undefined): string | null {
  return sealed ? deps.secrets.open(sealed) : null;
}

const SEALED_FIELDS = ["adAccountId", "pageId", "instagramAccountId", "dsaBeneficiary", "dsaPayor", "legalName"] as const;

/**
 * Seals identifiers written in plain text before they were sealed (stores from before 2026-11-23); run at
 * start-up, a no-op once done. A plain platform id or legal name never has the sealed form.
 */
export async function sealPlainAccountFields(deps: Pick<AdsDeps, "db" | "secrets">): Promise<number> {
  const rows = await deps.db.select().from(adsAccounts);
  let sealed = 0;
  for (const row of rows) {
    const plain = SEALED_FIELDS.filter((field) => row[field] !== null && !deps.secrets.isSealed(row[field] ?? ""));
    if (plain.length === 0) continue;
    const values = Object.fromEntries(plain.map((field) => [field, deps.secrets.seal(row[field] ?? "")]));
    await deps.db.update(adsAccounts).set(values).where(eq(adsAccounts.customerId, row.customerId));
    sealed += 1;
  }
  return sealed;
}

async function loadRow(db: Database, customerId: string): Promise<Row | undefined> {
  const [row] = await db.select().from(adsAccounts).where(eq(adsAccounts.customerId, customerId));
  return row;
}

export async function getOnboarding(db: Database, customerId: string): Promise<OnboardingView> {
  return toOnboardingView(await loadRow(db, customerId));
}

/** `act_123` and `123` are the same ad account; we keep the bare number. */
function normaliseAdAccountId(id: string): string {
  return id.startsWith("act_") ? id.slice(4) : id;
}

/**
 * Partial update. Whenever the token, the app secret or the ad account changes and both secrets are
 * known, the platform is asked before anything is stored: `GET /me` proves token and `appsecret_proof`,
 * `GET act_{id}` proves the token reaches the ad account. A refusal is a 422 on the field to fix and
 * nothing is saved; secrets are sealed before they touch the database. Any such change clears a recorded
 * token refusal: it described credentials that are no longer the stored ones, or that the platform has
 * just accepted again.
 */
/** `backfill: false` leaves the first insights pull to the caller (the demo seed pulls its history itself). */
export async function updateOnboarding(
  deps: AdsDeps,
  customerId: string,
  input: OnboardingInput,
  options: { backfill?: boolean } = {},
): Promise<OnboardingView> {
  const current = await loadRow(deps.db, customerId);
  const accessToken = input.access_token ?? (current?.accessTokenSealed ? deps.secrets.open(current.accessTokenSealed) : undefined);
  const appSecret = input.app_secret ?? (current?.appSecretSealed ? deps.secrets.open(current.appSecretSealed) : undefined);
  const currentAdAccountId = openField(deps, current?.adAccountId);
  const adAccountId = input.ad_account_id === undefined ? currentAdAccountId : input.ad_account_id && normaliseAdAccountId(input.ad_account_id);
  const credentialsChanged =
    input.access_token !== undefined || input.app_secret !== undefined || (input.ad_account_id !== undefined && adAccountId !== currentAdAccountId);

  let tokenVerifiedAt = current?.tokenVerifiedAt ?? null;
  if (credentialsChanged) {
    tokenVerifiedAt = null;
    if (accessToken && appSecret) {
      await verifyCredentials(deps, customerId, deps.graph.connect({ accessToken, appSecret }, {}, { adAccountId: adAccountId ?? undefined }), adAccountId);
      tokenVerifiedAt = deps.clock.now();
    }
  }

  const values = {
    ...(input.access_token !== undefined && { accessTokenSealed: deps.secrets.seal(input.access_token) }),
    ...(input.app_secret !== undefined && { appSecretSealed: deps.secrets.seal(input.app_secret) }),
    ...(input.ad_account_id !== undefined && { adAccountId: sealField(deps, adAccountId) }),
    ...(input.page_id !== undefined && { pageId: sealField(deps, input.page_id) }),
    ...(input.instagram_account_id !== undefined && { instagramAccountId: sealField(deps, input.instagram_account_id) }),
    ...(input.dsa_beneficiary !== undefined && { dsaBeneficiary: sealField(deps, input.dsa_beneficiary) }),
    ...(input.dsa_payor !== undefined && { dsaPayor: sealField(deps, input.dsa_payor) }),
    ...(input.legal_name !== undefined && { legalName: sealField(deps, input.legal_name) }),
    ...(credentialsChanged && { tokenInvalidAt: null, tokenErrorCode: null, tokenErrorSubcode: null }),
    tokenVerifiedAt,
    updatedAt: deps.clock.now(),
  };
  await deps.db
    .insert(adsAccounts)
    .values({ customerId, ...values })
    .onConflictDoUpdate({ target: adsAccounts.customerId, set: values });
  const backfill = options.backfill ?? deps.config.ADS_INSIGHTS_BACKFILL_ON_CONNECT;
  if (backfill && credentialsChanged && tokenVerifiedAt && adAccountId) await queueBackfill(deps, customerId, tokenVerifiedAt);
  return getOnboarding(deps.db, customerId);
}

/**
 * A newly connected (or reconnected) ad account gets its insights backfill now, through the same queue
 * message the daily fan-out sends, instead of waiting for the next nightly run: the portal shows up to 90
 * days right after onboarding. The job pulls only days not yet stored, so a second connection costs little.
 */
async function queueBackfill(deps: AdsDeps, customerId: string, verifiedAt: Date): Promise<void> {
  await queueSnapshot(deps.queue, customerId, { deduplicationId: `insights-onboarding-${customerId}-${verifiedAt.getTime()}` });
}

async function verifyCredentials(deps: AdsDeps, customerId: string, session: GraphSession, adAccountId: string | null): Promise<void> {
  const refused = (field: "access_token" | "ad_account_id", error: PlatformError) =>
    error.kind === "transient" || error.kind === "rate_limited"
      ? toApiError(error, { logger: deps.logger, customerId, action: "verify onboarding" })
      : new ValidationError(
          field === "access_token" ? "The ad platform refused the access token with this app secret." : "The access token cannot reach this ad account.",
          [
            {
              path: field,
              message: `Not accepted by the platform (Graph code ${error.code ?? "?"}${error.subcode ? `/${error.subcode}` : ""}${error.userMessage ? `: ${error.userMessage}` : ""}).`,
            },
          ],
        );
  // `GET /me` fails for a bad token and for a wrong app secret alike (the proof does not match).
  await session.verifyToken().catch((error: unknown) => {
    throw error instanceof PlatformError ? refused("access_token", error) : error;
  });
  if (!adAccountId) return;
  await session.getAdAccount(adAccountId).catch((error: unknown) => {
    throw error instanceof PlatformError ? refused("ad_account_id", error) : error;
  });
}

/** A customer's ad account, ready for platform calls. */
export type ConnectedAccount = {
  customerId: string;
  session: GraphSession;
  adAccountId: string;
  pageId: string;
  instagramAccountId: string;
  dsaBeneficiary: string;
  dsaPayor: string;
};

function missingError(missing: OnboardingItem[]): ValidationError {
  return new ValidationError(`Ad account onboarding is incomplete (missing: ${missing.join(", ")}); the operator completes it.`, { missing });
}

/** For media and the operator's campaign checks: a working token on the ad account is enough. */
export async function connectAdAccount(deps: AdsDeps, customerId: string): Promise<{ session: GraphSession; adAccountId: string }> {
  const row = await loadRow(deps.db, customerId);
  const missing = AD_ACCOUNT_ITEMS.filter((item) => !isPresent(row, item));
  if (!row?.accessTokenSealed || !row.appSecretSealed || !row.adAccountId || missing.length > 0) throw missingError(missing);
  return { session: connect(deps, customerId, row.accessTokenSealed, row.appSecretSealed, row.adAccountId), adAccountId: deps.secrets.open(row.adAccountId) };
}

/** For ad sets and ads: complete onboarding, else 422 with `details.missing`. */
export async function connectAccount(deps: AdsDeps, customerId: string): Promise<ConnectedAccount> {
  const row = await loadRow(deps.db, customerId);
  const missing = ONBOARDING_ITEMS.filter((item) => !isPresent(row, item));
  if (!row || missing.length > 0) throw missingError(missing);
  const { accessTokenSealed, appSecretSealed, adAccountId, pageId, instagramAccountId, dsaBeneficiary, dsaPayor } = row;
  if (!accessTokenSealed || !appSecretSealed || !adAccountId || !pageId || !instagramAccountId || !dsaBeneficiary || !dsaPayor) throw missingError(missing);
  const { secrets } = deps;
  return {
    customerId,
    session: connect(deps, customerId, accessTokenSealed, appSecretSealed, adAccountId),
    adAccountId: secrets.open(adAccountId),
    pageId: secrets.open(pageId),
    instagramAccountId: secrets.open(instagramAccountId),
    dsaBeneficiary: secrets.open(dsaBeneficiary),
    dsaPayor: secrets.open(dsaPayor),
  };
}

/**
 * Archiving and status reads need a working token and the app secret only, so they keep working if other
 * onboarding data changes. A token the platform has refused is not sent again: 422 `missing` as for creates.
 */
export async function connectCredentials(deps: AdsDeps, customerId: string): Promise<GraphSession> {
  const row = await loadRow(deps.db, customerId);
  const missing = (["access_token", "app_secret"] as const).filter((item) => !isPresent(row, item));
  if (!row?.accessTokenSealed || !row.appSecretSealed || missing.length > 0) throw missingError(missing);
  return connect(deps, customerId, row.accessTokenSealed, row.appSecretSealed, row.adAccountId);
}

/**
 * Records a code-190 refusal of the stored token: when, and Graph's code and subcode (never the token or
 * Graph's message). Conditional on the sealed token being the one the call used, so a refusal that arrives
 * after the operator set a new token changes nothing, and the first refusal's time is kept.
 */
async function recordTokenRejected(deps: AdsDeps, customerId: string, accessTokenSealed: string, error: PlatformError): Promise<void> {
  const now = deps.clock.now();
  await deps.db
    .update(adsAccounts)
    .set({ tokenInvalidAt: now, tokenErrorCode: error.code ?? null, tokenErrorSubcode: error.subcode ?? null, updatedAt: now })
    .where(and(eq(adsAccounts.customerId, customerId), eq(adsAccounts.accessTokenSealed, accessTokenSealed), isNull(adsAccounts.tokenInvalidAt)));
}

function connect(deps: AdsDeps, customerId: string, accessTokenSealed: string, appSecretSealed: string, adAccountSealed: string | null): GraphSession {
  return deps.graph.connect(
    { accessToken: deps.secrets.open(accessTokenSealed), appSecret: deps.secrets.open(appSecretSealed) },
    { onTokenRejected: (error) => recordTokenRejected(deps, customerId, accessTokenSealed, error) },
    // The platform's rate limits are per ad account: the session spends (and is paced by) this account's budget.
    { adAccountId: adAccountSealed ? deps.secrets.open(adAccountSealed) : undefined },
  );
}
