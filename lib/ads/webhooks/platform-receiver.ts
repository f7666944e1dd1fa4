import { createHmac, timingSafeEqual } from "node:crypto";
import { and, eq, inArray, isNotNull } from "drizzle-orm";
import { Hono } from "hono";
import { handleError } from "../../core/app";
import type { AppEnv, CoreDeps } from "../../core/context";
import { ApiError, ForbiddenError } from "../../core/errors";
import { findFlaw, jsonNestsDeeperThan, MAX_JSON_DEPTH, sanitisedJson } from "../../core/input-hygiene";
import { receivedText } from "../../core/strict-text";
import { safeEqual } from "../../core/secrets";
import { adsAccounts, adsAds } from "../../db/schema";
import { observedStatus } from "../ad/service";
import type { AdsDeps } from "../deps";
import { connectCredentials } from "../onboarding/service";
import { MAX_IDS_PER_READ, PlatformError } from "../platform";
import { recordAdStatus } from "./status-changes";

export const PLATFORM_WEBHOOK_PATH = "/api/platform/webhook";
/**
 * Ad-account webhook bodies are a few KB; anything near Vercel's cap is not the platform's. Enforced by
 * the internal app before the signature is checked (`createInternalApp`).
 */
export const PLATFORM_WEBHOOK_MAX_BODY_BYTES = 1024 * 1024;
/** The ad-account fields that name an ad whose status may have changed (W3). */
const STATUS_FIELDS = new Set(["with_issues_ad_objects", "in_process_ad_objects"]);
const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

/**
 * The verify token Meta's webhook settings send in the handshake: `GRAPH_WEBHOOK_VERIFY_TOKEN`, else one
 * derived from the encryption key (stable per deployment; the embedded simulator subscribes with it).
 */
export function platformVerifyToken(deps: Pick<CoreDeps, "config" | "secrets">): string {
  return deps.config.GRAPH_WEBHOOK_VERIFY_TOKEN ?? deps.secrets.deriveKey("ads.platform-webhook-verify-token.v1", 24).toString("base64url");
}

/** `X-Hub-Signature-256` against each candidate app secret, each compared in constant time (W2). */
function signedWith(raw: Uint8Array, header: string | undefined, secrets: readonly string[]): string | null {
  const given = SIGNATURE.exec(header?.trim() ?? "")?.[1];
  if (!given) return null;
  const signature = Buffer.from(given.toLowerCase(), "hex");
  let match: string | null = null;
  for (const secret of secrets) {
    if (timingSafeEqual(signature, createHmac("sha256", secret).update(raw).digest()) && match === null) match = secret;
  }
  return match;
}

type Change = { field: string; level: string | undefined; adId: string | undefined };
type Entry = { accountId: string | null; changes: Change[] };

/** The entries of an `ad_account` notification (W3), each with its ad account id (without `act_`) and changes. */
function notificationEntries(body: unknown): Entry[] {
  if (!body || typeof body !== "object" || (body as { object?: unknown }).object !== "ad_account") return [];
  const entries = (body as { entry?: unknown }).entry;
  const out: Entry[] = [];
  for (const entry of (Array.isArray(entries) ? entries : []).slice(0, 500)) {
    if (!entry || typeof entry !== "object") continue;
    const rawId = (entry as { id?: unknown }).id;
    const id = (typeof rawId === "number" ? String(rawId) : typeof rawId === "string" ? rawId : "").replace(/^act_/, "");
    const changes = (entry as { changes?: unknown }).changes;
    const parsed: Change[] = [];
    for (const change of (Array.isArray(changes) ? changes : []).slice(0, 500)) {
      if (!change || typeof change !== "object") continue;
      const { field, value } = change as { field?: unknown; value?: unknown };
      if (typeof field !== "string" || field.length > 64) continue;
      const { id: objectId, level } = value && typeof value === "object" ? (value as { id?: unknown; level?: unknown }) : {};
      const adId = typeof objectId === "number" ? String(objectId) : objectId;
      parsed.push({
        field,
        level: typeof level === "string" && /^[A-Z_]{1,16}$/.test(level) ? level : undefined,
        adId: typeof adId === "string" && /^\d{1,32}$/.test(adId) ? adId : undefined,
      });
    }
    out.push({ accountId: /^\d{1,32}$/.test(id) ? id : null, changes: parsed });
  }
  return out;
}

/** Whether a change names an ad whose status may have changed (AD level, or no level given). */
const namesAd = (change: Change): change is Change & { adId: string } =>
  STATUS_FIELDS.has(change.field) && change.adId !== undefined && (change.level === undefined || change.level === "AD");

/**
 * Notifications (or parts of them) acknowledged without acting, by kind, since the process started: the
 * field (`creative_fatigue`), a status field at another level (`with_issues_ad_objects:CAMPAIGN`), an ad
 * we do not know (`unknown_ad`), an ad account we do not know (`unknown_account`), an unreadable body.
 */
