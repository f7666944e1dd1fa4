import { get, getAll, send } from "./api";
import { card, date, form, h, outcome, table, uid } from "./dom";
import { customerTabs, type Customer } from "./customers";
import { pauseReasonInWords } from "./words";
import type { AdminComponents as components } from "@mail-ads/client/admin";

// Answers of the admin API, typed from its OpenAPI document (the one source; packages/client/src/types).
type Schemas = components["schemas"];
type ProviderStatus = Schemas["MailProviderStatus"];
type Checks = Schemas["MailSenderChecks"];
type DomainCheck = Checks["domains"][number];
type SenderCheck = Checks["senders"][number];
type DnsRecord = DomainCheck["dns_records"][number];
type Reputation = Schemas["MailReputation"];
type SendJob = Schemas["SendJob"];

/*
 * A customer's deliverability (`#/customers/<id>/deliverability`): what Postmark says of its senders and
 * domains and what to publish in DNS, the Postmark account token that lets the service ask, the 30-day
 * reputation against the guard's thresholds, and the jobs the guard paused. Support reads everything and may
 * ask Postmark again ("check again" is open to support in the API); the token, the thresholds and resuming a
 * job need an admin (lib/console/client/roles.ts disables those controls for support).
 */

const percent = (fraction: number) => `${(fraction * 100).toLocaleString(undefined, { maximumFractionDigits: 3 })} %`;
const mark = (ok: boolean, yes: string, no: string) => h("span", { class: "badge" }, ok ? `✓ ${yes}` : `✗ ${no}`);

/** A button that copies `value` (a read: open to every role). */
function copyButton(value: string, name: string, state: HTMLElement): HTMLButtonElement {
  const button = h("button", { type: "button", class: "secondary small", "data-read": "", "aria-label": `Copy ${name}` }, "Copy");
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(value);
      state.textContent = `Copied ${name}.`;
    } catch {
      state.textContent = "The browser refused the clipboard; select the text and copy it by hand.";
    }
  });
  return button;
}

const PURPOSE: Record<DnsRecord["purpose"], string> = {
  dkim: "DKIM (Postmark signs with it; required)",
  return_path: "Return-Path (bounces aligned for DMARC; recommended)",
  spf: "SPF",
  dmarc: "DMARC (our recommendation; Postmark does not report it)",
};

function senderRow(s: SenderCheck) {
  const state = s.confirmed
    ? mark(true, s.signature_confirmed ? "confirmed (sender signature)" : "confirmed (its domain's DKIM is verified)", "")
    : mark(
        false,
        "",
        s.found_at_postmark
          ? "not confirmed: the signature's confirmation e-mail is unanswered"
          : "not at Postmark: add it as a sender signature or verify its domain",
      );
  return [s.email, state, date(s.checked_at)];
}

function domainSection(d: DomainCheck, copied: HTMLElement): HTMLElement {
  return h(
    "section",
    { class: "domain", "aria-label": `Domain ${d.domain}`, "data-domain": d.domain },
    h("h3", {}, d.domain),
    d.found_at_postmark
      ? h(
          "ul",
          {},
          h("li", {}, "DKIM: ", mark(d.dkim_verified, "verified", "not verified")),
          h("li", {}, "Return-Path: ", mark(d.return_path_verified, "verified", "not verified (warning)")),
          h("li", {}, "SPF: ", mark(d.spf_verified, "verified", "not verified (no longer required by Postmark)")),
        )
      : h("p", {}, mark(false, "", "not at Postmark: add the domain in Postmark (Sender signatures → Domains) and check again")),
    h("p", { class: "hint" }, `Checked ${date(d.checked_at)}.`),
    d.dns_records.length === 0
      ? h("p", {}, "Nothing to publish.")
      : table(
          ["Record", "Host", "Type", "Value"],
          d.dns_records.map((r) => [
            PURPOSE[r.purpose],
            h("span", { class: "row" }, h("code", {}, r.host), copyButton(r.host, `the host of the ${r.purpose} record of ${d.domain}`, copied)),
            r.type,
            h(
              "span",
              { class: "row" },
              h("code", { class: "dns-value" }, r.value),
              copyButton(r.value, `the value of the ${r.purpose} record of ${d.domain}`, copied),
            ),
          ]),
          `DNS records to publish for ${d.domain}`,
        ),
  );
}

