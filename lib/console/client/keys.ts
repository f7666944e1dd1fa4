import { get, send } from "./api";
import { card, date, form, h, outcome, table } from "./dom";
import { customerTabs, type Customer } from "./customers";
import { shownOnce } from "./shown-once";
import { choices, say } from "./words";
import type { AdminComponents as components } from "@mail-ads/client/admin";

// Answers of the admin API, typed from its OpenAPI document (the one source; packages/client/src/types).
type Schemas = components["schemas"];
type ApiKey = Schemas["ApiKey"];
type IssuedApiKey = Schemas["IssuedApiKey"];

const keyName = (k: ApiKey) => (k.label ? `${k.label} (${k.prefix}…)` : `${k.prefix}…`);

/**
 * A customer's API keys on a page of their own: the list (label, prefix, service, scope, created, last
 * used, state; valid keys first), create (the key is shown this once, with Copy) and revoke (after a
 * confirmation). A role that may not write gets the admin API's 403 as text next to the action.
 */
export async function customerKeysPage(main: HTMLElement, id: string): Promise<void> {
  const [customer, keys] = await Promise.all([get<Customer>(`customers/${id}`), get<ApiKey[]>(`customers/${id}/keys`)]);
  const issued = h("div", { "aria-live": "polite" });
  const list = h("div", {});
  const revokeOutcome = outcome();
  const draw = (all: ApiKey[]) => {
    const ordered = [...all].sort((a, b) => Number(a.revoked_at !== null) - Number(b.revoked_at !== null));
    const valid = all.filter((k) => k.revoked_at === null).length;
    list.replaceChildren(
      h("p", { class: "hint", "data-testid": "key-count" }, `${valid} valid, ${all.length - valid} revoked.`),
      all.length === 0
        ? h("p", {}, "No keys yet. Create one above; the customer's portal sends it as Authorization: Bearer ….")
        : table(
            ["Label", "Prefix", "Service", "Scope", "Created", "Last used", "State", ""],
            ordered.map((k) => [
              k.label ?? "—",
              h("code", {}, `${k.prefix}…`),
              say("service", k.service),
              say("keyScope", k.scope),
              date(k.created_at),
              k.last_used_at ? date(k.last_used_at) : "never",
              k.revoked_at ? `✗ revoked ${date(k.revoked_at)}` : "✓ valid",
              k.revoked_at
                ? null
                : h(
                    "button",
                    {
                      type: "button",
                      class: "secondary",
                      "aria-label": `Revoke key ${k.label ?? k.prefix}`,
                      onClick: async () => {
                        if (!confirm(`Revoke ${keyName(k)}? Requests with it will answer 401 from the next one on; this cannot be undone.`)) return;
                        try {
                          await send("DELETE", `keys/${k.id}`);
                          draw(await get<ApiKey[]>(`customers/${id}/keys`));
                          revokeOutcome.ok(`Key ${keyName(k)} revoked.`);
                        } catch (error) {
                          revokeOutcome.fail(error);
                        }
                      },
                    },
                    "Revoke",
                  ),
            ]),
            "API keys, valid ones first",
          ),
      revokeOutcome.element,
    );
  };
  draw(keys);
  main.replaceChildren(
    customerTabs(customer, "keys"),
    card("API keys", list),
    card(
      "Create an API key",
      form({
        submit: "Create key",
        fields: [
          { path: "label", label: "Key label", hint: "What the key is for, e.g. shop backend." },
          { path: "service", label: "Service", type: "select", options: choices("service") },
          { path: "scope", label: "Scope", type: "select", options: choices("keyScope"), hint: "Full access reads, writes and sends; reporting only reads." },
        ],
        onSubmit: async (values) => {
          const key = await send<IssuedApiKey>("POST", `customers/${id}/keys`, {
            ...values,
            label: typeof values.label === "string" && values.label.trim() !== "" ? values.label.trim() : undefined,
          });
          shownOnce(issued, { what: "key", value: key.key, testId: "issued-key" });
          draw(await get<ApiKey[]>(`customers/${id}/keys`));
          return `Key ${key.prefix}… created.`;
        },
      }),
      issued,
    ),
  );
}
