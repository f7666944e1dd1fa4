import { createHmac, randomInt } from "node:crypto";
import type { Logger } from "../../../base/logger";
import type { SimAd, SimulatorState } from "./state";

/** Where the simulator posts ad-account notifications, as Meta's app webhook settings hold it. */
export type SimWebhookSubscription = { url: string; verifyToken: string };

export type SimWebhookDelivery = { url: string; status: number | null; body: string; signature: string; sentAt: string };

type Pending = { adId: string; dueMs: number };

/**
 * Signed ad-account webhooks (W1–W3), as the platform sends them: only when an ad leaves IN_PROCESS (and,
 * when post-processing failed, enters WITH_ISSUES); review outcomes never cause one, so a service must
 * poll for them. Notifications are sent once their time has come in simulated time: checked after every
 * Graph request, on `advance`, and every second. Each is one POST, signed with the secret of the app
 * that created the ad (`X-Hub-Signature-256`, and the legacy SHA-1 `X-Hub-Signature`), its JSON with
 * non-ASCII characters escaped as Meta sends it; a failed POST is recorded, not retried.
 */
export class SimWebhooks {
  #subscription: SimWebhookSubscription | null = null;
  #pending: Pending[] = [];
  #inFlight = new Set<Promise<void>>();
  readonly deliveries: SimWebhookDelivery[] = [];

  constructor(
    private readonly state: SimulatorState,
    private readonly logger: Pick<Logger, "error">,
  ) {}

  /**
   * The subscription handshake: `GET <url>?hub.mode=subscribe&hub.challenge=<n>&hub.verify_token=<t>`
   * must answer 200 with the challenge, else the subscription is refused (and nothing is sent).
   */
  async subscribe(subscription: SimWebhookSubscription): Promise<void> {
    const challenge = String(randomInt(1, 2_000_000_000));
    const url = new URL(subscription.url);
    url.searchParams.set("hub.mode", "subscribe");
    url.searchParams.set("hub.challenge", challenge);
    url.searchParams.set("hub.verify_token", subscription.verifyToken);
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    const echoed = await response.text();
    if (response.status !== 200 || echoed.trim() !== challenge) {
      throw new Error(`webhook verification failed: the callback answered ${response.status} without the challenge`);
    }
    this.#subscription = subscription;
  }

  unsubscribe(): void {
    this.#subscription = null;
  }

  /** Notes an ad whose post-processing ends at `dueMs` (a new ad, or one with a new creative). */
  schedule(ad: SimAd): void {
    if (!ad.processing) return;
    this.#pending = this.#pending.filter((entry) => entry.adId !== ad.id);
    this.#pending.push({ adId: ad.id, dueMs: ad.processing.endsMs });
  }

  clear(): void {
    this.#pending = [];
    this.deliveries.length = 0;
  }

  /** Sends every notification whose time has come; resolves when they (and any still running) are answered. */
  async flush(): Promise<void> {
    const now = this.state.now();
    const due = this.#pending.filter((entry) => entry.dueMs <= now);
    this.#pending = this.#pending.filter((entry) => entry.dueMs > now);
    for (const entry of due) {
      const sent = this.#send(entry.adId).catch((error: unknown) => this.logger.error("graph simulator webhook failed", { error: String(error) }));
      this.#inFlight.add(sent);
      void sent.finally(() => this.#inFlight.delete(sent));
    }
    await Promise.all([...this.#inFlight]);
  }

  async #send(adId: string): Promise<void> {
    const subscription = this.#subscription;
    const ad = this.state.ads.get(adId);
    const app = ad?.appId ? this.state.apps.find((entry) => entry.appId === ad.appId) : undefined;
    if (!subscription || !ad || !app || !ad.processing) return;
    const value = { id: ad.id, level: "AD" };
    const changes: { field: string; value: Record<string, unknown> }[] = [{ field: "in_process_ad_objects", value }];
    if (ad.processing.withIssues) {
      changes.push({ field: "with_issues_ad_objects", value: { ...value, ...this.state.adIssue() } });
    }
    const body = escapeNonAscii(JSON.stringify({ object: "ad_account", entry: [{ id: ad.accountId, time: Math.floor(this.state.now() / 1000), changes }] }));
    const signature = `sha256=${createHmac("sha256", app.appSecret).update(body).digest("hex")}`;
    const delivery: SimWebhookDelivery = { url: subscription.url, status: null, body, signature, sentAt: new Date(this.state.now()).toISOString() };
    this.deliveries.push(delivery);
    const response = await fetch(subscription.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-hub-signature-256": signature,
        "x-hub-signature": `sha1=${createHmac("sha1", app.appSecret).update(body).digest("hex")}`,
      },
      body,
      signal: AbortSignal.timeout(20_000),
    });
    delivery.status = response.status;
    await response.arrayBuffer();
  }
}

/** Meta signs "an escaped unicode version of the payload" (W2): `ä` travels as `\u00e4`. */
function escapeNonAscii(json: string): string {
  return json.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
