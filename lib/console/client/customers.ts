import { get, send } from "./api";
import { pagedTable } from "./paged";
import { card, date, debounce, form, h, nest, uid } from "./dom";
import type { AdminComponents as components } from "@mail-ads/client/admin";
import { choices, say } from "./words";

// Answers of the admin API, typed from its OpenAPI document (the one source; packages/client/src/types).
type Schemas = components["schemas"];

export type Customer = Schemas["Customer"];

/** Tabs of one customer; the current one is marked with `aria-current`, not only by style. */
export function customerTabs(
  customer: Customer,
  current: "overview" | "keys" | "mail" | "deliverability" | "send-jobs" | "messages" | "suppressions" | "webhooks" | "ads" | "adsets" | "stats",
): HTMLElement {
  const tabs: [typeof current, string][] = [
    ["overview", "Settings"],
    ["keys", "API keys"],
    ["mail", "Mail"],
    ["deliverability", "Deliverability"],
    ["send-jobs", "Send jobs"],
    ["messages", "Messages"],
    ["suppressions", "Suppressions"],
    ["webhooks", "Webhooks"],
    ["ads", "Ads"],
    ["adsets", "Ad sets and ads"],
    ["stats", "Charts"],
  ];
  return h(
    "div",
    {},
    h("p", {}, h("a", { href: "#/customers" }, "← All customers")),
    h("h1", {}, customer.name),
    h("p", { class: "hint" }, `Customer id ${customer.id}`),
    h(
      "nav",
      { "aria-label": "Customer sections" },
      h(
        "ul",
        { class: "tabs" },
        ...tabs.map(([key, label]) =>
          h(
            "li",
            {},
            h("a", { href: `#/customers/${customer.id}${key === "overview" ? "" : `/${key}`}`, "aria-current": key === current ? "page" : null }, label),
          ),
        ),
      ),
    ),
  );
}

export async function customersPage(main: HTMLElement): Promise<void> {
  const searchId = uid("search");
  const sortId = uid("sort");
  const search = h("input", { id: searchId, type: "search", placeholder: "Name or id", autocomplete: "off" });
  const sort = h(
    "select",
    { id: sortId },
    ...[
      ["created_at", "Oldest first"],
      ["-created_at", "Newest first"],
      ["name", "Name A–Z"],
      ["-name", "Name Z–A"],
    ].map(([value, label]) => h("option", { value }, label)),
  );
  const results = pagedTable<Customer>(
    ["Name", "Id", "Mail", "Ads", "Created"],
    (c) => [
      h("a", { href: `#/customers/${c.id}` }, c.name),
      h("code", {}, c.id.slice(0, 8)),
      `${c.mail.sending_blocked ? "Sending blocked" : "Sending allowed"}, ${say("mailMode", c.mail.mode).toLowerCase()}`,
      `${say("accountState", c.ads.account_state)}, ${say("stage", c.ads.stage).toLowerCase()} stage`,
      date(c.created_at),
    ],
    "No customer matches.",
  );
  // Searched and sorted by the server (name part or id prefix), 100 a page.
  const path = () => {
    const params = new URLSearchParams({ limit: "100", sort: sort.value });
    if (search.value.trim() !== "") params.set("q", search.value.trim());
    return `customers?${params}`;
  };
  const reload = debounce(250, () => void results.load(path()));
  search.addEventListener("input", reload);
  sort.addEventListener("change", () => void results.load(path()));
  main.replaceChildren(
    h("h1", {}, "Customers"),
    card(
      "Create a customer",
      form({
        fields: [{ path: "name", label: "Name", required: true }],
        submit: "Create customer",
        onSubmit: async (values) => {
          const created = await send<Customer>("POST", "customers", values);
          location.hash = `#/customers/${created.id}`;
          return `Created ${created.name}.`;
        },
      }),
    ),
    card(
      "All customers",
      h(
        "div",
        { class: "row" },
        h("div", { class: "field" }, h("label", { for: searchId }, "Search customers"), search),
        h("div", { class: "field" }, h("label", { for: sortId }, "Sort"), sort),
      ),
      results.element,
    ),
  );
  await results.load(path());
}

export async function customerPage(main: HTMLElement, id: string): Promise<void> {
  const [customer, plan] = await Promise.all([get<Customer>(`customers/${id}`), get<Schemas["PlanUsage"]>(`customers/${id}/ads/plan/usage`).catch(() => null)]);
  main.replaceChildren(
    customerTabs(customer, "overview"),
    card(
      "Settings and switches",
      form({
        submit: "Save settings",
        guard: true,
        sendOnlyChanged: true,
        fields: [
          { path: "name", label: "Name", value: customer.name },
          {
            path: "mail.sending_blocked",
            label: "Mail: sending blocked (sends answer 403, reads keep working)",
            type: "checkbox",
            value: customer.mail.sending_blocked,
          },
          {
            path: "mail.mode",
            label: "Mail: mode",
            type: "select",
            options: choices("mailMode"),
            value: customer.mail.mode,
            hint: "Sandbox: the provider accepts mail, nothing is delivered or counted.",
          },
          { path: "mail.monthly_limit", label: "Mail: monthly limit", type: "number", value: customer.mail.monthly_limit },
          { path: "mail.max_per_job", label: "Mail: most recipients per send job", type: "number", value: customer.mail.max_per_job },
          {
            path: "ads.account_state",
            label: "Ads: access state",
            type: "select",
            options: choices("accountState"),
            value: customer.ads.account_state,
            hint: "Anything but Active answers 402 on writes.",
          },
          {
            path: "ads.stage",
            label: "Ads: plan stage (selected for this cycle)",
            type: "select",
            options: choices("stage"),
            value: customer.ads.stage,
            hint: `The plan's selected stage; the customer's upgrades change it too. ${
              plan ? `This cycle runs at ${say("stage", plan.stage)}${plan.stage !== customer.ads.stage ? " (its spend reached it)" : ""}.` : ""
            }`,
          },
          {
            path: "ads.enterprise_included_ads",
            label: "Ads: included ads (enterprise only)",
            type: "number",
            value: customer.ads.enterprise_included_ads ?? "",
          },
        ],
        onSubmit: async (values) => {
          if (Object.keys(values).length === 0) return "Nothing changed.";
          await send("PATCH", `customers/${id}`, nest(values));
          return "Settings saved.";
        },
      }),
    ),
  );
}
