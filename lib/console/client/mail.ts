import { ApiFailure, get, send } from "./api";
import { card, date, debounce, field, form, h, maskUrlPassword, membershipBox, outcome, readField, secretValue, showProblems, table, yesNo } from "./dom";
import { customerTabs, type Customer } from "./customers";
import type { Block } from "./blocks";
import type { components } from "../../client/types/admin";

// Answers of the admin API, typed from its OpenAPI document (the one source; lib/client/types).
type Schemas = components["schemas"];
type DesignRules = Schemas["MailDesignRules"];
type Readiness = Schemas["MailReadiness"];
type Template = Schemas["MailTemplate"];
type Usage = Schemas["Usage"];
type EnabledBlock = Schemas["MailEnabledBlock"];
type Frame = Schemas["MailFrame"];
type ProviderStatus = Schemas["MailProviderStatus"];
type TemplatePreview = Schemas["AdminMailTemplatePreview"];
type PostmarkWebhook = Schemas["MailPostmarkWebhook"];
type SuppressionLookup = Schemas["SuppressionLookupResult"];

/** Green/red is spelled out: the state is never told by colour alone. */
const readinessBadge = (status: "green" | "red") => h("span", { class: "badge" }, status === "green" ? "✓ ready" : "✗ missing");

/**
 * A sample mail drawn in the browser from the tokens being edited (the saved tokens overlaid with the
 * overrides in the editor), so the effect of a rule shows while typing; saving re-renders tiles server-side.
 */
function designSample(tokens: Record<string, string>): HTMLElement {
  const t = (key: string, fallback: string) => tokens[key] ?? fallback;
  const sample = h(
    "div",
    { "data-testid": "design-sample", class: "customer-content", style: `background:${t("color_background", "#f4f4f4")};padding:16px;` },
    h(
      "div",
      {
        style: `background:${t("color_container", "#fff")};max-width:${t("container_width", "600px")};margin:0 auto;padding:${t("space_section", "24px")};font-family:${t("font_body", "sans-serif")};font-size:${t("font_size_base", "16px")};color:${t("color_text", "#333")};`,
      },
      h(
        "p",
        {
          style: `margin:0 0 8px;font-family:${t("font_heading", "sans-serif")};font-size:${t("font_size_h1", "28px")};color:${t("color_heading", "#111")};font-weight:${t("heading_font_weight", "bold")};`,
        },
        "Sample heading",
      ),
      h("p", {}, "Body text of a newsletter, with ", h("span", { style: `color:${t("color_link", "#0b57d0")};text-decoration:underline;` }, "a link"), "."),
      h(
        "p",
        {},
        h(
          "span",
          {
            style: `display:inline-block;background:${t("color_primary", "#0b57d0")};color:${t("color_on_primary", "#fff")};border-radius:${t("button_radius", "4px")};padding:${t("button_padding", "12px 24px")};`,
          },
          "Button",
        ),
      ),
    ),
    h(
      "div",
      {
        style: `background:${t("color_footer_bg", "#eee")};color:${t("color_footer_text", "#555")};max-width:${t("container_width", "600px")};margin:0 auto;padding:12px;font-size:${t("font_size_small", "12px")};`,
      },
      "Footer · imprint · unsubscribe",
    ),
  );
  return sample;
}

async function designCard(id: string): Promise<HTMLElement> {
  const rules = await get<DesignRules>(`customers/${id}/mail/design-rules`);
  const overrides = field({
    path: "overrides",
    label: "Overrides (JSON: token → value; {} resets to the defaults)",
    type: "json",
    value: rules.overrides,
    rows: 8,
    wide: true,
  });
  const sampleBox = h("div", {}, designSample(rules.tokens));
  const sampleState = h("p", { class: "hint", role: "status" });
  const redraw = debounce(250, () => {
    try {
      const edited = JSON.parse(overrides.control.value) as Record<string, string>;
      const defaults = Object.fromEntries(Object.entries(rules.tokens).filter(([key]) => !(key in rules.overrides)));
      sampleBox.replaceChildren(designSample({ ...defaults, ...edited }));
      sampleState.textContent = "Sample follows the editor.";
    } catch {
      sampleState.textContent = "The sample waits for valid JSON.";
    }
  });
  overrides.control.addEventListener("input", redraw);
  const result = outcome();
  const editor = h("form", { novalidate: true }, overrides.wrap, h("button", { type: "submit" }, "Save design rules"), result.element);
  editor.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const saved = await send<DesignRules>("PUT", `customers/${id}/mail/design-rules`, { overrides: readField(overrides) });
      showProblems([overrides], []);
      result.ok(`Saved as version ${saved.version}.`);
    } catch (error) {
      result.fail(error, error instanceof ApiFailure ? showProblems([overrides], error.problems) : []);
    }
  });
  return card(
    "Design rules",
    h("p", { class: "hint" }, `Version ${rules.version}. Token names and formats: the admin API docs, "Mail design rules".`),
    h("div", { class: "split" }, editor, h("div", {}, h("h3", {}, "Live sample"), sampleState, sampleBox)),
  );
}