const ignoredCounts = new Map<string, number>();

/** A copy of the in-process counter of notification kinds acknowledged without acting. */
export function ignoredPlatformNotifications(): Record<string, number> {
  return Object.fromEntries(ignoredCounts);
}

type Named = { id: string; customerId: string; platformAdId: string };

/** Re-reads the named ads of one customer from the platform and records what changed. */
async function refreshCustomer(deps: AdsDeps, customerId: string, ads: Named[]): Promise<{ ads: number; changed: number }> {
  const session = await connectCredentials(deps, customerId);
  let read = 0;
  let changed = 0;
  for (let i = 0; i < ads.length; i += MAX_IDS_PER_READ) {
    const batch = ads.slice(i, i + MAX_IDS_PER_READ);
    const readAt = deps.clock.now();
    const views = await session.getAds(batch.map((ad) => ad.platformAdId));
    for (const ad of batch) {
      const view = views.get(ad.platformAdId);
      if (!view) continue;
      read += 1;
      if (await recordAdStatus(deps, { customerId, adId: ad.id, observed: observedStatus(view), observedAt: readAt, source: "platform_webhook" })) changed += 1;
    }
  }
  return { ads: read, changed };
}

type Known = { customerId: string; accountId: string; secret: string };

/**
 * The customers onboarded with these ad accounts, with their app secrets. Ad account ids are sealed at
 * rest, so every onboarded account's id is opened and compared (a few per customer, in memory); one that
 * cannot be opened (sealed under another key) cannot be the signer.
 */
async function customersOfAccounts(deps: AdsDeps, accountIds: ReadonlySet<string>): Promise<Known[]> {
  if (accountIds.size === 0) return [];
  const rows = await deps.db
    .select({ customerId: adsAccounts.customerId, adAccountSealed: adsAccounts.adAccountId, appSecretSealed: adsAccounts.appSecretSealed })
    .from(adsAccounts)
    .where(isNotNull(adsAccounts.adAccountId));
  const known: Known[] = [];
  for (const row of rows) {
    const accountId = openSealed(deps, row.customerId, row.adAccountSealed)?.replace(/^act_/, "");
    if (!accountId || !accountIds.has(accountId)) continue;
    const secret = openSealed(deps, row.customerId, row.appSecretSealed);
    if (secret !== null) known.push({ customerId: row.customerId, accountId, secret });
  }
  return known;
}

/**
 * `/api/platform/webhook`: the platform's ad-account webhooks (W1–W3).
 *
 * `GET` is the subscription handshake: `hub.mode=subscribe` with our verify token echoes `hub.challenge`
 * as text; anything else is 403. `POST` must carry `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the
 * raw body>`. The signer is found from the entries' ad account ids: the app secret onboarded for the
 * customer(s) with that ad account (each customer may bring its own app), or `GRAPH_APP_SECRET`. Only a
 * bad signature is refused (401, nothing read or stored): a missing or malformed header, or one that
 * matches none of those secrets. Every verified notification is acknowledged (200), and so is one for an
 * ad account we do not know (no secret to check it with; nothing is stored for it), since Meta retries
 * what is not acknowledged and the documented practice is to acknowledge what you do not use.
 *
 * A verified notification is only a hint: every named ad (`with_issues_ad_objects`,
 * `in_process_ad_objects`, level AD) of a customer whose secret signed it is read again from the platform
 * (batched) and goes through the one status recorder, so a change the poll already reported is not
 * reported twice. Kinds we do not act on (other fields such as `creative_fatigue`, other levels such as
 * CAMPAIGN, unknown ads or accounts) are acknowledged, logged with their kind and counted in process
 * (`ignoredPlatformNotifications`). A failed read is logged and left to the poll (the ad stays in a polled
 * state), and the answer is still 200, so the platform does not retry what it cannot fix.
 */
/** A sealed column of a customer, or null when it cannot be opened (sealed under another key, e.g. a database a test run shares). */
function openSealed(deps: Pick<AdsDeps, "secrets" | "logger">, customerId: string, sealed: string | null): string | null {
  if (!sealed) return null;
  try {
    return deps.secrets.open(sealed);
  } catch {
    deps.logger.warn("platform webhook: a customer's onboarding cannot be opened with this deployment's key", { customer_id: customerId });
    return null;
  }
}

