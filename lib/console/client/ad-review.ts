import { get } from "./api";
import { pagedTable } from "./paged";
import { card, date, h, uid } from "./dom";
import { customerTabs, type Customer } from "./customers";
import { WORDS, say } from "./words";
import type { AdminComponents as components } from "@mail-ads/client/admin";
import { configuredStatuses } from "../../db/schema/vocabulary";

// Answers of the admin API, typed from its OpenAPI document (the one source; packages/client/src/types).
type Schemas = components["schemas"];
type AdminAdSet = Schemas["AdminAdSet"];
type AdminAd = Schemas["AdminAd"];

const STATES: Record<string, string> = WORDS.effectiveStatus;
/** Review and delivery states in words with the platform's own name, which its help pages use. */
const stateInWords = (status: string) => `${say("effectiveStatus", status)} (${status})`;

const REVIEW_FILTERS = ["PENDING_REVIEW", "IN_PROCESS", "ACTIVE", "DISAPPROVED", "WITH_ISSUES", "PAUSED", "ADSET_PAUSED", "CAMPAIGN_PAUSED", "ARCHIVED"];
const CONFIGURED = configuredStatuses;

function select(label: string, options: [string, string][]): { wrap: HTMLElement; control: HTMLSelectElement } {
  const id = uid("filter");
  const control = h("select", { id }, ...options.map(([value, text]) => h("option", { value }, text)));
  return { wrap: h("div", { class: "field" }, h("label", { for: id }, label), control), control };
}

const budget = (s: AdminAdSet) =>
  s.daily_budget_cents !== null
    ? `${(s.daily_budget_cents / 100).toFixed(2)} a day`
    : s.lifetime_budget_cents !== null
      ? `${(s.lifetime_budget_cents / 100).toFixed(2)} in all`
      : "—";

const adsByState = (s: AdminAdSet) =>
  s.ads.total === 0
    ? "no ads"
    : Object.entries(s.ads.by_effective_status)
        .map(([state, n]) => `${n} ${(STATES[state] ?? state).replace(/^\W+\s*/, "")}`)
        .join(", ");

/** Review feedback, the platform's issues, or nothing: each as text an operator can pass on to the customer. */
function feedback(ad: AdminAd): HTMLElement | string {
  const lines = [ad.disapproval_reason ? `Review: ${ad.disapproval_reason}` : null, ad.issues ? `Issues: ${ad.issues}` : null].filter(
    (line): line is string => line !== null,
  );
  return lines.length === 0 ? "—" : h("div", {}, ...lines.map((line) => h("p", { class: "hint" }, line)));
}

const lastChange = (ad: AdminAd) =>
  ad.last_status_change
    ? `${ad.last_status_change.previous_status} → ${ad.last_status_change.effective_status}, ${date(ad.last_status_change.at)} (${ad.last_status_change.source.replace(/_/g, " ")})`
    : "no change since creation";

/**
 * A customer's ad sets and ads with their review state ("why is this ad not running?"): both lists paged and
 * filtered by the server; ads are labelled by their ad set's name, never by a platform id. "Show its ads"
 * narrows the ads to one ad set.
 */
export async function customerAdReviewPage(main: HTMLElement, id: string): Promise<void> {
  const customer = await get<Customer>(`customers/${id}`);
  const adSetStatus = select("Ad set status", [["", "Any status"], ...CONFIGURED.map((s): [string, string] => [s, say("adStatus", s)])]);
  const reviewState = select("Review state", [["", "Any state"], ...REVIEW_FILTERS.map((s): [string, string] => [s, stateInWords(s)])]);
  const adStatus = select("Ad status", [["", "Any status"], ...CONFIGURED.map((s): [string, string] => [s, say("adStatus", s)])]);
  let onlySet: AdminAdSet | null = null;
  const scope = h("p", { class: "hint", "data-testid": "ads-scope" });

  const ads = pagedTable<AdminAd>(
    ["Ad", "Ad set", "Status", "Review state", "Feedback and issues", "Last change", "Created"],
    (ad) => [ad.name, ad.ad_set.name, say("adStatus", ad.status), stateInWords(ad.effective_status), feedback(ad), lastChange(ad), date(ad.created_at)],
    "No ads match.",
  );
  const adsPath = () => {
    const params = new URLSearchParams({ limit: "25" });
    if (reviewState.control.value) params.set("effective_status", reviewState.control.value);
    if (adStatus.control.value) params.set("status", adStatus.control.value);
    if (onlySet) params.set("adset_id", onlySet.id);
    return `customers/${id}/ads/ads?${params}`;
  };
  const showAll = h("button", { type: "button", class: "secondary", "data-read": "", hidden: true }, "Show the ads of every ad set");
  const reloadAds = () => {
    scope.textContent = onlySet ? `Ads of the ad set ${onlySet.name}.` : "Ads of every ad set.";
    showAll.hidden = onlySet === null;
    return ads.load(adsPath());
  };
  showAll.addEventListener("click", () => {
    onlySet = null;
    void reloadAds();
  });

  const adSets = pagedTable<AdminAdSet>(
    ["Ad set", "Target", "Status", "Delivery", "Budget", "Ads by review state", "Created", ""],
    (s) => [
      s.name,
      s.target,
      say("adStatus", s.status),
      stateInWords(s.effective_status),
      budget(s),
      adsByState(s),
      date(s.created_at),
      h(
        "button",
        {
          type: "button",
          class: "secondary",
          "aria-label": `Show its ads (${s.name})`,
          "data-read": "",
          onClick: () => {
            onlySet = s;
            void reloadAds().then(() => document.getElementById(adsHeading)?.scrollIntoView());
          },
        },
        "Show its ads",
      ),
    ],
    "No ad sets match. Customers create them through the ads API.",
  );
  const adSetsPath = () => `customers/${id}/ads/adsets?limit=25${adSetStatus.control.value ? `&status=${adSetStatus.control.value}` : ""}`;
  adSetStatus.control.addEventListener("change", () => void adSets.load(adSetsPath()));
  reviewState.control.addEventListener("change", () => void reloadAds());
  adStatus.control.addEventListener("change", () => void reloadAds());

  const adsCard = card(
    "Ads",
    h("p", { class: "hint" }, "Review states as last read from the platform (the status poll and the platform's webhooks keep them current)."),
    h("div", { class: "row" }, reviewState.wrap, adStatus.wrap),
    h("div", { class: "row" }, scope, showAll),
    ads.element,
  );
  const adsHeading = adsCard.getAttribute("aria-labelledby") ?? "";
  main.replaceChildren(customerTabs(customer, "adsets"), card("Ad sets", h("div", { class: "row" }, adSetStatus.wrap), adSets.element), adsCard);
  await Promise.all([adSets.load(adSetsPath()), reloadAds()]);
}
