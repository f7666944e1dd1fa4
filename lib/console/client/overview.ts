import type { AdminComponents as components } from "@mail-ads/client/admin";
import { get } from "./api";
import { card, h, table } from "./dom";
import { WORDS, at, say } from "./words";

/**
 * The landing page: what happens across customers in a period (today, 7 or 30 days in the operator's time
 * zone), every figure a link to the list behind it (the lists take the answer's `since`/`until`, whole hours).
 */
type Overview = components["schemas"]["Overview"];
type Counts = components["schemas"]["OverviewStateCounts"];

const PERIODS = [
  { key: "today", label: "Today" },
  { key: "7d", label: "Last 7 days" },
  { key: "30d", label: "Last 30 days" },
] as const;
type PeriodKey = (typeof PERIODS)[number]["key"];

function startOf(period: PeriodKey, now: Date): Date {
  const midnight = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  if (period === "today") return midnight;
  return new Date(midnight.getTime() - (period === "7d" ? 6 : 29) * 86_400_000);
}

const percent = (share: number | null) => (share === null ? "—" : `${(share * 100).toFixed(1)} %`);
const number = (n: number) => n.toLocaleString("en");

const STATE_LABELS: Record<keyof Counts, string> = WORDS.messageStatus;
const SHOWN: (keyof Counts)[] = ["accepted", "delivered", "bounced", "complained", "suppressed", "failed", "pending"];

export async function overviewPage(main: HTMLElement, query: string): Promise<void> {
  const chosen = (new URLSearchParams(query).get("period") as PeriodKey | null) ?? "today";
  const period = PERIODS.some((p) => p.key === chosen) ? chosen : "today";
  const o = await get<Overview>(`overview?since=${encodeURIComponent(startOf(period, new Date()).toISOString())}`);
  const range = `since=${encodeURIComponent(o.since)}&until=${encodeURIComponent(o.until)}`;
  const listLink = (customerId: string | null, state: keyof Counts, n: number) =>
    h(
      "a",
      {
        href: customerId ? `#/customers/${customerId}/messages?status=${state}&${range}` : `#/search?status=${state}&${range}`,
        "data-figure": `${customerId ?? "all"}:${state}`,
      },
      number(n),
    );
  const jobs = o.send_jobs.jobs;
  main.replaceChildren(
    h("h1", {}, "Overview"),
    h(
      "nav",
      { "aria-label": "Period", class: "tabs-row" },
      h(
        "ul",
        { class: "tabs" },
        ...PERIODS.map((p) => h("li", {}, h("a", { href: `#/overview?period=${p.key}`, "aria-current": p.key === period ? "page" : null }, p.label))),
      ),
      h("p", { class: "hint" }, `Messages created from ${at(o.since)} to ${at(o.until)}, by their state now.`),
    ),
    h(
      "div",
      { class: "tiles" },
      ...SHOWN.slice(0, 4).map((state) =>
        h(
          "section",
          { class: "tile", "aria-label": STATE_LABELS[state] },
          h("p", { class: "tile-label" }, STATE_LABELS[state]),
          h("p", { class: "tile-figure" }, listLink(null, state, o.mail.totals[state])),
          state === "accepted" ? null : h("p", { class: "hint" }, percent(o.mail.rates[state as "delivered" | "bounced" | "complained"])),
        ),
      ),
    ),
    card(
      "Mail by customer",
      o.mail.customers.length === 0
        ? h("p", {}, "No mail in this period.")
        : table(
            ["Customer", ...SHOWN.map((s) => STATE_LABELS[s]), "Delivery rate", "Bounce rate"],
            o.mail.customers.map((c) => [
              h("a", { href: `#/customers/${c.customer_id}` }, c.customer_name),
              ...SHOWN.map((s) => listLink(c.customer_id, s, c.counts[s])),
              percent(c.rates.delivered),
              percent(c.rates.bounced),
            ]),
          ),
    ),
    card(
      "Send jobs",
      h("p", {}, `${o.send_jobs.running} sending, ${o.send_jobs.scheduled} scheduled, ${o.send_jobs.paused} paused.`),
      jobs.length === 0
        ? null
        : table(
            ["Job", "Customer", "State", "Progress"],
            jobs.map((j) => [
              h("a", { href: `#/customers/${j.customer_id}/send-jobs/${j.id}` }, j.name ?? "Unnamed job"),
              j.customer_name,
              say("sendJobStatus", j.status) + (j.pause_reason ? ` (${say("pauseReason", j.pause_reason)})` : ""),
              h(
                "span",
                {},
                h("progress", { max: 1, value: j.progress, "aria-label": `Progress of ${j.name ?? "the job"}` }),
                ` ${number(j.done)} of ${number(j.total)}`,
              ),
            ]),
          ),
    ),
    card(
      "Webhook endpoints failing",
      o.webhooks_failing.length === 0
        ? h("p", {}, "Every endpoint answers.")
        : table(
            ["Endpoint", "Customer", "Service", "State", "Failed attempts since last success"],
            o.webhooks_failing.map((w) => [
              h("a", { href: `#/customers/${w.customer_id}/webhooks/${w.service}/${w.webhook_id}` }, w.url),
              w.customer_name,
              say("service", w.service),
              w.active ? "Active, retrying" : "Switched off after 24 hours of failures",
              number(w.failure_count),
            ]),
          ),
    ),
    card(
      "Customers to watch",
      o.customers_attention.length === 0
        ? h("p", {}, "No customer is blocked or near the monthly limit.")
        : table(
            ["Customer", "Sending", "This month", "Monthly limit"],
            o.customers_attention.map((c) => [
              h("a", { href: `#/customers/${c.customer_id}/mail/usage` }, c.customer_name),
              c.sending_blocked ? "Blocked" : "Open",
              `${number(c.sent_this_month)} (${percent(c.sent_this_month / c.monthly_limit)})`,
              number(c.monthly_limit),
            ]),
          ),
    ),
    card(
      "Providers and queue",
      table(
        ["Provider", "Calls", "Error rate", "Latency (95th percentile)"],
        (["postmark", "graph"] as const).map((name) => {
          const p = o.providers[name];
          return [
            name === "postmark" ? "Postmark" : "Meta Graph",
            number(p.calls),
            percent(p.calls === 0 ? null : p.error_rate),
            p.latency_p95_ms === null ? "—" : `${p.latency_p95_ms} ms`,
          ];
        }),
        "This server's calls since it started.",
      ),
      h(
        "p",
        {},
        `Send-job batches waiting: ${number(o.queue.send_job_batches_waiting)}` +
          (o.queue.send_job_batches_oldest_wait_seconds === null ? "" : `, oldest ${o.queue.send_job_batches_oldest_wait_seconds} s`) +
          `. Webhook deliveries due: ${number(o.queue.webhook_deliveries_due)}` +
          (o.queue.webhook_deliveries_oldest_due_seconds === null ? "." : `, oldest ${o.queue.webhook_deliveries_oldest_due_seconds} s.`),
        " ",
        h("a", { href: "#/system" }, "System details"),
      ),
    ),
    card(
      "Ads",
      o.ads.customers.length === 0
        ? h("p", {}, "No ads figures for these days.")
        : table(
            ["Customer", "Spend", "Impressions", "Clicks"],
            o.ads.customers.map((a) => [
              h("a", { href: `#/customers/${a.customer_id}/ads/insights` }, a.customer_name),
              (a.spend_minor / 100).toLocaleString("en", { minimumFractionDigits: 2 }),
              number(a.impressions),
              number(a.clicks),
            ]),
            "Spend in each ad account's currency, over the account's days in the period.",
          ),
    ),
  );
}
