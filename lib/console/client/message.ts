import type { AdminComponents as components } from "@mail-ads/client/admin";
import { get } from "./api";
import { card, h, table } from "./dom";
import { customerTabs, type Customer } from "./customers";

/**
 * One message's whole story: what it is (state, template and version, send job, Postmark's id), every event
 * with its time and details in words, and what it carried: the HTML in a sandboxed frame (no scripts, no
 * outside requests) and the text part, or the template with its placeholders where a newsletter's
 * recipient values are not kept.
 */
type Schemas = components["schemas"];
type MessageDetail = Schemas["MailMessageDetail"];
type Content = Schemas["MailMessageContent"];
type TimelineEntry = Schemas["MailMessageTimelineEntry"];

const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "medium" }) : "—");

const STATUS_WORDS: Record<MessageDetail["status"], string> = {
  pending: "Waiting to be sent",
  accepted: "Accepted by Postmark",
  delivered: "Delivered",
  bounced: "Bounced",
  complained: "Marked as spam by the recipient",
  suppressed: "Not sent: the address is suppressed",
  invalid: "Not sent: the address is invalid",
  failed: "Not sent: Postmark refused it or the job was cancelled",
  unknown: "Unknown: Postmark's answer was lost",
};

const EVENT_WORDS: Record<string, string> = {
  created: "Created",
  accepted: "Accepted by Postmark",
  delivered: "Delivered",
  bounced: "Bounced",
  bounce_notice: "Bounce notice (not a failure)",
  complained: "Spam complaint",
  opened: "Opened",
  clicked: "Link clicked",
  unsubscribed: "Unsubscribed",
  suppressed: "Not sent: suppressed",
  invalid: "Not sent: invalid address",
  failed: "Not sent",
  unknown: "Outcome unknown",
};

const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);

/** An event's details as a sentence: bounce type and description, the open's client, the clicked link. */
function eventDetails(e: TimelineEntry): HTMLElement | string {
  const d = e.details;
  switch (e.type) {
    case "bounced":
    case "bounce_notice":
      return [text(d.bounce_type), text(d.description), d.final === true ? "final: the address gets no more mail" : null].filter(Boolean).join(" · ") || "—";
    case "opened":
      return (
        [
          text(d.client),
          text(d.os),
          text(d.platform),
          typeof d.read_seconds === "number" ? `read ${d.read_seconds} s` : null,
          d.first_open === true ? "first open" : null,
        ]
          .filter(Boolean)
          .join(" · ") || "No client reported"
      );
    case "clicked": {
      const url = text(d.url);
      const where = [text(d.client), text(d.location)].filter(Boolean).join(" · ");
      return h("span", {}, url ? h("code", { "data-testid": "clicked-link" }, url) : "—", where ? ` · ${where}` : "");
    }
    case "accepted":
      return text(d.provider_message_id) ? `Postmark id ${d.provider_message_id}` : "—";
    case "created":
      return "—";
    case "complained":
      return d.source === "subscription_change" ? "Reported by Postmark as a suppression" : "Reported by the mailbox provider";
    case "unsubscribed":
      return "Through the unsubscribe link";
    default:
      return text(d.reason) ?? (Object.keys(d).length > 0 ? h("code", {}, JSON.stringify(d)) : "—");
  }
}

/** The policy inside the frame: nothing runs, nothing is fetched from outside our origin (the console's own policy applies too). */
const FRAME_POLICY = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; font-src 'self' data:";

/**
 * The mail's HTML made safe to show: images from other hosts removed (their hosts named in the note) and
 * the policy above in its head. The frame is sandboxed without scripts.
 */
function framedHtml(html: string): { srcdoc: string; blocked: string[] } {
  const doc = new DOMParser().parseFromString(html, "text/html");
  const blocked = new Set<string>();
  for (const img of Array.from(doc.querySelectorAll<HTMLImageElement>("img[src]"))) {
    const src = img.getAttribute("src") ?? "";
    let url: URL | null = null;
    try {
      url = new URL(src, location.href);
    } catch {
      url = null;
    }
    if (url && (url.protocol === "data:" || url.origin === location.origin)) continue;
    blocked.add(url?.host || src.slice(0, 60));
    img.removeAttribute("src");
    img.removeAttribute("srcset");
    img.setAttribute("data-blocked", "");
    img.setAttribute("alt", `[image from ${url?.host ?? "another address"} not loaded${img.alt ? `: ${img.alt}` : ""}]`);
  }
  const meta = doc.createElement("meta");
  meta.httpEquiv = "Content-Security-Policy";
  meta.content = FRAME_POLICY;
  doc.head.prepend(meta);
  return { srcdoc: `<!doctype html>${doc.documentElement.outerHTML}`, blocked: [...blocked] };
}