/** Senders and domains as Postmark last reported them, with "check again" (Postmark's verify endpoints, then a fresh read). */
function sendersCard(id: string, initial: Checks): HTMLElement {
  const body = h("div", { "data-testid": "sender-checks" });
  const copied = h("p", { role: "status", class: "hint" });
  const result = outcome();
  const draw = (checks: Checks) => {
    body.replaceChildren(
      ...(
        [
          checks.account_token_set
            ? h("p", { "data-testid": "last-checked" }, `Last checked with Postmark: ${date(checks.checked_at)}.`)
            : h(
                "p",
                { class: "warning" },
                "No Postmark account token: nothing is checked with Postmark and readiness warns “not checked with Postmark”. Give the token below.",
              ),
          checks.error ? h("p", { class: "error", role: "alert" }, `The last check could not read Postmark: ${checks.error}. Shown: the check before.`) : null,
          h("h3", {}, "Senders"),
          checks.senders.length === 0 ? h("p", {}, "No sender checked yet.") : table(["Address", "At Postmark", "Checked"], checks.senders.map(senderRow)),
          h("h3", {}, "Domains"),
          checks.domains.length === 0 ? h("p", {}, "No domain checked yet.") : h("div", {}, ...checks.domains.map((d) => domainSection(d, copied))),
        ] as (HTMLElement | null)[]
      ).filter((x): x is HTMLElement => x !== null),
    );
  };
  draw(initial);
  const again = h("button", { type: "button", "data-needs": "support" }, "Check again");
  again.addEventListener("click", async () => {
    again.disabled = true;
    result.clear();
    try {
      const checks = await send<Checks>("POST", `customers/${id}/mail/senders/check`);
      draw(checks);
      result.ok(checks.error ? "Asked Postmark; it could not be read (see above)." : `Checked with Postmark at ${date(checks.checked_at)}.`);
    } catch (error) {
      result.fail(error);
    } finally {
      again.disabled = false;
    }
  });
  return card(
    "Senders and domains at Postmark",
    h(
      "p",
      { class: "hint" },
      "A sender is ready only when Postmark confirms it: its sender signature is confirmed, or its domain's DKIM is verified. After publishing the records below, “Check again” asks Postmark to look them up.",
    ),
    h("div", { class: "row" }, again),
    result.element,
    body,
    copied,
  );
}

function tokenCard(id: string, config: ProviderStatus): HTMLElement {
  const state = config.account_token_state;
  const known = !state.set
    ? "None stored."
    : `One is stored${state.changed_at ? `, last changed ${date(state.changed_at)} by ${state.changed_by?.email ?? state.changed_by?.actor_type ?? "unknown"}` : ""}.`;
  return card(
    "Postmark account token",
    h("p", { "data-testid": "account-token-state" }, known),
    form({
      submit: "Save account token",
      fields: [
        {
          path: "account_token",
          label: "Postmark account token",
          type: "password",
          hint: "Write-only: stored encrypted, never shown again. Postmark: Account → API Tokens. Saving checks the senders with Postmark at once.",
        },
      ],
      onSubmit: async (values) => {
        const token = String(values.account_token ?? "").trim();
        if (token === "") throw new Error("Enter the token to store (leave the page to keep the stored one).");
        await send("PATCH", `customers/${id}/mail/provider`, { account_token: token });
        for (const input of Array.from(document.querySelectorAll<HTMLInputElement>('input[name="account_token"]'))) input.value = "";
        return "Saved and checked with Postmark. Reload the page to see the senders and domains.";
      },
    }),
  );
}

const SVG = "http://www.w3.org/2000/svg";
function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

/**
 * One rate, newsletters and transactional mail as two bars, with the guard's threshold drawn across them
 * (dashed, labelled). The title says every value and the threshold in words, so nothing is told by the
 * picture alone.
 */
