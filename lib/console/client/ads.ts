import { ApiFailure, get, getAll, send } from "./api";
import { choices, say } from "./words";
import { barCharts } from "./charts";
import { card, date, form, h, membershipBox, outcome, table, uid } from "./dom";
import { customerTabs, type Customer } from "./customers";
import type { AdminComponents as components } from "@mail-ads/client/admin";
import { creativeRatios } from "../../db/schema/vocabulary";

// Answers of the admin API, typed from its OpenAPI document (the one source; packages/client/src/types).
type Schemas = components["schemas"];

type Onboarding = Schemas["AdsOnboarding"];
type Target = Schemas["AdminTarget"];
type Assignment = Schemas["AdTemplateAssignment"];
export type AdTemplate = Schemas["AdminAdTemplate"];
type Preview = Schemas["TemplatePreview"];
type InsightRow = Schemas["InsightRow"];

const RATIOS = creativeRatios;

/** Three images side by side, each captioned with its ratio. */
export function ratioFigures(images: Record<string, string>, name: string): HTMLElement {
  return h(
    "div",
    { class: "ratios", "data-testid": "ratio-previews" },
    ...RATIOS.map((ratio) => h("figure", {}, h("img", { src: images[ratio] ?? "", alt: `${name} in ${ratio}` }), h("figcaption", {}, ratio))),
  );
}

/** preview.png answers with our public base URL; the console loads it from its own origin. */
const sameOrigin = (url: string) => {
  const parsed = new URL(url, location.href);
  return `${parsed.pathname}${parsed.search}`;
};

async function onboardingCard(id: string): Promise<HTMLElement> {
  const onboarding = await get<Onboarding>(`customers/${id}/ads/account`);
  const list = (items: string[]) => (items.length ? items.map((item) => say("onboardingItem", item)).join(", ") : "none");
  return card(
    "Onboarding",
    h("p", {}, onboarding.complete ? "✓ Complete: the customer can use the ads API." : "✗ Incomplete: the items listed as missing are needed."),
    table(
      ["", ""],
      [
        ["Present", list(onboarding.present)],
        ["Missing", list(onboarding.missing)],
        [
          "Access token",
          `${say("tokenStatus", onboarding.token_status)}${onboarding.token_verified_at ? ` (verified ${date(onboarding.token_verified_at)})` : ""}${onboarding.token_error_code ? ` (error ${onboarding.token_error_code})` : ""}`,
        ],
        ["App secret stored", onboarding.app_secret_set ? "yes" : "no"],
      ],
    ),
    form({
      submit: "Save onboarding",
      guard: true,
      sendOnlyChanged: true,
      fields: [
        { path: "access_token", label: "Access token (write-only)", type: "password" },
        { path: "app_secret", label: "App secret (write-only)", type: "password" },
        { path: "ad_account_id", label: "Ad account id (act_…)" },
        { path: "page_id", label: "Page id" },
        { path: "instagram_account_id", label: "Instagram account id" },
        { path: "dsa_beneficiary", label: "DSA beneficiary" },
        { path: "dsa_payor", label: "DSA payor" },
        { path: "legal_name", label: "Legal name" },
      ],
      onSubmit: async (values) => {
        if (Object.keys(values).length === 0) return "Nothing changed.";
        const saved = await send<Onboarding>("PATCH", `customers/${id}/ads/account`, values);
        return saved.complete ? "Saved: onboarding complete." : `Saved. Still missing: ${list(saved.missing)}.`;
      },
    }),
  );
}