const SOURCE_TITLES: Record<Content["source"], string> = {
  as_sent: "Content as sent",
  template_placeholders: "Content: the template with its placeholders",
  expired: "Content no longer kept",
  not_sent: "No content",
};

function contentCard(content: Content): HTMLElement {
  if (content.html === null) return card(SOURCE_TITLES[content.source], h("p", { "data-testid": "content-note" }, content.note));
  const { srcdoc, blocked } = framedHtml(content.html);
  const frame = h("iframe", {
    class: "preview mail",
    title: `The mail's HTML: ${content.subject}`,
    sandbox: "",
    referrerpolicy: "no-referrer",
    "data-testid": "mail-html",
  });
  frame.srcdoc = srcdoc;
  return card(
    SOURCE_TITLES[content.source],
    h("p", { "data-testid": "content-note" }, content.note),
    content.kept_until ? h("p", { class: "hint" }, `Kept until ${when(content.kept_until)} (${zone}).`) : null,
    h("p", {}, h("strong", {}, "Subject: "), content.subject),
    h("h3", {}, "HTML part"),
    blocked.length > 0
      ? h(
          "p",
          { class: "hint", "data-testid": "blocked-images" },
          `${blocked.length === 1 ? "Images from one other address are" : `Images from ${blocked.length} other addresses are`} not loaded here (no request leaves the console): ${blocked.join(", ")}.`,
        )
      : null,
    frame,
    h("h3", {}, content.text_source === "as_sent" ? "Text part" : "Text part (derived from the HTML)"),
    content.text_source === "as_sent"
      ? null
      : h(
          "p",
          { class: "hint", "data-testid": "text-derived" },
          "No text part was sent with this mail: this is what a plain-text mail client shows of the HTML.",
        ),
    // Focusable: a long text part scrolls, and a keyboard must reach it.
    h("pre", { class: "body", "data-testid": "mail-text", tabindex: 0, "aria-label": "The text part" }, content.text ?? ""),
  );
}

export async function messagePage(main: HTMLElement, id: string, messageId: string): Promise<void> {
  const [customer, message, content] = await Promise.all([
    get<Customer>(`customers/${id}`),
    get<MessageDetail>(`customers/${id}/mail/messages/${messageId}`),
    get<Content>(`customers/${id}/mail/messages/${messageId}/content`),
  ]);
  const template = content.template;
  main.replaceChildren(
    customerTabs(customer, "messages"),
    h("p", {}, h("a", { href: `#/customers/${id}/messages` }, "← All messages")),
    card(
      `${message.kind === "newsletter" ? "Newsletter" : "Transactional mail"}: ${message.subject}`,
      table(
        ["", ""],
        [
          ["State", h("strong", { "data-testid": "message-state" }, STATUS_WORDS[message.status])],
          ["Sent in", message.mode === "sandbox" ? "Sandbox (accepted by Postmark, never delivered or counted)" : "Live"],
          [
            "Template",
            h(
              "span",
              {},
              h("a", { href: `#/customers/${id}/mail/templates/${template.id}` }, template.name ?? "a deleted template"),
              template.version_sent !== null
                ? ` · version ${template.version_sent}${template.version_now !== null && template.version_now !== template.version_sent ? ` (now ${template.version_now})` : ""}`
                : "",
            ),
          ],
          [
            "Send job",
            content.send_job
              ? h("a", { href: `#/customers/${id}/send-jobs/${content.send_job.id}` }, content.send_job.name)
              : message.send_job_id
                ? h("a", { href: `#/customers/${id}/send-jobs/${message.send_job_id}` }, "its send job")
                : "— (transactional mail)",
          ],
          ["Message id", h("code", {}, message.id)],
          ["Postmark message id", message.provider_message_id ? h("code", {}, message.provider_message_id) : "— (not accepted)"],
          ["Handed to Postmark", message.kind === "newsletter" ? `${message.provider_attempts} time(s)` : "once, synchronously"],
          ["Bounce type", message.bounce_type ?? "—"],
          ["Error", message.error ?? "—"],
        ],
      ),
    ),
    card(
      "Timeline",
      h("p", { class: "hint" }, `Times in ${zone}. Provider events are kept 90 days; the state is kept for good.`),
      table(
        ["When", "Event", "Details"],
        message.timeline.map((e) => [when(e.at), EVENT_WORDS[e.type] ?? e.type, eventDetails(e)]),
      ),
    ),
    contentCard(content),
  );
}
