import { get, send } from "./api";
import { pagedTable } from "./paged";
import { timeSeries } from "./charts";
import { card, date, h, outcome, table, uid } from "./dom";
import { customerTabs, type Customer } from "./customers";
import { pauseReasonInWords, say } from "./words";
import type { AdminComponents as components } from "@mail-ads/client/admin";
import { sendJobStatuses } from "../../db/schema/vocabulary";

// Answers of the admin API, typed from its OpenAPI document (the one source; packages/client/src/types).
type Schemas = components["schemas"];

type SendJob = Schemas["SendJob"];
type Detail = Schemas["SendJobDetail"];
type Reputation = Schemas["MailReputation"];

const STATUSES: readonly SendJob["status"][] = sendJobStatuses;
const FINAL = new Set(["completed", "cancelled", "failed"]);
const POLL_MS = 1000;

/** Recipients handled (sent or settled) of all, as a bar that says its value in words too. */
function progressBar(job: SendJob): HTMLElement {
  const done = job.recipients.total - job.recipients.pending;
  const label = `${done.toLocaleString()} of ${job.recipients.total.toLocaleString()}`;
  return h(
    "span",
    { class: "progress" },
    h("progress", { max: Math.max(1, job.recipients.total), value: done, "aria-label": `${job.name}: ${label} handled` }),
    ` ${label}`,
  );
}

/** A share as a percentage of a base, or a dash when there is no base yet. */
const rate = (part: number, base: number) => (base > 0 ? `${((100 * part) / base).toLocaleString(undefined, { maximumFractionDigits: 1 })} %` : "—");

export async function sendJobsPage(main: HTMLElement, id: string): Promise<void> {
  const customer = await get<Customer>(`customers/${id}`);
  const statusId = uid("job-status-filter");
  const status = h("select", { id: statusId }, ...["", ...STATUSES].map((s) => h("option", { value: s }, s === "" ? "Any status" : s)));
  const results = pagedTable<SendJob>(
    ["Job", "Subject", "Status", "Progress", "Created"],
    (j) => [
      h("a", { href: `#/customers/${id}/send-jobs/${j.id}` }, j.name),
      j.subject ?? "—",
      j.status + (j.mode === "sandbox" ? " (sandbox)" : ""),
      progressBar(j),
      date(j.created_at),
    ],
    "No send jobs match. Customers create and start them through the mail API.",
  );
  // Newest first, filtered and paged by the server.
  const path = () => `customers/${id}/mail/send-jobs?limit=50${status.value ? `&status=${encodeURIComponent(status.value)}` : ""}`;
  status.addEventListener("change", () => void results.load(path()));
  main.replaceChildren(
    customerTabs(customer, "send-jobs"),
    card("Send jobs", h("div", { class: "field" }, h("label", { for: statusId }, "Status"), status), results.element),
  );
  await results.load(path());
}

/**
 * One job, polled every second until it is completed, cancelled or failed; the progress bar says its value in
 * words too. A paused job says why in words; one the reputation guard paused has Resume (admin, audited: the
 * call the deliverability page makes), disabled for support by lib/console/client/roles.ts.
 */
