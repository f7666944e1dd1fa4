import type { AdminComponents as components } from "@mail-ads/client/admin";
import { get, send } from "./api";
import { pagedTable } from "./paged";
import { card, date, form, h, outcome, table } from "./dom";
import { customerTabs, type Customer } from "./customers";
import { choices, say, timeZone } from "./words";

/**
 * A customer's activity for support questions: message search (by address through its hash, filters,
 * a message's timeline), the suppression list (filters, reactivation, CSV) and outgoing webhooks of both
 * services (endpoints, delivery logs, redelivery, re-enabling). Every list pages on the server
 * (`paging.after`), so nothing is capped at what the browser loaded.
 */
type Schemas = components["schemas"];
type MessageSummary = Schemas["MailMessageSummary"];
type Suppression = Schemas["SuppressionEntry"];
type Webhook = Schemas["CustomerWebhook"];

/** The empty choice of a filter: no restriction. */
const ANY = { value: "", label: "any" };

/** The query string of the filled filters (empty values left out). */
function query(values: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (typeof value === "string" && value.trim() !== "") params.set(name, value.trim());
  return params.toString();
}

export async function messagesPage(main: HTMLElement, id: string, initial = ""): Promise<void> {
  const given = new URLSearchParams(initial);
  const customer = await get<Customer>(`customers/${id}`);
  const results = pagedTable<MessageSummary>(
    ["Message", "Kind", "Status", "Subject", "Created", "Postmark id"],
    (m) => [
      h("a", { href: `#/customers/${id}/messages/${m.id}` }, m.id.slice(0, 8)),
      say("messageKind", m.kind),
      say("messageStatus", m.status) + (m.bounce_type ? ` (${m.bounce_type})` : ""),
      m.subject,
      date(m.created_at),
      m.provider_message_id ?? "—",
    ],
    "No message matches.",
  );
  const base = `customers/${id}/mail/messages`;
  main.replaceChildren(
    customerTabs(customer, "messages"),
    h("p", {}, h("a", { href: `#/customers/${id}/stats` }, "Charts: mail per hour or day, ads per day and ad set")),
    card(
      "Find messages",
      h("p", { class: "hint" }, "The address is matched through its stored hash: it finds mail of send jobs whose addresses were deleted. Nothing partial."),
      form({
        read: true,
        submit: "Search",
        fields: [
          { path: "recipient", label: "Recipient address", type: "search" },
          { path: "status", label: "Status", type: "select", options: [ANY, ...choices("messageStatus")], value: given.get("status") ?? "" },
          { path: "kind", label: "Kind", type: "select", options: [ANY, ...choices("messageKind")] },
          { path: "send_job_id", label: "Send job id", value: given.get("send_job_id") ?? "" },
          { path: "template_id", label: "Template id" },
          { path: "since", label: `Created since (${timeZone})`, type: "datetime", value: given.get("since") ?? "" },
          { path: "until", label: `Created before (${timeZone})`, type: "datetime", value: given.get("until") ?? "" },
        ],
        async onSubmit(values) {
          const q = query(values);
          await results.load(q ? `${base}?${q}` : base);
          return "Search done.";
        },
      }),
    ),
    card("Messages", results.element),
  );
  const filters = query({ status: given.get("status"), since: given.get("since"), until: given.get("until"), send_job_id: given.get("send_job_id") });
  await results.load(filters ? `${base}?${filters}&limit=100` : base);
}

export async function suppressionsPage(main: HTMLElement, id: string): Promise<void> {
  const customer = await get<Customer>(`customers/${id}`);
  const result = outcome();
  const base = `customers/${id}/mail/suppressions`;
  let filters = "stream=newsletter";
  const csv = h("a", { href: `/console/api/${base}?${filters}&format=csv`, download: "" }, "Download CSV");
  const results = pagedTable<Suppression>(
    ["Address", "Stream", "Reason", "State", "Changed", ""],
    (s, reload) => [
      s.email,
      say("stream", s.stream),
      say("suppressionReason", s.reason),
      s.active ? "suppressed" : "lifted",
      date(s.changed_at),
      s.reactivatable
        ? h(
            "button",
            {
              type: "button",
              class: "secondary",
              "aria-label": `Reactivate ${s.email}`,
              "data-needs": "support",
              onclick: async () => {
                try {
                  await send("POST", `${base}/reactivate`, { email: s.email, stream: s.stream });
                  result.ok(`${s.email} reactivated on the ${s.stream} stream.`);
                  reload();
                } catch (error) {
                  result.fail(error);
                }
              },
            },
            "Reactivate",
          )
        : s.reason === "spam_complaint" && s.active
          ? "spam complaint: never lifted"
          : "",
    ],
    "No suppression matches.",
  );
  main.replaceChildren(
    customerTabs(customer, "suppressions"),
    card(
      "Filter",
      form({
        read: true,
        submit: "Apply",
        fields: [
          { path: "stream", label: "Stream", type: "select", options: choices("stream"), value: "newsletter" },
          { path: "reason", label: "Reason", type: "select", options: [ANY, ...choices("suppressionReason")] },
          {
            path: "active",
            label: "State",
            type: "select",
            options: [
              { value: "", label: "any" },
              { value: "true", label: "suppressed" },
              { value: "false", label: "lifted" },
            ],
          },
          { path: "changed_since", label: `Changed since (${timeZone})`, type: "datetime" },
        ],
        async onSubmit(values) {
          filters = query(values);
          csv.setAttribute("href", `/console/api/${base}?${filters}&format=csv`);
          await results.load(`${base}?${filters}`);
          return "Filter applied.";
        },
      }),
    ),
    card("Suppressions", h("p", {}, csv, " (the whole filtered list)"), result.element, results.element),
  );
  await results.load(`${base}?${filters}`);
}

const SERVICES = ["mail", "ads"] as const;

export async function webhooksPage(main: HTMLElement, id: string): Promise<void> {
  const customer = await get<Customer>(`customers/${id}`);
  const lists = await Promise.all(SERVICES.map((service) => get<Webhook[]>(`customers/${id}/${service}/webhooks`)));
  const result = outcome();
  main.replaceChildren(
    customerTabs(customer, "webhooks"),
    result.element,
    ...SERVICES.map((service, i) => {
      const endpoints = lists[i] ?? [];
      return card(
        `${service === "mail" ? "Mail" : "Ads"} webhook endpoints`,
        endpoints.length === 0
          ? h("p", {}, "No endpoints registered.")
          : table(
              ["Endpoint", "Events", "State", "Failures since last success", "Last delivery", ""],
              endpoints.map((w) => [
                h("a", { href: `#/customers/${id}/webhooks/${service}/${w.id}` }, w.url),
                w.events.join(", "),
                w.active ? "active" : `inactive since ${date(w.deactivated_at)}: ${w.deactivation_reason ?? ""}`,
                String(w.failure_count),
                date(w.last_delivery_at),
                w.active
                  ? ""
                  : h(
                      "button",
                      {
                        type: "button",
                        "aria-label": `Re-enable ${w.url}`,
                        onclick: async () => {
                          try {
                            await send("POST", `customers/${id}/${service}/webhooks/${w.id}/enable`);
                            result.ok(`${w.url} is active again.`);
                            await webhooksPage(main, id);
                          } catch (error) {
                            result.fail(error);
                          }
                        },
                      },
                      "Re-enable",
                    ),
              ]),
            ),
      );
    }),
  );
}
