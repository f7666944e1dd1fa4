import { get } from "./api";
import { card, date, h, table } from "./dom";
import type { AdminComponents as components } from "@mail-ads/client/admin";

// Answers of the admin API, typed from its OpenAPI document (the one source; packages/client/src/types).
type Schemas = components["schemas"];
type System = Schemas["SystemStatus"];
type ProviderCalls = Schemas["SystemProviderCalls"];

const REFRESH_MS = 5000;
const age = (seconds: number | null) => (seconds === null ? "—" : seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`);
const percent = (rate: number) => `${(rate * 100).toFixed(rate > 0 && rate < 0.01 ? 2 : 1)} %`;

/** `GET /admin/v1/system`, redrawn every five seconds while the page is open. */
export async function systemPage(main: HTMLElement, isCurrent: () => boolean): Promise<void> {
  const draw = (s: System) => {
    const provider = (name: string, p: ProviderCalls) => [
      name,
      String(p.calls),
      String(p.errors),
      percent(p.error_rate),
      p.latency_ms ? `${p.latency_ms.p50} ms` : "—",
      p.latency_ms ? `${p.latency_ms.p95} ms` : "—",
      date(p.since),
    ];
    main.replaceChildren(
      h("h1", {}, "System"),
      h("p", { class: "hint", role: "status" }, `Figures of ${date(s.generated_at)}; refreshed every ${REFRESH_MS / 1000} s.`),
      card(
        "Queue",
        table(
          ["Work", "Waiting", "Oldest"],
          [
            ["Send-job batches", String(s.queue.send_job_batches.waiting), age(s.queue.send_job_batches.oldest_wait_seconds)],
            ["Webhook deliveries due", String(s.queue.webhook_deliveries.due), age(s.queue.webhook_deliveries.oldest_due_seconds)],
          ],
          `Queue: ${s.queue.kind === "qstash" ? "QStash" : "in this process"}. Waiting work read from the database.`,
        ),
      ),
      card(
        "Send jobs",
        table(["Running", "Paused", "Batches in flight"], [[String(s.send_jobs.running), String(s.send_jobs.paused), String(s.send_jobs.batches_in_flight)]]),
      ),
      card(
        "Providers",
        table(
          ["Provider", "Calls", "Errors", "Error rate", "p50", "p95", "Counting since"],
          [provider("Postmark", s.providers.postmark), provider("Graph API", s.providers.graph)],
          "This instance since it started; other instances keep their own counts.",
        ),
      ),
      card(
        "Webhook deliveries",
        table(
          ["Service", "Failed (24 h)", "Retrying"],
          [
            ["Mail", String(s.webhook_failures.mail.failed_last_24h), String(s.webhook_failures.mail.retrying)],
            ["Ads", String(s.webhook_failures.ads.failed_last_24h), String(s.webhook_failures.ads.retrying)],
          ],
        ),
      ),
      card(
        "Reconciliation",
        table(
          ["Batches in doubt", "Oldest", "Unknown messages"],
          [[String(s.reconcile.batches_in_doubt), age(s.reconcile.oldest_in_doubt_seconds), String(s.reconcile.unknown_messages)]],
        ),
      ),
    );
  };
  draw(await get<System>("system"));
  const refresh = async () => {
    if (!isCurrent()) return;
    try {
      const next = await get<System>("system");
      if (isCurrent()) draw(next);
    } finally {
      if (isCurrent()) setTimeout(refresh, REFRESH_MS);
    }
  };
  setTimeout(refresh, REFRESH_MS);
}