async function targetsCard(id: string): Promise<HTMLElement> {
  const body = h("div", {});
  const result = outcome();
  const draw = (targets: Target[]) =>
    body.replaceChildren(
      table(
        ["Key", "Campaign", "Status", "Changed", ""],
        targets.map((t) => {
          const next = t.status === "ACTIVE" ? "PAUSED" : "ACTIVE";
          const action = next === "PAUSED" ? "Pause" : "Activate";
          return [
            t.key,
            t.platform_campaign_id,
            say("adStatus", t.status),
            date(t.updated_at),
            h(
              "button",
              {
                type: "button",
                class: "secondary",
                onClick: async (event: Event) => {
                  const button = event.currentTarget as HTMLButtonElement;
                  button.disabled = true;
                  try {
                    await send("PATCH", `customers/${id}/ads/targets/${encodeURIComponent(t.key)}`, { status: next });
                    draw(await get<Target[]>(`customers/${id}/ads/targets`));
                    result.ok(`Target ${t.key} is now ${next === "PAUSED" ? "paused" : "active"}.`);
                  } catch (error) {
                    button.disabled = false;
                    result.fail(error);
                  }
                },
              },
              `${action} ${t.key}`,
            ),
          ];
        }),
      ),
    );
  draw(await get<Target[]>(`customers/${id}/ads/targets`));
  return card(
    "Targets",
    body,
    result.element,
    form({
      title: "Add a target",
      submit: "Add target",
      fields: [
        { path: "key", label: "Key", required: true },
        { path: "platform_campaign_id", label: "Platform campaign id", required: true },
        { path: "status", label: "Status", type: "select", options: choices("adStatus").filter((c) => c.value !== "ARCHIVED") },
        {
          path: "config",
          label: "Configuration (JSON)",
          type: "json",
          value: { optimization_goal: "LINK_CLICKS", billing_event: "IMPRESSIONS", geo_locations: { countries: ["DE"] } },
          wide: true,
        },
      ],
      onSubmit: async (values) => {
        await send("POST", `customers/${id}/ads/targets`, values);
        draw(await get<Target[]>(`customers/${id}/ads/targets`));
        return `Target ${String(values.key)} added.`;
      },
    }),
  );
}

async function templatesCard(id: string): Promise<HTMLElement> {
  const [templates, assignments] = await Promise.all([get<AdTemplate[]>("ads/templates"), get<Assignment[]>(`customers/${id}/ads/templates`)]);
  const assigned = new Map(assignments.map((a) => [a.template_id, a]));
  const result = outcome();
  const detail = h("div", { "aria-live": "polite" });
  const show = async (template: AdTemplate) => {
    const preview = await get<Preview>(`customers/${id}/ads/templates/${template.id}/preview`);
    const stamp = Date.now();
    const images = Object.fromEntries(Object.entries(preview.preview_urls).map(([ratio, url]) => [ratio, `${sameOrigin(url)}&v=${stamp}`]));
    detail.replaceChildren(
      h("h3", {}, `${template.name}: previews for this customer`),
      ratioFigures(images, template.name),
      form({
        title: "Preview values",
        submit: "Save preview values",
        guard: true,
        fields: template.params.map((p) => ({
          path: `values.${p.name}`,
          label: `${p.label ?? p.name} (${p.type})`,
          value: preview.params[String(p.name)] ?? "",
          hint: p.example ? `Example: ${p.example}` : undefined,
        })),
        onSubmit: async (values) => {
          const chosen = Object.fromEntries(
            Object.entries(values)
              .filter(([, v]) => v !== "")
              .map(([k, v]) => [k.slice("values.".length), String(v)]),
          );
          try {
            await send("PUT", `customers/${id}/ads/templates/${template.id}/preview-values`, chosen);
          } catch (error) {
            // The API names `params.<name>`; the fields are `values.<name>`.
            if (error instanceof ApiFailure)
              throw new ApiFailure(
                error.status,
                error.code,
                error.message,
                error.problems.map((p) => ({ ...p, path: p.path.replace(/^params\./, "values.") })),
              );
            throw error;
          }
          await show(template);
          return "Preview values saved; the previews are drawn again.";
        },
      }),
    );
  };
  return card(
    "Ad templates of this customer",
    table(
      ["Template", "Type", "State", "Assigned", ""],
      templates.map((t) => [
        t.name,
        t.type === "image" ? "Image" : "Video",
        t.status === "active" ? "Active" : "Inactive",
        membershipBox({
          label: `Assign ${t.name}`,
          checked: assigned.has(t.id),
          path: `customers/${id}/ads/templates/${t.id}`,
          result,
          said: (on) => `${t.name} ${on ? "assigned" : "removed"}.`,
        }),
        h(
          "button",
          { type: "button", class: "secondary", "data-read": "", onClick: () => void show(t).catch((error) => result.fail(error)) },
          `Previews of ${t.name}`,
        ),
      ]),
    ),
    result.element,
    detail,
  );
}

type PlanUsage = Schemas["PlanUsage"];