function rateChart(input: { title: string; threshold: number; bars: { label: string; value: number }[] }): HTMLElement {
  const width = 560;
  const rowHeight = 34;
  const left = 130;
  const top = 24;
  const height = top + rowHeight * input.bars.length + 8;
  const max = Math.max(input.threshold * 2, ...input.bars.map((b) => b.value * 1.1), 1e-6);
  const x = (value: number) => left + ((width - left - 10) * Math.min(value, max)) / max;
  const id = uid("rate");
  const root = svg("svg", { class: "chart", viewBox: `0 0 ${width} ${height}`, width: "100%", role: "img", "aria-labelledby": id });
  root.appendChild(
    svg(
      "title",
      { id },
      `${input.title}: ${input.bars.map((b) => `${b.label} ${percent(b.value)}`).join(", ")}; threshold ${percent(input.threshold)}${input.bars.some((b, i) => i === 0 && b.value > input.threshold) ? " (newsletters above it)" : ""}`,
    ),
  );
  input.bars.forEach((bar, i) => {
    const y = top + i * rowHeight;
    root.appendChild(svg("text", { x: 0, y: y + 18 }, bar.label));
    root.appendChild(
      svg("rect", { x: left, y: y + 4, width: Math.max(1, x(bar.value) - left), height: rowHeight - 12, fill: i === 0 ? "#0b57d0" : "#146c2e" }),
    );
    root.appendChild(svg("text", { x: Math.min(x(bar.value) + 4, width - 60), y: y + 18 }, percent(bar.value)));
  });
  const tx = x(input.threshold);
  root.appendChild(
    svg("line", {
      x1: tx,
      y1: top - 6,
      x2: tx,
      y2: height,
      stroke: "#b3261e",
      "stroke-width": 2,
      "stroke-dasharray": "6 3",
      "data-threshold": input.threshold,
    }),
  );
  root.appendChild(svg("text", { x: Math.min(tx + 4, width - 120), y: top - 10, fill: "#b3261e" }, `threshold ${percent(input.threshold)}`));
  return h("figure", { "data-testid": `chart-${input.title}` }, h("figcaption", {}, input.title), root);
}

function reputationCard(id: string, initial: Reputation): HTMLElement {
  const body = h("div", {});
  const draw = (r: Reputation) => {
    const n = r.newsletter;
    const t = r.transactional;
    body.replaceChildren(
      ...(
        [
          h(
            "p",
            { class: "hint" },
            `Live mail accepted since ${date(r.since)} (30 days). Newsletters are what the guard judges; transactional mail is shown apart and never paused.`,
          ),
          r.over_complaint_threshold
            ? h(
                "p",
                { class: "warning", role: "alert" },
                `The newsletter complaint rate (${percent(n.complaint_rate)}) is above the threshold (${percent(r.thresholds.complaint_rate)}): readiness warns.`,
              )
            : null,
          r.paused_jobs > 0 ? h("p", { class: "warning" }, `${r.paused_jobs} job${r.paused_jobs === 1 ? "" : "s"} paused by the guard (below).`) : null,
          table(
            ["", "Delivered", "Outcomes", "Hard bounces", "Hard-bounce rate", "Complaints", "Complaint rate", "Unsubscribes"],
            [
              [
                "Newsletters",
                n.delivered,
                n.outcomes,
                n.hard_bounces,
                percent(n.hard_bounce_rate),
                n.complaints,
                percent(n.complaint_rate),
                n.unsubscribes,
              ].map(String),
              ["Transactional", t.delivered, t.outcomes, t.hard_bounces, percent(t.hard_bounce_rate), t.complaints, percent(t.complaint_rate), "—"].map(String),
            ],
            "Reputation figures of the last 30 days",
          ),
          h(
            "div",
            { class: "charts" },
            rateChart({
              title: "Hard-bounce rate",
              threshold: r.thresholds.bounce_rate,
              bars: [
                { label: "Newsletters", value: n.hard_bounce_rate },
                { label: "Transactional", value: t.hard_bounce_rate },
              ],
            }),
            rateChart({
              title: "Complaint rate",
              threshold: r.thresholds.complaint_rate,
              bars: [
                { label: "Newsletters", value: n.complaint_rate },
                { label: "Transactional", value: t.complaint_rate },
              ],
            }),
          ),
          h(
            "p",
            { "data-testid": "guard-thresholds" },
            `Guard thresholds: hard-bounce rate ${percent(r.thresholds.bounce_rate)}, complaint rate ${percent(r.thresholds.complaint_rate)}, after ${r.thresholds.min_sample.toLocaleString()} outcomes of a job (defaults ${percent(r.defaults.bounce_rate)}, ${percent(r.defaults.complaint_rate)}, ${r.defaults.min_sample.toLocaleString()}).`,
          ),
        ] as (HTMLElement | null)[]
      ).filter((x): x is HTMLElement => x !== null),
    );
  };
  draw(initial);
  const pct = (value: unknown) => (value === null || value === undefined || value === "" ? undefined : Number(value) / 100);
  return card(
    "Reputation (30 days) and the guard's thresholds",
    body,
    form({
      title: "Change this customer's thresholds",
      submit: "Save thresholds",
      sendOnlyChanged: true,
      fields: [
        {
          path: "bounce_rate",
          label: "Hard-bounce rate threshold (%)",
          type: "number",
          value: initial.thresholds.bounce_rate * 100,
          hint: "Between 0.5 and 10.",
        },
        {
          path: "complaint_rate",
          label: "Complaint rate threshold (%)",
          type: "number",
          value: initial.thresholds.complaint_rate * 100,
          hint: "Between 0.05 and 0.3.",
        },
        { path: "min_sample", label: "Minimum sample (outcomes)", type: "number", value: initial.thresholds.min_sample, hint: "Between 100 and 10,000." },
        { path: "reset", label: "Back to the defaults (the fields above are then ignored)", type: "checkbox", value: false },
      ],
      onSubmit: async (values) => {
        const body = values.reset
          ? { reset: true }
          : Object.fromEntries(
              Object.entries({
                bounce_rate: pct(values.bounce_rate),
                complaint_rate: pct(values.complaint_rate),
                min_sample: values.min_sample ?? undefined,
              }).filter(([, v]) => v !== undefined),
            );
        if (Object.keys(body).length === 0) return "Nothing changed.";
        const r = await send<Reputation>("PATCH", `customers/${id}/mail/reputation`, body);
        draw(r);
        return "Saved; running jobs are judged by the new thresholds from their next event.";
      },
    }),
  );
}