async function blocksCard(id: string): Promise<HTMLElement> {
  const [library, enabled] = await Promise.all([get<Block[]>("mail/blocks"), get<EnabledBlock[]>(`customers/${id}/mail/blocks`)]);
  const on = new Set(enabled.map((b) => b.id));
  const result = outcome();
  return card(
    "Enabled blocks",
    table(
      ["Block", "Library state", "Enabled for this customer"],
      library.map((b) => [
        b.name,
        b.active ? "active" : "inactive",
        membershipBox({
          label: `Enable ${b.name}`,
          checked: on.has(b.id),
          path: `customers/${id}/mail/blocks/${b.id}`,
          result,
          said: (enabled) => `${b.name} ${enabled ? "enabled" : "disabled"}.`,
        }),
      ]),
    ),
    result.element,
  );
}

async function frameCard(id: string): Promise<HTMLElement> {
  const frame = await get<Frame>(`customers/${id}/mail/frame`);
  const { version, updated_at, ...editable } = frame;
  return card(
    "Frame",
    h("p", { class: "hint" }, `Version ${version}, changed ${date(updated_at)}. Header, the two footers and the brand values.`),
    form({
      submit: "Save frame",
      guard: true,
      fields: [
        { path: "header_mjml", label: "Header MJML (empty: none)", type: "textarea", value: editable.header_mjml ?? "", wide: true },
        { path: "newsletter_footer_mjml", label: "Newsletter footer MJML", type: "textarea", value: editable.newsletter_footer_mjml, wide: true },
        { path: "transactional_footer_mjml", label: "Transactional footer MJML", type: "textarea", value: editable.transactional_footer_mjml, wide: true },
        { path: "brand", label: "Brand (JSON)", type: "json", value: editable.brand, wide: true },
      ],
      onSubmit: async (values) => {
        const saved = await send<Frame>("PUT", `customers/${id}/mail/frame`, {
          ...values,
          header_mjml: values.header_mjml === "" ? null : values.header_mjml,
        });
        return `Saved as version ${saved.version}.`;
      },
    }),
  );
}

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
  return card(
    "Provider (Postmark) and readiness",
    h("p", {}, readiness.ready ? "✓ Ready to send." : "✗ Not ready to send: the items marked missing need attention."),
    table(
      ["Item", "State", "What to do"],
      readiness.items.map((i) => [i.item, readinessBadge(i.status), i.message]),
    ),
    unconfiguredStreams(config.events_on_unconfigured_streams),
    form({
      submit: "Save provider configuration",
      guard: true,
      sendOnlyChanged: true,
      fields: [
        { path: "server_token", label: `Postmark server token (write-only; ${config.server_token_set ? "one is stored" : "none stored"})`, type: "password" },
        { path: "transactional_stream", label: "Transactional stream", value: config.transactional_stream ?? "" },
        { path: "broadcast_stream", label: "Broadcast stream", value: config.broadcast_stream ?? "" },
        { path: "verified_senders", label: "Verified senders (JSON list)", type: "json", value: config.verified_senders, rows: 3 },
        { path: "verified_domains", label: "Verified domains (JSON list)", type: "json", value: config.verified_domains, rows: 3 },
        {
          path: "default_newsletter_from",
          label: "Default newsletter sender (JSON { email, name } or null)",
          type: "json",
          value: config.default_newsletter_from,
          rows: 4,
        },
        {
          path: "default_transactional_from",
          label: "Default transactional sender (JSON or null)",
          type: "json",
          value: config.default_transactional_from,
          rows: 4,
        },
      ],
      onSubmit: async (values) => {
        if (Object.keys(values).length === 0) return "Nothing changed.";
        await send("PATCH", `customers/${id}/mail/provider`, values);
        return "Saved. Reload the page to see the readiness again.";
      },
    }),
  );
}

