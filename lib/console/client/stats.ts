import type { AdminComponents as components } from "@mail-ads/client/admin";
import { get } from "./api";
import { timeSeries } from "./charts";
import { customerTabs, type Customer } from "./customers";
import { card, h, table, uid } from "./dom";

/**
 * A customer's activity as charts, for people who look rather than read: its mail per UTC hour or day
 * (accepted, delivered, bounced, complained, first opened, first clicked), for the whole customer or one
 * send job (`#/customers/<id>/stats?job=<job-id>`), and its ads' insights per day and ad set, by the ad
 * set's name. Each chart is one uPlot figure (bundled with the console) with its numbers in a table.
 */
type Schemas = components["schemas"];
type MailStats = Schemas["MailStats"];
type DailyInsights = Schemas["AdSetDailyInsights"];
type Detail = Schemas["SendJobDetail"];

const MAIL_SERIES = [
  ["accepted", "sent (accepted)"],
  ["delivered", "delivered"],
  ["bounced", "bounced"],
  ["complained", "spam complaints"],
  ["opened", "opened (unique)"],
  ["clicked", "clicked (unique)"],
] as const;

const HOUR = 3_600_000;
const DAY = 86_400_000;

/** A period as the stats read takes it: the granularity and how far back `from` lies. */
type Period = { key: string; label: string; granularity: "hour" | "day"; from: (now: number) => number };

const PERIODS: Period[] = [
  { key: "24h", label: "Last 24 hours, per hour", granularity: "hour", from: (now) => now - 24 * HOUR },
  { key: "7d", label: "Last 7 days, per hour", granularity: "hour", from: (now) => now - 7 * DAY },
  { key: "30d", label: "Last 30 days, per day", granularity: "day", from: (now) => now - 30 * DAY },
  { key: "90d", label: "Last 90 days, per day", granularity: "day", from: (now) => now - 90 * DAY },
  { key: "365d", label: "Last 365 days, per day", granularity: "day", from: (now) => now - 365 * DAY },
];

function failure(error: unknown): HTMLElement {
  return h("p", { class: "error", role: "alert" }, `Error: ${error instanceof Error ? error.message : String(error)}`);
}

/** A labelled select whose change redraws; the first draw happens before the card is shown. */
function chooser(label: string, options: { value: string; label: string }[], selected: string, redraw: (value: string) => Promise<void>): HTMLElement {
  const id = uid("chooser");
  const select = h("select", { id }, ...options.map((o) => h("option", { value: o.value, selected: o.value === selected }, o.label)));
  select.addEventListener("change", () => void redraw(select.value));
  return h("div", { class: "field" }, h("label", { for: id }, label), select);
}

const percent = (part: number, whole: number) => (whole === 0 ? "—" : `${((part / whole) * 100).toFixed(1)} %`);

/** A card and its first drawing: charts are drawn into the page, so the card is placed before `draw` runs. */
type Drawn = { element: HTMLElement; draw(): Promise<void> };

function mailCard(id: string, job: Detail | null): Drawn {
  const body = h("div", { "aria-live": "polite" });
  // A job's own period starts at its creation (hourly while that fits the API's 31 days).
  const jobPeriod: Period | null = job
    ? (() => {
        const created = Date.parse(job.created_at);
        const hourly = Date.now() - created <= 30 * DAY;
        return {
          key: "job",
          label: `Since the job was created, per ${hourly ? "hour" : "day"}`,
          granularity: hourly ? "hour" : "day",
          from: (now: number) => Math.max(created, now - 365 * DAY),
        };
      })()
    : null;
  const periods = jobPeriod ? [jobPeriod, ...PERIODS] : PERIODS;
  const draw = async (key: string) => {
    const period = periods.find((p) => p.key === key) ?? PERIODS[0];
    if (!period) return;
    const from = new Date(period.from(Date.now())).toISOString();
    try {
      const stats = await get<MailStats>(
        `customers/${id}/mail/stats?granularity=${period.granularity}&from=${encodeURIComponent(from)}${job ? `&send_job_id=${job.id}` : ""}`,
      );
      const t = stats.totals;
      const title = `${job ? "This job's mail" : "Mail"} per ${stats.granularity} (UTC)`;
      body.replaceChildren(
        h(
          "p",
          { "data-testid": "mail-totals" },
          `${t.accepted.toLocaleString()} sent, ${t.delivered.toLocaleString()} delivered (${percent(t.delivered, t.accepted)}), ${t.bounced.toLocaleString()} bounced (${percent(t.bounced, t.accepted)}), ${t.complained.toLocaleString()} spam complaints, ${t.opened.toLocaleString()} opened, ${t.clicked.toLocaleString()} clicked, from ${stats.from.slice(0, 16).replace("T", " ")} to ${stats.to.slice(0, 16).replace("T", " ")} UTC.`,
        ),
        t.accepted + t.delivered + t.bounced + t.complained + t.opened + t.clicked === 0
          ? h("p", {}, "No mail activity in this period.")
          : timeSeries({
              title,
              times: stats.buckets.map((b) => Date.parse(b.start)),
              series: MAIL_SERIES.map(([key, label]) => ({ label, values: stats.buckets.map((b) => b[key]) })),
              labels: stats.granularity === "hour" ? "utc-hour" : "utc-day",
              unit: "messages",
            }),
      );
    } catch (error) {
      body.replaceChildren(failure(error));
    }
  };
  const first = periods[0]?.key ?? "24h";
  const element = card(
    job ? "Mail of this send job over time" : "Mail over time",
    h(
      "p",
      { class: "hint" },
      "Each message counts once per series, in the hour or day its own time falls: accepted by Postmark, delivered, bounced, marked as spam, first opened, first clicked.",
    ),
    chooser(
      "Period",
      periods.map((p) => ({ value: p.key, label: p.label })),
      first,
      draw,
    ),
    body,
  );
  return { element, draw: () => draw(first) };
}

