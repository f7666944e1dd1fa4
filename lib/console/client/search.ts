import type { AdminComponents as components } from "@mail-ads/client/admin";
import { get } from "./api";
import { card, h, table } from "./dom";
import { WORDS, at, fromLocalInput, localInput, say, timeZone } from "./words";

/**
 * The one search box (in the top bar on every page) and its results page, grouped by kind. The filters are
 * folded behind one row (status, kind, period with date pickers in the operator's time zone), so the
 * results start above the fold.
 */
type Results = components["schemas"]["SearchResults"];

const KINDS: [string, string][] = [
  ["", "Everything"],
  ["message", "Messages"],
  ["send_job", "Send jobs"],
  ["customer", "Customers"],
  ["ad_set", "Ad sets"],
  ["ad", "Ads"],
];

export async function searchPage(main: HTMLElement, query: string): Promise<void> {
  const params = new URLSearchParams(query);
  const q = params.get("q") ?? "";
  const box = document.querySelector<HTMLInputElement>("#search-q");
  if (box) box.value = q;
  const filtered = ["status", "kind", "since", "until"].some((name) => params.get(name));
  const control = (name: string, label: string, element: HTMLInputElement | HTMLSelectElement) => {
    element.id = `filter-${name}`;
    element.name = name;
    return h("div", { class: "field" }, h("label", { for: element.id }, label), element);
  };
  const select = (options: [string, string][], value: string) => {
    const s = h("select", {});
    for (const [v, l] of options) s.appendChild(h("option", { value: v, selected: v === value }, l));
    return s;
  };
  const status = select([["", "Any state"], ...Object.entries(WORDS.messageStatus)], params.get("status") ?? "");
  const kind = select(KINDS, params.get("kind") ?? "");
  const since = h("input", { type: "datetime-local", value: localInput(params.get("since")) });
  const until = h("input", { type: "datetime-local", value: localInput(params.get("until")) });
  const filters = h(
    "details",
    { class: "filters", open: filtered },
    h("summary", {}, filtered ? "Filters (in use)" : "Filters"),
    h(
      "form",
      {
        class: "row",
        "data-read": "",
        onsubmit: (event: Event) => {
          event.preventDefault();
          const next = new URLSearchParams();
          if (q) next.set("q", q);
          for (const [name, element] of [
            ["status", status],
            ["kind", kind],
          ] as const)
            if (element.value) next.set(name, element.value);
          if (since.value) next.set("since", fromLocalInput(since.value));
          if (until.value) next.set("until", fromLocalInput(until.value));
          location.hash = `#/search?${next.toString()}`;
        },
      },
      control("status", "Message state", status),
      control("kind", "Kind", kind),
      control("since", `Created from (${timeZone})`, since),
      control("until", `Created before (${timeZone})`, until),
      h("button", { type: "submit" }, "Apply filters"),
    ),
  );
  const api = new URLSearchParams(params);
  const r = await get<Results>(`search?${api.toString()}`);
  const groups: HTMLElement[] = [];
  if (r.messages.length > 0)
    groups.push(
      card(
        `Messages (${r.messages.length})`,
        table(
          ["Message", "Customer", "State", "Kind", "Created", "Postmark id"],
          r.messages.map((m) => [
            h("a", { href: `#/customers/${m.customer_id}/messages/${m.id}` }, m.subject || "(no subject)"),
            m.customer_name,
            say("messageStatus", m.status),
            say("messageKind", m.kind),
            at(m.created_at),
            m.provider_message_id ?? "—",
          ]),
        ),
      ),
    );
  if (r.send_jobs.length > 0)
    groups.push(
      card(
        `Send jobs (${r.send_jobs.length})`,
        table(
          ["Send job", "Customer", "State", "Created"],
          r.send_jobs.map((j) => [
            h("a", { href: `#/customers/${j.customer_id}/send-jobs/${j.id}` }, j.name),
            j.customer_name,
            say("sendJobStatus", j.status),
            at(j.created_at),
          ]),
        ),
      ),
    );
  if (r.customers.length > 0)
    groups.push(
      card(
        `Customers (${r.customers.length})`,
        table(
          ["Customer", "Created"],
          r.customers.map((c) => [h("a", { href: `#/customers/${c.id}` }, c.name), at(c.created_at)]),
        ),
      ),
    );
  if (r.ad_sets.length > 0)
    groups.push(
      card(
        `Ad sets (${r.ad_sets.length})`,
        table(
          ["Ad set", "Customer", "State", "Platform id"],
          r.ad_sets.map((a) => [h("a", { href: `#/customers/${a.customer_id}/adsets` }, a.name), a.customer_name, say("adStatus", a.status), a.platform_id]),
        ),
      ),
    );
  if (r.ads.length > 0)
    groups.push(
      card(
        `Ads (${r.ads.length})`,
        table(
          ["Ad", "Customer", "State", "Platform id"],
          r.ads.map((a) => [h("a", { href: `#/customers/${a.customer_id}/adsets` }, a.name), a.customer_name, say("adStatus", a.status), a.platform_id]),
        ),
      ),
    );
  const how: Record<Results["matched_by"], string> = {
    address: "Read as an address: messages found through the stored address hash (also after the address was deleted).",
    id: "Read as an id.",
    text: "Read as a name or a provider's id.",
    filters: "The newest messages matching the filters.",
  };
  main.replaceChildren(
    h("h1", {}, q ? `Search: ${q}` : "Search"),
    filters,
    h("p", { class: "hint" }, how[r.matched_by]),
    ...(groups.length > 0 ? groups : [h("p", { role: "status" }, "Nothing found.")]),
  );
}

/** The search box of the top bar: submits to the results page. */
export function searchBox(): HTMLFormElement {
  const input = h("input", { id: "search-q", type: "search", name: "q", placeholder: "Address, id, name…", "aria-label": "Search", autocomplete: "off" });
  return h(
    "form",
    {
      role: "search",
      class: "search",
      "data-read": "",
      onsubmit: (event: Event) => {
        event.preventDefault();
        location.hash = `#/search?q=${encodeURIComponent(input.value.trim())}`;
      },
    },
    input,
    h("button", { type: "submit", class: "secondary" }, "Search"),
  );
}
