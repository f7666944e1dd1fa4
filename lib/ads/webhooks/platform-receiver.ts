import { createHmac, timingSafeEqual } from "node:crypto";
import { inArray } from "drizzle-orm";
import { Hono } from "hono";
import { handleError } from "../../core/app";
import type { AppEnv, CoreDeps } from "../../core/context";
import { ApiError, BadRequestError, ForbiddenError } from "../../core/errors";
import { jsonNestsDeeperThan, MAX_JSON_DEPTH, sanitisedJson } from "../../core/input-hygiene";
import { safeEqual } from "../../core/secrets";
import { adsAccounts, adsAds } from "../../db/schema";
import { observedStatus } from "../ad/service";
import type { AdsDeps } from "../deps";
import { connectCredentials } from "../onboarding/service";
import { MAX_IDS_PER_READ, PlatformError } from "../platform";
import type { RunningGraphSimulator } from "../platform/simulator/server";
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

/** Ad ids the notification names (AD level only; the payload is a hint, never the state). */
function namedAdIds(body: unknown): string[] {
  const ids = new Set<string>();
  if (!body || typeof body !== "object" || (body as { object?: unknown }).object !== "ad_account") return [];
  const entries = (body as { entry?: unknown }).entry;
  for (const entry of Array.isArray(entries) ? entries : []) {
    const changes = entry && typeof entry === "object" ? (entry as { changes?: unknown }).changes : undefined;
    for (const change of Array.isArray(changes) ? changes : []) {
      if (!change || typeof change !== "object") continue;
      const { field, value } = change as { field?: unknown; value?: unknown };
      if (typeof field !== "string" || !STATUS_FIELDS.has(field) || !value || typeof value !== "object") continue;
      const { id, level } = value as { id?: unknown; level?: unknown };
      const adId = typeof id === "number" ? String(id) : id;
      if (typeof adId === "string" && /^\d{1,32}$/.test(adId) && (level === undefined || level === "AD")) ids.add(adId);
    }
  }
  return [...ids].slice(0, 500);
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

/**
 * `/api/platform/webhook`: the platform's ad-account webhooks (W1–W3).
 *
 * `GET` is the subscription handshake: `hub.mode=subscribe` with our verify token echoes `hub.challenge`
 * as text; anything else is 403. `POST` must carry `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the
 * raw body>` under the app secret: `GRAPH_APP_SECRET`, or the app secret onboarded for a customer whose ad
 * the body names (each customer may bring its own app). Missing or wrong → 401 and nothing is read or
 * stored. A verified notification is only a hint: every named ad (`with_issues_ad_objects`,
 * `in_process_ad_objects`, level AD) of a customer whose secret signed it is read again from the
 * platform (batched) and goes through the one status recorder, so a change the poll already reported is
 * not reported twice. Unknown ads and other fields are acknowledged and ignored; a failed read is logged
 * and left to the poll (the ad stays in a polled state), and the answer is still 200, so the platform
 * does not retry what it cannot fix.
 */
/**
 * A customer's app secret, or null when it cannot be opened (sealed under another key, e.g. a database a
 * test run shares): that customer cannot be the signer, and the others are still checked.
 */
function openAppSecret(deps: Pick<AdsDeps, "secrets" | "logger">, customerId: string, sealed: string | null): string | null {
  if (!sealed) return null;
  try {
    return deps.secrets.open(sealed);
  } catch {
    deps.logger.warn("platform webhook: a customer's app secret cannot be opened with this deployment's key", { customer_id: customerId });
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

    const text = new TextDecoder().decode(raw);
    let body: unknown = null;
    if (!jsonNestsDeeperThan(text, MAX_JSON_DEPTH)) {
      try {
        // Like the Postmark receiver: text no column could hold (NUL, lone surrogates) is cleaned, never a 5xx.
        body = sanitisedJson(JSON.parse(text));
      } catch {
        body = null;
      }
    }
    const platformIds = namedAdIds(body);
    const ads: Named[] =
      platformIds.length === 0
        ? []
        : await deps.db
            .select({ id: adsAds.id, customerId: adsAds.customerId, platformAdId: adsAds.platformAdId })
            .from(adsAds)
            .where(inArray(adsAds.platformAdId, platformIds));
    const customerIds = [...new Set(ads.map((ad) => ad.customerId))];
    const accounts =
      customerIds.length === 0
        ? []
        : await deps.db
            .select({ customerId: adsAccounts.customerId, appSecretSealed: adsAccounts.appSecretSealed })
            .from(adsAccounts)
            .where(inArray(adsAccounts.customerId, customerIds));
    const secretOf = new Map(
      accounts.flatMap((account) => {
        const secret = openAppSecret(deps, account.customerId, account.appSecretSealed);
        return secret === null ? [] : [[account.customerId, secret] as const];
      }),
    );
    const candidates = [...new Set([...(deps.config.GRAPH_APP_SECRET ? [deps.config.GRAPH_APP_SECRET] : []), ...secretOf.values()])];
    const secret = signedWith(raw, header, candidates);
    if (secret === null) {
      deps.logger.warn("platform webhook refused: signature does not match", { named_ads: platformIds.length });
      throw unauthorized();
    }
    if (body === null) throw new BadRequestError("The body is not a JSON object of the platform's webhook shape.");

    // The app secret that signed decides whose ads this notification may refresh.
    const trusted = secret === deps.config.GRAPH_APP_SECRET ? customerIds : customerIds.filter((id) => secretOf.get(id) === secret);
    let read = 0;
    let changed = 0;
    for (const customerId of trusted) {
      try {
        const outcome = await refreshCustomer(
          deps,
          customerId,
          ads.filter((ad) => ad.customerId === customerId),
        );
        read += outcome.ads;
        changed += outcome.changed;
      } catch (error) {
        if (!(error instanceof PlatformError) && !(error instanceof ApiError)) throw error;
        deps.logger.warn("platform webhook: ads could not be read; the status poll will", { customer_id: customerId, error: error.message });
      }
    }
    return c.json({ data: { named: platformIds.length, read, changed } }, 200);
  });

  app.onError(handleError(deps.logger, "The notification could not be processed; the platform will retry."));
  return app;
}

/**
 * Embedded mode: subscribes the Graph simulator to this deployment's receiver, with the verification
 * handshake the platform makes when the webhook is configured in the app dashboard.
 */
export async function pointGraphSimulatorAtReceiver(
  deps: Pick<CoreDeps, "config" | "secrets"> & { providers: { graphSimulator: RunningGraphSimulator | null } },
  origin: string,
): Promise<void> {
  const controls = deps.providers.graphSimulator?.simulator.controls;
  if (!controls) return;
  await controls.subscribeWebhooks({ url: `${origin.replace(/\/$/, "")}${PLATFORM_WEBHOOK_PATH}`, verifyToken: platformVerifyToken(deps) });
}
