import { get, send } from "./api";
import { say, whatToDo } from "./words";
import { card, date, form, h, maskUrlPassword, secretValue, table, yesNo } from "./dom";
import { customerTabs, type Customer } from "./customers";
import { editorForm, fieldEditor, objectEditor, secretField } from "./editors";
import { designCards } from "./mail-design";
import { READINESS_COLUMNS, sendersCards } from "./mail-senders";
import { templateCards, templatesCards } from "./mail-templates";
import type { AdminComponents as components } from "@mail-ads/client/admin";

// Answers of the admin API, typed from its OpenAPI document (the one source; packages/client/src/types).
type Schemas = components["schemas"];
type Readiness = Schemas["MailReadiness"];
type Usage = Schemas["Usage"];
type ProviderStatus = Schemas["MailProviderStatus"];
type ProviderBody = { server_token: string; transactional_stream: string; broadcast_stream: string; bulk_api_enabled: boolean };
type PostmarkWebhook = Schemas["MailPostmarkWebhook"];
type PostmarkWebhookSecret = Schemas["MailPostmarkWebhookSecret"];
type CredentialState = Schemas["CredentialState"];
type SuppressionLookup = Schemas["SuppressionLookupResult"];

/** A readiness item's state in words (never told by colour alone): only a red item stops sending; a warning says what to improve. */
const readinessBadge = (status: "green" | "warning" | "red") => h("span", { class: "badge" }, say("readinessStatus", status));

/**
 * Postmark events of this customer's messages that arrived on a stream id the configuration does not name:
 * they were applied all the same, but the count tells the operator a stream is missing from the form below.
 */
function unconfiguredStreams(events: ProviderStatus["events_on_unconfigured_streams"]): HTMLElement {
  const explanation =
    events.count === 0
      ? "Every Postmark event of this customer's messages arrived on the transactional or broadcast stream named below."
      : `Postmark reported events of this customer's messages on ${events.streams.length === 1 ? "a stream" : "streams"} not named below (${events.streams.join(", ")}; latest ${date(events.last_received_at)}). They were stored against their messages and updated the suppression list all the same; name the stream below (or correct the stream ids) so the configuration matches Postmark.`;
  return h("p", { "data-testid": "unconfigured-streams" }, h("strong", {}, `Events on unconfigured streams: ${events.count.toLocaleString()}. `), explanation);
}

async function providerCard(id: string): Promise<HTMLElement> {
  const [config, readiness] = await Promise.all([get<ProviderStatus>(`customers/${id}/mail/provider`), get<Readiness>(`customers/${id}/mail/readiness`)]);
  const editor = objectEditor<ProviderBody>({
    server_token: secretField({
      path: "server_token",
      label: "Postmark server token",
      name: "server token",
      hint: `Write-only: ${config.server_token_set ? "one is stored; leave empty to keep it" : "none stored yet"}. Stored encrypted, never shown again.`,
    }),
    transactional_stream: fieldEditor<string>({ path: "transactional_stream", label: "Transactional stream", value: config.transactional_stream ?? "" }),
    broadcast_stream: fieldEditor<string>({ path: "broadcast_stream", label: "Broadcast stream", value: config.broadcast_stream ?? "" }),
    bulk_api_enabled: fieldEditor<boolean>({
      path: "bulk_api_enabled",
      label: "Newsletters use Postmark's Bulk API",
      type: "checkbox",
      value: config.bulk_api_enabled,
      hint: "Only once Postmark support has enabled the Bulk API on the account.",
    }),
  });
  const initial = editor.read();
  return card(
    "Provider (Postmark) and readiness",
    h("p", {}, readiness.ready ? "✓ Ready to send." : "✗ Not ready to send: the items marked missing need attention (warnings do not stop sending)."),
    table(
      READINESS_COLUMNS,
      readiness.items.map((i) => [say("readinessItem", i.item), readinessBadge(i.status), whatToDo(i.message)]),
    ),
    unconfiguredStreams(config.events_on_unconfigured_streams),
    h("p", { class: "hint" }, "Senders and domains: ", h("a", { href: `#/customers/${id}/mail/senders` }, "their own page"), "."),
    editorForm({
      editor,
      submit: "Save provider configuration",
      guard: true,
      onSubmit: async (value) => {
        // Only what changed; an empty token field keeps the stored token.
        const changes = Object.fromEntries(
          Object.entries(value).filter(([key, v]) => (key === "server_token" ? v !== "" : v !== initial[key as keyof ProviderBody])),
        );
        if (Object.keys(changes).length === 0) return "Nothing changed.";
        await send("PATCH", `customers/${id}/mail/provider`, changes);
        Object.assign(initial, changes, { server_token: "" });
        // The token is not kept in the page once it is stored.
        for (const f of editor.fields()) if (f.spec.path === "server_token") f.control.value = "";
        return "Saved. Reload the page to see the readiness again.";
      },
    }),
  );
}

/** When a credential last changed and by whom (every role sees this; never the value). */
function credentialChange(state: CredentialState): string {
  if (!state.set) return "not set";
  if (!state.changed_at) return "set (no change recorded in the audit log)";
  const who = state.changed_by?.email ?? state.changed_by?.actor_type ?? "unknown";
  return `set; last changed ${date(state.changed_at)} by ${who}`;
}

const mayReveal = document.querySelector<HTMLMetaElement>('meta[name="operator-role"]')?.content !== "support";