export function createPlatformWebhookRoutes(deps: AdsDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get("/webhook", (c) => {
    const mode = c.req.query("hub.mode");
    const token = c.req.query("hub.verify_token") ?? "";
    const challenge = c.req.query("hub.challenge") ?? "";
    if (mode !== "subscribe" || !safeEqual(token, platformVerifyToken(deps)) || !/^[\w.-]{1,128}$/.test(challenge)) {
      throw new ForbiddenError("Verification failed: hub.mode must be subscribe and hub.verify_token our verify token.");
    }
    return c.text(challenge, 200);
  });

  app.post("/webhook", async (c) => {
    const raw = new Uint8Array(await c.req.arrayBuffer());
    const header = c.req.header("x-hub-signature-256");
    const unauthorized = () => new ApiError("unauthorized", "Missing or wrong X-Hub-Signature-256.");
    if (!header || !SIGNATURE.test(header.trim())) throw unauthorized();

    const { text, replaced } = receivedText(raw);
    let body: unknown = null;
    if (!jsonNestsDeeperThan(text, MAX_JSON_DEPTH)) {
      try {
        // Like the Postmark receiver: text no column could hold (bytes that are not UTF-8, NUL, lone
        // surrogates) is cleaned and the cleaning logged, never refused (Meta would retry) nor a 5xx.
        const parsed: unknown = JSON.parse(text);
        const flaw = findFlaw(parsed);
        if (replaced || flaw) {
          deps.logger.warn("platform webhook: text no column can hold was replaced (U+FFFD for bytes that are not UTF-8 and lone surrogates, NUL dropped)", {
            ...(replaced ? { invalid_utf8_offset: replaced.offset, invalid_utf8_bytes: replaced.bytes } : {}),
            ...(flaw ? { field: flaw.path, flaw: flaw.flaw } : {}),
          });
        }
        body = sanitisedJson(parsed);
      } catch {
        body = null;
      }
    }
    const entries = notificationEntries(body);
    const known = await customersOfAccounts(deps, new Set(entries.flatMap((entry) => (entry.accountId ? [entry.accountId] : []))));
    const global = deps.config.GRAPH_APP_SECRET;
    const candidates = [...new Set([...(global ? [global] : []), ...known.map((entry) => entry.secret)])];

    const ignored = new Map<string, number>();
    const ignore = (kind: string, count = 1) => ignored.set(kind, (ignored.get(kind) ?? 0) + count);
    const acknowledge = (summary: { named: number; read: number; changed: number }) => {
      if (ignored.size > 0) {
        for (const [kind, count] of ignored) ignoredCounts.set(kind, (ignoredCounts.get(kind) ?? 0) + count);
        deps.logger.info("platform webhook: notification kinds not acted on; acknowledged", { kinds: Object.fromEntries(ignored) });
      }
      return c.json({ data: { ...summary, ...(ignored.size > 0 ? { ignored: Object.fromEntries(ignored) } : {}) } }, 200);
    };

    if (candidates.length === 0) {
      // No customer of ours has this ad account and no deployment-wide secret is set: nothing to check
      // the signature with and nothing of ours to act on. Acknowledged, nothing stored.
      ignore("unknown_account", Math.max(1, entries.length));
      return acknowledge({ named: 0, read: 0, changed: 0 });
    }
    const secret = signedWith(raw, header, candidates);
    if (secret === null) {
      deps.logger.warn("platform webhook refused: signature does not match", { entries: entries.length, known_accounts: known.length });
      throw unauthorized();
    }
    if (body === null || entries.length === 0) {
      ignore("unreadable");
      return acknowledge({ named: 0, read: 0, changed: 0 });
    }

    // The app secret that signed decides whose ads this notification may refresh.
    const trusted = known.filter((entry) => secret === global || entry.secret === secret);
    const namedBy = new Map<string, Set<string>>();
    for (const entry of entries) {
      const owners = trusted.filter((candidate) => candidate.accountId === entry.accountId);
      if (owners.length === 0) {
        ignore("unknown_account");
        continue;
      }
      for (const change of entry.changes) {
        if (!namesAd(change)) {
          ignore(STATUS_FIELDS.has(change.field) ? `${change.field}:${change.level ?? "no_id"}` : change.field);
          continue;
        }
        for (const owner of owners) namedBy.set(owner.customerId, (namedBy.get(owner.customerId) ?? new Set()).add(change.adId));
      }
    }

    let named = 0;
    let read = 0;
    let changed = 0;
    for (const [customerId, platformIds] of namedBy) {
      named += platformIds.size;
      const ads: Named[] = await deps.db
        .select({ id: adsAds.id, customerId: adsAds.customerId, platformAdId: adsAds.platformAdId })
        .from(adsAds)
        .where(and(eq(adsAds.customerId, customerId), inArray(adsAds.platformAdId, [...platformIds].slice(0, 500))));
      if (ads.length < platformIds.size) ignore("unknown_ad", platformIds.size - ads.length);
      if (ads.length === 0) continue;
      try {
        const outcome = await refreshCustomer(deps, customerId, ads);
        read += outcome.ads;
        changed += outcome.changed;
      } catch (error) {
        if (!(error instanceof PlatformError) && !(error instanceof ApiError)) throw error;
        deps.logger.warn("platform webhook: ads could not be read; the status poll will", { customer_id: customerId, error: error.message });
      }
    }
    return acknowledge({ named, read, changed });
  });

  app.onError(handleError(deps.logger, "The notification could not be processed; the platform will retry."));
  return app;
}
