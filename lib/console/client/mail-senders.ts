import { get, send } from "./api";
import { say, whatToDo } from "./words";
import { card, field, h, readField, table } from "./dom";
import { editorForm, inFieldset, objectEditor, valueList, withJsonView, type Editor } from "./editors";
import type { AdminComponents as components } from "@mail-ads/client/admin";

/** The columns of a readiness table (the senders card and the provider card). */
export const READINESS_COLUMNS = ["Item", "State", "What to do"];

// Answers of the admin API, typed from its OpenAPI document (the one source; packages/client/src/types).
type Schemas = components["schemas"];
type ProviderStatus = Schemas["MailProviderStatus"];
type Readiness = Schemas["MailReadiness"];
type Sender = Schemas["MailSender"];
type SendersBody = Required<
  Pick<Schemas["UpdateMailProviderConfig"], "verified_senders" | "verified_domains" | "default_newsletter_from" | "default_transactional_from">
>;

/** A sender (`{ email, name }`) or none: both fields empty mean null (the default applies). */
export function senderEditor(spec: { path: string; legend: string; value: Sender | null; hint: string }): Editor<Sender | null> {
  const email = field({ path: `${spec.path}.email`, label: `${spec.legend}: address`, type: "email", value: spec.value?.email ?? "" });
  const name = field({ path: `${spec.path}.name`, label: `${spec.legend}: display name`, value: spec.value?.name ?? "" });
  return {
    element: h("fieldset", { class: "group" }, h("legend", {}, spec.legend), h("p", { class: "hint" }, spec.hint), email.wrap, name.wrap),
    read: () => {
      const [address, display] = [String(readField(email)).trim(), String(readField(name)).trim()];
      return address === "" && display === "" ? null : { email: address, name: display };
    },
    fields: () => [email, name],
  };
}

const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === "string");

/** Verified sender signatures and domains at Postmark, and the default senders (PATCH of the provider configuration). */
async function sendersCard(id: string): Promise<HTMLElement> {
  const [config, readiness] = await Promise.all([get<ProviderStatus>(`customers/${id}/mail/provider`), get<Readiness>(`customers/${id}/mail/readiness`)]);
  const list = (path: "verified_senders" | "verified_domains", item: string, items: string[], type: "email" | "text", max: number) =>
    withJsonView<string[]>({
      path,
      label: path === "verified_senders" ? "Sender addresses" : "Sender domains",
      value: items,
      accepts: isStrings,
      make: (value) => valueList({ path, item, items: value, type, max }),
    });
  const editor = objectEditor<SendersBody>({
    verified_senders: inFieldset("Verified sender addresses", list("verified_senders", "sender address", config.verified_senders, "email", 500)),
    verified_domains: inFieldset(
      "Verified domains",
      list("verified_domains", "domain", config.verified_domains, "text", 100),
      "Lower-case, such as acme.example.",
    ),
    default_newsletter_from: senderEditor({
      path: "default_newsletter_from",
      legend: "Default newsletter sender",
      value: config.default_newsletter_from,
      hint: "A verified address or one on a verified domain. Empty: none (the customer is not ready to send).",
    }),
    default_transactional_from: senderEditor({
      path: "default_transactional_from",
      legend: "Default transactional sender",
      value: config.default_transactional_from,
      hint: "Empty: the newsletter sender.",
    }),
  });
  const items = readiness.items.filter((i) => i.item === "verified_senders" || i.item === "default_newsletter_from");
  return card(
    "Senders and domains",
    h("p", { class: "hint" }, "The sender signatures and domains verified at Postmark for this customer's server, and who its mails come from."),
    table(
      READINESS_COLUMNS,
      items.map((i) => [say("readinessItem", i.item), h("span", { class: "badge" }, say("readinessStatus", i.status)), whatToDo(i.message)]),
    ),
    editorForm({
      editor,
      submit: "Save senders and domains",
      guard: true,
      onSubmit: async (value) => {
        await send("PATCH", `customers/${id}/mail/provider`, value);
        return "Saved. Reload the page to see the readiness again.";
      },
    }),
  );
}

export const sendersCards = (id: string): Promise<HTMLElement>[] => [sendersCard(id)];