const AD_METRICS = [
  ["impressions", "Impressions", "impressions"],
  ["clicks", "Link clicks", "clicks"],
  ["spend", "Spend", "spend"],
  ["reach", "Reach", "people"],
  ["conversions", "Conversions", "conversions"],
] as const;
type AdMetric = (typeof AD_METRICS)[number][0];
/** More lines than this are no longer told apart; the rest are named below the chart and in the table. */
const MOST_LINES = 6;

function adSetsCard(id: string): Drawn {
  const body = h("div", { "aria-live": "polite" });
  let metric: AdMetric = "impressions";
  let range = "last_30d";
  const draw = async () => {
    try {
      const insights = await get<DailyInsights>(`customers/${id}/ads/insights/daily?date_range=${range}&fields=${metric}`);
      const days = [...new Set(insights.rows.map((r) => r.date))].sort();
      const byAdSet = new Map<string, { name: string; values: Map<string, number> }>();
      for (const row of insights.rows) {
        const entry = byAdSet.get(row.adset_id) ?? { name: row.adset_name, values: new Map<string, number>() };
        entry.values.set(row.date, row[metric] ?? 0);
        byAdSet.set(row.adset_id, entry);
      }
      const total = (values: Map<string, number>) => [...values.values()].reduce((a, b) => a + b, 0);
      const ranked = [...byAdSet.values()].sort((a, b) => total(b.values) - total(a.values) || a.name.localeCompare(b.name));
      const [, label, unit] = AD_METRICS.find(([key]) => key === metric) ?? AD_METRICS[0];
      const currency = insights.currency ?? "";
      if (ranked.length === 0) {
        body.replaceChildren(h("p", {}, `No ad set delivered from ${insights.since} to ${insights.until}.`));
        return;
      }
      const drawn = ranked.slice(0, MOST_LINES);
      const rest = ranked.slice(MOST_LINES);
      body.replaceChildren(
        timeSeries({
          title: `${label} per day and ad set${metric === "spend" && currency ? ` (${currency})` : ""}, ${insights.since} to ${insights.until} (${insights.time_zone})`,
          times: days.map((d) => Date.parse(`${d}T00:00:00Z`)),
          series: drawn.map((adSet) => ({ label: adSet.name, values: days.map((d) => adSet.values.get(d) ?? 0) })),
          labels: "utc-day",
          unit: metric === "spend" && currency ? currency : unit,
        }),
        h(
          "div",
          {},
          rest.length > 0
            ? h("p", { class: "hint" }, `The ${drawn.length} ad sets with the most ${unit} are drawn; the other ${rest.length}, in total over the range:`)
            : null,
          rest.length > 0
            ? table(
                ["Ad set", label],
                rest.map((adSet) => [adSet.name, total(adSet.values).toLocaleString()]),
              )
            : null,
        ),
      );
    } catch (error) {
      body.replaceChildren(failure(error));
    }
  };
  const element = card(
    "Ads: insights per day and ad set",
    h("p", { class: "hint" }, "From the daily snapshots, per day of the ad account's time zone; each line is one ad set, by its name."),
    chooser(
      "Metric",
      AD_METRICS.map(([value, label]) => ({ value, label })),
      metric,
      async (value) => {
        metric = value as AdMetric;
        await draw();
      },
    ),
    chooser(
      "Date range",
      [
        { value: "last_7d", label: "Last 7 days" },
        { value: "last_30d", label: "Last 30 days" },
        { value: "last_90d", label: "Last 90 days" },
        { value: "this_month", label: "This month" },
        { value: "last_month", label: "Last month" },
      ],
      range,
      async (value) => {
        range = value;
        await draw();
      },
    ),
    body,
  );
  return { element, draw };
}

export async function statsPage(main: HTMLElement, id: string, jobId?: string): Promise<void> {
  const customer = await get<Customer>(`customers/${id}`);
  const job = jobId ? await get<Detail>(`customers/${id}/mail/send-jobs/${jobId}`) : null;
  const tabs = customerTabs(customer, "stats");
  const sections = job ? [mailCard(id, job)] : [mailCard(id, null), adSetsCard(id)];
  main.replaceChildren(
    tabs,
    h("h2", {}, job ? `Charts of send job ${job.id}` : "Charts"),
    h(
      "p",
      {},
      job ? h("a", { href: `#/customers/${id}/send-jobs/${job.id}` }, "← The send job") : null,
      job ? " · " : null,
      job ? h("a", { href: `#/customers/${id}/stats` }, "All of the customer's charts") : h("a", { href: `#/customers/${id}/messages` }, "Find messages"),
    ),
    ...sections.map((section) => section.element),
  );
  await Promise.all(sections.map((section) => section.draw()));
}