async function templatesCard(id: string, customer: Customer): Promise<HTMLElement> {
  const templates = await get<Template[]>(`customers/${id}/mail/templates`);
  // The preview frame stays hidden until a template is drawn in it: no empty box.
  const preview = h("iframe", { class: "preview", title: "Template preview", sandbox: "", hidden: true });
  const previewState = h("p", { role: "status", class: "hint" }, templates.length > 0 ? "Choose “Preview” on a template to see it here." : "");
  const showPreview = async (t: Template) => {
    previewState.textContent = `Rendering ${t.name}…`;
    try {
      const rendered = await send<TemplatePreview>("POST", `customers/${id}/mail/templates/${t.id}/preview`, {});
      preview.srcdoc = rendered.html;
      preview.hidden = false;
      previewState.textContent = `Preview of ${t.name} (subject: ${rendered.subject}), with the contract's example values.`;
    } catch (error) {
      previewState.textContent = `Preview failed: ${error instanceof Error ? error.message : String(error)}`;
    }
  };
  return card(
    "Templates",
    table(
      ["Name", "Kind", "Origin", "Status", "Version", ""],
      templates.map((t) => [
        t.name,
        t.kind,
        t.origin,
        t.status,
        String(t.version),
        h("button", { type: "button", class: "secondary", onClick: () => void showPreview(t) }, `Preview ${t.name}`),
      ]),
    ),
    previewState,
    preview,
    form({
      title: "Create an admin template",
      submit: "Create template",
      fields: [
        { path: "name", label: "Name", required: true },
        { path: "kind", label: "Kind", type: "select", options: ["transactional", "newsletter"] },
        { path: "subject", label: "Subject", required: true },
        { path: "blocks", label: "Blocks (JSON list of { block_id, values })", type: "json", value: [], wide: true },
        { path: "params", label: "Parameter contract (JSON)", type: "json", value: [], wide: true },
      ],
      onSubmit: async (values) => {
        const t = await send<Template>("POST", `customers/${id}/mail/templates`, values);
        return `Created ${t.name} for ${customer.name}. Reload to see it in the list.`;
      },
    }),
  );
}

async function webhookCard(id: string): Promise<HTMLElement> {
  const body = h("div", {});
  const draw = (w: PostmarkWebhook) =>
    body.replaceChildren(
      table(
        ["", ""],
        [
          ["Webhook URL (paste into Postmark)", secretValue(w.url, "webhook URL", maskUrlPassword(w.url))],
          ["User", w.username],
          ["Streams", w.message_streams.join(", ") || "—"],
          ["Triggers", w.record_types.join(", ")],
          ["Rotated", date(w.rotated_at)],
          ["Previous password valid until", date(w.previous_password_valid_until)],
        ],
      ),
    );
  draw(await get<PostmarkWebhook>(`customers/${id}/mail/postmark-webhook`));
  return card(
    "Postmark webhook credentials",
    body,
    form({
      submit: "Rotate password",
      fields: [{ path: "grace_seconds", label: "Previous password keeps working for (seconds)", type: "number", value: 86400 }],
      onSubmit: async (values) => {
        draw(await send<PostmarkWebhook>("POST", `customers/${id}/mail/postmark-webhook/rotate`, values));
        return "Rotated. Update the webhook in Postmark with the new URL.";
      },
    }),
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

type MailSection = "provider" | "usage" | "design" | "templates";
const MAIL_SECTIONS: [MailSection, string][] = [
  ["provider", "Provider and webhook"],
  ["usage", "Usage and suppressions"],
  ["design", "Design, blocks and frame"],
  ["templates", "Templates"],
];

/** The customer's mail, one page per concern (`#/customers/<id>/mail/<section>`), each a few cards long. */
export async function customerMailPage(main: HTMLElement, id: string, section: MailSection = "provider"): Promise<void> {
  const customer = await get<Customer>(`customers/${id}`);
  const cards: Record<MailSection, () => Promise<HTMLElement>[]> = {
    provider: () => [providerCard(id), webhookCard(id)],
    usage: () => [usageCard(id), Promise.resolve(suppressionCard(id))],
    design: () => [designCard(id), blocksCard(id), frameCard(id)],
    templates: () => [templatesCard(id, customer)],
  };
  const sections = await Promise.all(cards[section]());
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