export async function sendJobPage(main: HTMLElement, id: string, jobId: string, isCurrent: () => boolean): Promise<void> {
  const customer = await get<Customer>(`customers/${id}`);
  const status = h("p", { role: "status", "data-testid": "job-status" });
  const pauseReason = h("p", { "data-testid": "job-pause-reason", hidden: "" });
  const resume = h("button", { type: "button", "data-needs": "admin", hidden: "" }, "Resume this job");
  const resumed = outcome();
  // The guard's thresholds make its reason precise; read once, when a job of the guard is first drawn.
  let thresholds: Reputation["thresholds"] | undefined;
  let thresholdsAsked = false;
  const progressLabel = h("label", { for: "job-progress" });
  const progress = h("progress", { id: "job-progress", max: 1, value: 0 });
  const counters = h("div", {});
  const title = h("h2", {}, "Send job");
  const subject = h("p", {});
  const rates = h("div", {});
  const stats = h("div", {});
  const timeline = h("div", {});
  main.replaceChildren(
    customerTabs(customer, "send-jobs"),
    h(
      "p",
      {},
      h("a", { href: `#/customers/${id}/send-jobs` }, "← All send jobs"),
      " · ",
      h("a", { href: `#/customers/${id}/stats?job=${jobId}` }, "Charts of this job per hour or day"),
      " · ",
      h("a", { href: `#/customers/${id}/messages?send_job_id=${jobId}` }, "Its messages"),
      " · ",
      h("a", { href: `#/customers/${id}/messages?send_job_id=${jobId}&status=bounced` }, "Its bounces"),
    ),
    h(
      "section",
      { class: "card" },
      title,
      subject,
      status,
      pauseReason,
      h("p", {}, resume),
      resumed.element,
      h("p", {}, progressLabel, " ", progress),
      counters,
    ),
    card("Rates", rates),
    card("Stats", stats),
    card("Hourly timeline", timeline),
  );
  resume.addEventListener("click", async () => {
    if (!confirm("Resume this job? Its sample starts from zero and the rest of the list is sent.")) return;
    resume.disabled = true;
    try {
      const job = await send<SendJob>("POST", `customers/${id}/mail/send-jobs/${jobId}/resume`);
      resume.hidden = true;
      resumed.ok(`Job resumed: ${say("sendJobStatus", job.status)}. Recorded in the audit log.`);
    } catch (error) {
      resumed.fail(error);
    } finally {
      resume.disabled = false;
    }
  });
  const byGuard = (job: Detail) => job.status === "paused" && (job.pause_reason === "bounce_rate" || job.pause_reason === "complaint_rate");
  const draw = (job: Detail) => {
    const done = job.recipients.total - job.recipients.pending;
    title.textContent = job.name;
    subject.replaceChildren(h("strong", {}, "Subject: "), job.subject ?? "—", h("span", { class: "hint" }, ` · job id ${job.id}`));
    const accepted = job.recipients.accepted;
    rates.replaceChildren(
      table(
        ["Delivered", "Bounced", "Spam complaints", "Opened (unique)", "Clicked (unique)"],
        [
          [
            rate(job.stats.delivered, accepted),
            rate(job.stats.bounces, accepted),
            rate(job.stats.complaints, accepted),
            rate(job.stats.unique_opens, accepted),
            rate(job.stats.unique_clicks, accepted),
          ],
        ],
      ),
      h("p", { class: "hint" }, `Of the ${accepted.toLocaleString()} messages Postmark accepted; opens and clicks keep arriving for days.`),
    );
    status.textContent = `Status: ${job.status}${job.pause_reason ? ` (paused: ${say("pauseReason", job.pause_reason)})` : ""}${job.error ? ` (error: ${job.error})` : ""}`;
    pauseReason.hidden = job.status !== "paused";
    pauseReason.textContent = job.status === "paused" ? pauseReasonInWords(job.pause_reason, thresholds) : "";
    resume.hidden = !byGuard(job);
    progress.max = Math.max(1, job.recipients.total);
    progress.value = done;
    progressLabel.textContent = `Progress: ${done} of ${job.recipients.total} recipients handled, ${job.batches?.completed ?? 0} batches sent, ${job.batches?.remaining ?? 0} to go`;
    const unknown = job.recipients.unknown;
    counters.replaceChildren(
      table(Object.keys(job.recipients), [Object.values(job.recipients).map(String)]),
      // Messages whose provider call is in doubt: being reconciled while the job runs; for good once it has ended.
      ...(unknown > 0
        ? [
            h(
              "p",
              { class: "warning", id: "job-unknown" },
              FINAL.has(job.status)
                ? `${unknown} recipients ended unknown: Postmark could neither confirm nor deny receiving them; they were not sent again.`
                : `${unknown} recipients are in doubt: their provider call got no definite answer; they are being reconciled with Postmark before any is sent again.`,
            ),
          ]
        : []),
      // Postmark showed late that it had received a batch decided never received and sent again.
      ...(job.recipients.sent_twice > 0
        ? [
            h(
              "p",
              { class: "warning", id: "job-sent-twice" },
              `${job.recipients.sent_twice} recipients got this mail twice: Postmark took in a call after the service had decided it never would, and the mail had gone out again. Both copies count in usage, as Postmark counts them.`,
            ),
          ]
        : []),
      h("p", { class: "hint" }, `Created ${date(job.created_at)}, started ${date(job.started_at)}, finished ${date(job.completed_at)}.`),
    );
    stats.replaceChildren(table(Object.keys(job.stats), [Object.values(job.stats).map(String)]));
    timeline.replaceChildren(
      job.timeline.length === 0
        ? h("p", {}, "No activity recorded yet.")
        : timeSeries({
            title: "Hourly timeline",
            times: job.timeline.map((t) => Date.parse(t.hour)),
            series: (["accepted", "delivered", "opens", "clicks", "bounces"] as const).map((key) => ({ label: key, values: job.timeline.map((t) => t[key]) })),
          }),
    );
  };
  for (;;) {
    const job = await get<Detail>(`customers/${id}/mail/send-jobs/${jobId}`);
    if (byGuard(job) && !thresholdsAsked) {
      thresholdsAsked = true;
      // Without them the reason still reads right, only without the figures.
      thresholds = await get<Reputation>(`customers/${id}/mail/reputation`).then(
        (r) => r.thresholds,
        () => undefined,
      );
    }
    if (!isCurrent()) return;
    draw(job);
    if (FINAL.has(job.status)) return;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    if (!isCurrent()) return;
  }
}
