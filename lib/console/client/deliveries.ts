import type { AdminComponents as components } from "@mail-ads/client/admin";
import { get, getPage, send } from "./api";
import { card, h, outcome, table } from "./dom";
import { customerTabs, type Customer } from "./customers";

/**
 * An endpoint's delivery log to debug with: per delivery its time, state, each attempt (start, status code, latency, error), the
 * receiver's answer (the first 1,024 bytes, as stored), the request we sent (headers and body; the signature
 * is made per attempt and not stored), the next attempt. Redeliver updates the row where it is: the page
 * follows that delivery until its attempt has an outcome. "Send a test event" adds a `webhook.test` delivery at
 * the top and follows it the same way.
 */
type Webhook = components["schemas"]["CustomerWebhook"];
type Delivery = components["schemas"]["WebhookDelivery"] | components["schemas"]["AdsWebhookDelivery"];

const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "medium" }) : "—");
const STATES: Record<Delivery["status"], string> = { pending: "Waiting for an attempt", delivered: "Delivered", failed: "Failed" };

function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

export async function deliveriesPage(main: HTMLElement, id: string, service: string, webhookId: string): Promise<void> {
  const customer = await get<Customer>(`customers/${id}`);
  const endpoint = (await get<Webhook[]>(`customers/${id}/${service}/webhooks`)).find((w) => w.id === webhookId);
  const result = outcome();
  const base = `customers/${id}/${service}/webhooks/${webhookId}/deliveries`;
  const list = h("div", {});
  let after: string | null = null;

  const row = (d: Delivery): HTMLElement => {
    const element: HTMLElement = h(
      "details",
      { class: "delivery", "data-delivery": d.id },
      h(
        "summary",
        {},
        h("span", { class: "when" }, when(d.last_attempt_at ?? d.created_at)),
        h("strong", {}, d.event),
        h("span", { class: `state ${d.status}`, "data-testid": "delivery-state" }, STATES[d.status] + (d.redelivered_at ? " (redelivered)" : "")),
        h("span", {}, d.status_code === null ? "no answer" : `HTTP ${d.status_code}`),
        h("span", {}, d.latency_ms === null ? "" : `${d.latency_ms} ms`),
      ),
      h(
        "dl",
        { class: "facts" },
        h("dt", {}, "Attempts"),
        h("dd", {}, String(d.attempts)),
        h("dt", {}, "Queued"),
        h("dd", {}, when(d.created_at)),
        h("dt", {}, "Last attempt"),
        h("dd", {}, when(d.last_attempt_at)),
        h("dt", {}, "Next attempt"),
        h("dd", {}, d.next_attempt_at ? when(d.next_attempt_at) : "None"),
        h("dt", {}, "Error"),
        h("dd", {}, d.error ?? "—"),
      ),
      h("h3", {}, "Attempts"),
      d.attempt_history.length === 0
        ? h("p", { class: "hint" }, "No attempt has finished yet.")
        : table(
            ["Attempt", "Started", "Answer", "Latency", "Error"],
            d.attempt_history.map((a) => [
              String(a.attempt),
              when(a.at),
              a.status_code === null ? "no answer" : `HTTP ${a.status_code}`,
              `${a.latency_ms} ms`,
              a.error ?? "—",
            ]),
          ),
      h("h3", {}, "The receiver's answer"),
      d.response_excerpt ? h("pre", { class: "body", "data-testid": "response-body" }, d.response_excerpt) : h("p", { class: "hint" }, "No answer body."),
      h("p", { class: "hint" }, "The first 1,024 bytes, as stored."),
      h("h3", {}, "The request we sent"),
      h(
        "pre",
        { class: "body" },
        Object.entries(d.request.headers)
          .map(([name, value]) => `${name}: ${value}`)
          .join("\n"),
      ),
      h("pre", { class: "body", "data-testid": "request-body" }, pretty(d.request.body)),
      h(
        "button",
        {
          type: "button",
          class: "secondary",
          "data-needs": "support",
          "aria-label": `Redeliver ${d.event} of ${when(d.created_at)}`,
          onclick: async () => {
            try {
              await send("POST", `${base}/${d.id}/redeliver`);
              result.ok(`Redelivery of ${d.event} queued; this row shows its outcome.`);
              await follow(d.id, element);
            } catch (error) {
              result.fail(error);
            }
          },
        },
        "Redeliver",
      ),
    );
    return element;
  };

  /** Reads the delivery again until its attempt is done, replacing its row each time (kept open). */
  const follow = async (deliveryId: string, element: HTMLElement): Promise<void> => {
    let current = element;
    for (let i = 0; i < 40; i++) {
      const page = await getPage<Delivery>(`${base}?limit=100`);
      const fresh = page.data.find((d) => d.id === deliveryId);
      if (!fresh || !current.isConnected) return;
      const next = row(fresh);
      next.setAttribute("open", "");
      current.replaceWith(next);
      current = next;
      if (fresh.status !== "pending") return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };

  const more = h("button", { type: "button", class: "secondary", "data-read": "", hidden: true }, "Older deliveries");
  const load = async (reset: boolean) => {
    if (reset) {
      after = null;
      list.replaceChildren();
    }
    const page = await getPage<Delivery>(`${base}?limit=25${after ? `&after=${encodeURIComponent(after)}` : ""}`);
    if (reset && page.data.length === 0) list.replaceChildren(h("p", {}, "No deliveries yet."));
    for (const d of page.data) list.appendChild(row(d));
    after = page.paging.after;
    more.hidden = !page.paging.has_next;
  };
  more.addEventListener("click", () => void load(false));

  main.replaceChildren(
    customerTabs(customer, "webhooks"),
    h("p", {}, h("a", { href: `#/customers/${id}/webhooks` }, "← All webhooks")),
    card(
      `Deliveries to ${endpoint?.url ?? "this endpoint"}`,
      h(
        "p",
        { class: "hint" },
        `${endpoint?.active === false ? "Switched off (re-enable it on the webhooks page)" : "Active"}; events: ${endpoint?.events.join(", ") ?? "—"}. Times in ${zone}. Open a delivery for its answer and request.`,
      ),
      result.element,
      h(
        "div",
        { class: "row" },
        h("button", { type: "button", class: "secondary", "data-read": "", onclick: () => void load(true) }, "Reload"),
        h(
          "button",
          {
            type: "button",
            class: "secondary",
            "data-needs": "support",
            title: "Posts a signed `webhook.test` event to this endpoint now; it appears below with the endpoint's answer.",
            onclick: async () => {
              try {
                const sent = await send<Delivery>("POST", `customers/${id}/${service}/webhooks/${webhookId}/test`);
                result.ok("Test event queued; its row below shows the endpoint's answer.");
                list.querySelector(":scope > p")?.remove();
                const element = row(sent);
                list.prepend(element);
                await follow(sent.id, element);
              } catch (error) {
                result.fail(error);
              }
            },
          },
          "Send a test event",
        ),
      ),
      list,
      more,
    ),
  );
  await load(true);
}