async function planCard(id: string): Promise<HTMLElement> {
  const usage = await get<PlanUsage>(`customers/${id}/ads/plan/usage`);
  const eur = (cents: number) => `€ ${(cents / 100).toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  return card(
    "Plan and usage",
    table(
      ["Cycle", "State", "Stage", "Ads published", "Spend", "Projected spend", "Fee so far", "Expected stage and fee"],
      [
        [
          `${usage.cycle.start} – ${usage.cycle.end} (day ${usage.cycle.elapsed_days} of ${usage.cycle.days})`,
          say("accountState", usage.state),
          say("stage", usage.stage),
          `${usage.ads.published}${usage.ads.included === null ? " (no cap)" : ` of ${usage.ads.included}`}`,
          `${eur(usage.spend.spend_cents)}${usage.spend.included_cents === null ? "" : ` of ${eur(usage.spend.included_cents)} included`}`,
          eur(usage.spend.projected_cents),
          eur(usage.fee_to_date_cents),
          `${say("stage", usage.expected_stage)}, ${eur(usage.expected_fee_cents)}`,
        ],
      ],
    ),
  );
}

async function insightsCard(id: string): Promise<HTMLElement> {
  const chart = h("div", { "aria-live": "polite" });
  // Ad sets are labelled by name (as the customer named them through the naming convention), not by platform id.
  const names = new Map((await getAll<Schemas["AdminAdSet"]>(`customers/${id}/ads/adsets`)).map((s) => [s.id, s.name]));
  const draw = async (range: string) => {
    const rows = await get<InsightRow[]>(`customers/${id}/ads/insights?level=adset&date_range=${range}&fields=spend,impressions,clicks`);
    chart.replaceChildren(
      rows.length === 0
        ? h("p", {}, "No delivery in this range.")
        : barCharts({
            title: `Ad sets, ${range}`,
            categories: rows.map((r) => names.get(r.adset_id) ?? `Ad set ${r.adset_id.slice(0, 8)}`),
            series: [
              { label: "spend", values: rows.map((r) => r.spend ?? 0) },
              { label: "impressions", values: rows.map((r) => r.impressions ?? 0) },
              { label: "clicks", values: rows.map((r) => r.clicks ?? 0) },
            ],
          }),
    );
  };
  const rangeId = uid("range");
  const select = h(
    "select",
    { id: rangeId },
    ...["last_7d", "last_30d", "this_month", "last_month", "maximum"].map((r) => h("option", { value: r, selected: r === "last_30d" }, r)),
  );
  select.addEventListener(
    "change",
    () =>
      void draw(select.value).catch((error: unknown) =>
        chart.replaceChildren(h("p", { class: "error", role: "alert" }, `Error: ${String(error instanceof Error ? error.message : error)}`)),
      ),
  );
  await draw("last_30d");
  return card("Insights of the ad sets", h("div", { class: "field" }, h("label", { for: rangeId }, "Date range"), select), chart);
}

type AdsSection = "onboarding" | "targets" | "templates" | "plan" | "insights";
const ADS_SECTIONS: [AdsSection, string][] = [
  ["onboarding", "Onboarding"],
  ["targets", "Targets"],
  ["templates", "Templates"],
  ["plan", "Plan and usage"],
  ["insights", "Insights"],
];

/**
 * The customer's ads, one page per concern (`#/customers/<id>/ads/<section>`, landing on onboarding), as the
 * mail's; ad sets and ads with their review state are the "Ad sets and ads" tab (`ad-review.ts`).
 */
export async function customerAdsPage(main: HTMLElement, id: string, section: AdsSection = "onboarding"): Promise<void> {
  const customer = await get<Customer>(`customers/${id}`);
  const cards: Record<AdsSection, () => Promise<HTMLElement>> = {
    onboarding: () => onboardingCard(id),
    targets: () => targetsCard(id),
    templates: () => templatesCard(id),
    plan: () => planCard(id),
    insights: () => insightsCard(id),
  };
  const shown = await cards[section]();
  const nav = h(
    "nav",
    { "aria-label": "Ads sections" },
    h(
      "ul",
      { class: "tabs" },
      ...ADS_SECTIONS.map(([key, label]) =>
        h("li", {}, h("a", { href: `#/customers/${id}/ads/${key}`, "aria-current": key === section ? "page" : null }, label)),
      ),
    ),
  );
  main.replaceChildren(customerTabs(customer, "ads"), nav, shown);
}