/** Paused jobs with why in words; the guard's pauses with Resume (admin, audited). */
function pausedJobsCard(id: string, jobs: SendJob[], thresholds: Reputation["thresholds"]): HTMLElement {
  const result = outcome();
  const rows = jobs.map((job) => {
    const byGuard = job.pause_reason === "bounce_rate" || job.pause_reason === "complaint_rate";
    const resume = byGuard ? h("button", { type: "button", "data-needs": "admin", "aria-label": `Resume job ${job.id.slice(0, 8)}` }, "Resume") : null;
    const state = h("span", { "data-testid": `job-state-${job.id}` }, "paused");
    resume?.addEventListener("click", async () => {
      if (!confirm("Resume this job? Its sample starts from zero and the rest of the list is sent.")) return;
      resume.disabled = true;
      try {
        const resumed = await send<SendJob>("POST", `customers/${id}/mail/send-jobs/${job.id}/resume`);
        state.textContent = resumed.status;
        resume.remove();
        result.ok(`Job ${job.id.slice(0, 8)} resumed: ${resumed.status}. Recorded in the audit log.`);
      } catch (error) {
        resume.disabled = false;
        result.fail(error);
      }
    });
    return [
      h("a", { href: `#/customers/${id}/send-jobs/${job.id}` }, `Job ${job.id.slice(0, 8)}`),
      state,
      h("span", { "data-testid": `pause-reason-${job.id}` }, pauseReasonInWords(job.pause_reason, thresholds)),
      `${job.recipients.total - job.recipients.pending} of ${job.recipients.total}`,
      resume ?? "Resumed by the customer's start.",
    ];
  });
  return card("Paused send jobs", jobs.length === 0 ? h("p", {}, "No paused job.") : table(["Job", "Status", "Why", "Sent", ""], rows), result.element);
}

export async function customerDeliverabilityPage(main: HTMLElement, id: string): Promise<void> {
  const [customer, config, checks, reputation, paused] = await Promise.all([
    get<Customer>(`customers/${id}`),
    get<ProviderStatus>(`customers/${id}/mail/provider`),
    get<Checks>(`customers/${id}/mail/senders`),
    get<Reputation>(`customers/${id}/mail/reputation`),
    getAll<SendJob>(`customers/${id}/mail/send-jobs?status=paused`, 5),
  ]);
  main.replaceChildren(
    customerTabs(customer, "deliverability"),
    pausedJobsCard(id, paused, reputation.thresholds),
    sendersCard(id, checks),
    tokenCard(id, config),
    reputationCard(id, reputation),
  );
}