async function webhookCard(id: string): Promise<HTMLElement> {
  const body = h("div", {});
  const revealed = h("div", { "data-testid": "webhook-secret" });
  const draw = (w: PostmarkWebhook) =>
    body.replaceChildren(
      table(
        ["", ""],
        [
          ["Webhook URL (without credentials)", w.url],
          ["User", w.username],
          ["Password", credentialChange(w.password_state)],
          ["Streams", w.message_streams.join(", ") || "—"],
          ["Triggers", w.record_types.join(", ")],
          ["Rotated", date(w.rotated_at)],
          ["Previous password valid until", date(w.previous_password_valid_until)],
        ],
      ),
    );
  const showSecret = (w: PostmarkWebhookSecret) =>
    revealed.replaceChildren(
      h("p", {}, "Paste this URL into the webhook settings of the customer's Postmark server: "),
      secretValue(w.url_with_credentials, "webhook URL", maskUrlPassword(w.url_with_credentials)),
    );
  draw(await get<PostmarkWebhook>(`customers/${id}/mail/postmark-webhook`));
  const reveal = h("button", { type: "button", class: "secondary" }, "Show the webhook URL with its password");
  reveal.addEventListener("click", async () => {
    const w = await send<PostmarkWebhookSecret>("POST", `customers/${id}/mail/postmark-webhook/reveal`).catch((error: unknown) => {
      revealed.replaceChildren(h("p", { class: "error", role: "alert" }, `Error: ${error instanceof Error ? error.message : String(error)}`));
      return null;
    });
    if (w) showSecret(w);
  });
  return card(
    "Postmark webhook credentials",
    body,
    mayReveal ? h("p", { class: "hint" }, reveal, " Admins only; every reveal is recorded in the audit log as a secret read.") : null,
    revealed,
    mayReveal
      ? form({
          submit: "Rotate password",
          fields: [{ path: "grace_seconds", label: "Previous password keeps working for (seconds)", type: "number", value: 86400 }],
          onSubmit: async (values) => {
            const w = await send<PostmarkWebhookSecret>("POST", `customers/${id}/mail/postmark-webhook/rotate`, values);
            draw(w);
            showSecret(w);
            return "Rotated. Update the webhook in Postmark with the new URL.";
          },
        })
      : null,
  );
}

async function usageCard(id: string): Promise<HTMLElement> {
  const usage = await get<Usage>(`customers/${id}/mail/usage`);
  const used = Math.min(usage.sent, usage.limit);
  return card(
    `Usage of ${usage.month}`,
    h(
      "p",
      {},
      h("label", { for: `usage-${id}` }, `Sent ${usage.sent.toLocaleString()} of ${usage.limit.toLocaleString()} `),
      h("progress", { id: `usage-${id}`, max: Math.max(1, usage.limit), value: used }),
    ),
    table(
      ["Sent", "Projection", "Reserved", "Remaining", "Max per job"],
      [[usage.sent, usage.projection, usage.reserved, usage.remaining, usage.max_per_job].map((n) => n.toLocaleString())],
    ),
    h(
      "details",
      {},
      h("summary", {}, "Previous months"),
      table(
        ["Month", "Sent"],
        usage.previous.map((p) => [p.month, p.sent.toLocaleString()]),
      ),
    ),
  );
}

function suppressionCard(id: string): HTMLElement {
  const results = h("div", { "aria-live": "polite" });
  return card(
    "Suppression lookup",
    form({
      read: true,
      submit: "Look up",
      fields: [
        { path: "emails", label: "Addresses (one per line)", type: "textarea", rows: 4 },
        { path: "stream", label: "Stream", type: "select", options: ["newsletter", "transactional"] },
      ],
      onSubmit: async (values) => {
        const emails = String(values.emails).split(/\s+/).filter(Boolean);
        const found = await send<SuppressionLookup[]>("POST", `customers/${id}/mail/suppressions/lookup`, { emails, stream: values.stream });
        results.replaceChildren(
          table(
            ["Address", "Suppressed", "Reason", "Since"],
            found.map((r) => [r.email, yesNo(r.suppressed), r.reason ?? "—", date(r.since)]),
          ),
        );
        return `${found.filter((r) => r.suppressed).length} of ${found.length} suppressed.`;
      },
    }),
    results,
  );
}

type MailSection = "provider" | "senders" | "usage" | "design" | "templates";
const MAIL_SECTIONS: [MailSection, string][] = [
  ["provider", "Provider and webhook"],
  ["senders", "Senders and domains"],
  ["design", "Design and brand"],
  ["templates", "Templates and blocks"],
  ["usage", "Usage and suppressions"],
];

/**
 * The customer's mail, one page per concern (`#/customers/<id>/mail/<section>`, a template at
 * `#/customers/<id>/mail/templates/<template>`), each a form or two long.
 */
export async function customerMailPage(main: HTMLElement, id: string, section: MailSection = "provider", templateId?: string): Promise<void> {
  const customer = await get<Customer>(`customers/${id}`);
  const cards: Record<MailSection, () => Promise<Promise<HTMLElement>[]> | Promise<HTMLElement>[]> = {
    provider: () => [providerCard(id), webhookCard(id)],
    senders: () => sendersCards(id),
    usage: () => [usageCard(id), Promise.resolve(suppressionCard(id))],
    design: () => designCards(id, customer.name),
    templates: () => (templateId ? templateCards(id, templateId) : templatesCards(id)),
  };
  const sections = await Promise.all(await cards[section]());
  const nav = h(
    "nav",
    { "aria-label": "Mail sections" },
    h(
      "ul",
      { class: "tabs" },
      ...MAIL_SECTIONS.map(([key, label]) =>
        h("li", {}, h("a", { href: `#/customers/${id}/mail/${key}`, "aria-current": key === section ? "page" : null }, label)),
      ),
    ),
  );
  main.replaceChildren(customerTabs(customer, "mail"), nav, ...sections);
}
