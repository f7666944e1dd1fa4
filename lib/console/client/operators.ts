import type { AdminComponents as components } from "@mail-ads/client/admin";
import { get, getPage, send } from "./api";
import { card, date, debounce, form, h, outcome, table, uid } from "./dom";
import { secondFactorCard, signInPolicyCard } from "./second-factors";
import { shownOnce } from "./shown-once";
import { choices, fromLocalInput, localInput, operationLabel, say, timeZone } from "./words";

type Schemas = components["schemas"];
type Operator = Schemas["Operator"];
type OperatorToken = Schemas["OperatorToken"];
type IssuedOperatorToken = Schemas["IssuedOperatorToken"];
type OperatorSession = Schemas["OperatorSession"];
type CurrentOperator = Schemas["CurrentOperator"];
type AuditEntry = Schemas["AuditEntry"];

const ROLES = choices("role");
const ROLE_HINT =
  "Owner: everything, manages operators; Admin: everything but operators; Support: reads, plus suppression reactivation and webhook redelivery.";

/** The token's secret, shown once with a Copy button, then the list again. */
const showToken = (place: HTMLElement, issued: IssuedOperatorToken) => shownOnce(place, { what: "API token", value: issued.token, testId: "issued-token" });

/** A table of API tokens with a revoke button per live token; `revokePath` names the DELETE. */
function tokenTable(tokens: OperatorToken[], revokePath: (token: OperatorToken) => string, redraw: () => Promise<void>): HTMLElement {
  const result = outcome();
  return h(
    "div",
    {},
    table(
      ["Label", "Prefix", "Created", "Last used", "State", ""],
      tokens.map((t) => [
        t.label,
        h("code", {}, `${t.prefix}…`),
        date(t.created_at),
        date(t.last_used_at),
        t.revoked_at ? `✗ Revoked ${date(t.revoked_at)}` : "✓ Valid",
        t.revoked_at
          ? null
          : h(
              "button",
              {
                type: "button",
                class: "secondary",
                "aria-label": `Revoke token ${t.label}`,
                "data-needs": revokePath(t).startsWith("me/") ? "support" : "owner",
                onClick: async () => {
                  if (!confirm(`Revoke the token "${t.label}"? Requests with it will answer 401.`)) return;
                  try {
                    await send("DELETE", revokePath(t));
                    await redraw();
                  } catch (error) {
                    result.fail(error);
                  }
                },
              },
              "Revoke",
            ),
      ]),
      "API tokens",
    ),
    result.element,
  );
}

export async function operatorsPage(main: HTMLElement): Promise<void> {
  const operators = await get<Operator[]>("operators");
  const policy = await signInPolicyCard(operators);
  main.replaceChildren(
    h("h1", {}, "Operators"),
    card(
      "Create an operator",
      form({
        needs: "owner",
        fields: [
          { path: "email", label: "E-mail", type: "email", required: true },
          { path: "role", label: "Role", type: "select", options: ROLES, value: "support", hint: ROLE_HINT },
          {
            path: "password",
            label: "Initial password",
            type: "password",
            required: true,
            hint: "At least 12 characters; tell it to the operator on another channel.",
          },
        ],
        submit: "Create operator",
        onSubmit: async (values) => {
          const created = await send<Operator>("POST", "operators", values);
          location.hash = `#/operators/${created.id}`;
          return `Created ${created.email}.`;
        },
      }),
    ),
    card(
      "All operators",
      table(
        ["E-mail", "Role", "Created", "State"],
        operators.map((o) => [
          h("a", { href: `#/operators/${o.id}` }, o.email),
          say("role", o.role),
          date(o.created_at),
          o.disabled_at ? `Disabled ${date(o.disabled_at)}` : "Enabled",
        ]),
      ),
    ),
    policy,
  );
}

export async function operatorPage(main: HTMLElement, id: string): Promise<void> {
  const operator = await get<Operator>(`operators/${id}`);
  const issued = h("div", { "aria-live": "polite" });
  const tokens = h("div", {});
  const drawTokens = async () => {
    tokens.replaceChildren(tokenTable(await get<OperatorToken[]>(`operators/${id}/tokens`), (t) => `operators/${id}/tokens/${t.id}`, drawTokens));
  };
  await drawTokens();
  main.replaceChildren(
    h("p", {}, h("a", { href: "#/operators" }, "← All operators")),
    h("h1", {}, operator.email),
    h("p", { class: "hint" }, `Operator id ${operator.id} · created ${date(operator.created_at)}`),
    card(
      "Role and access",
      form({
        needs: "owner",
        sendOnlyChanged: true,
        fields: [
          { path: "role", label: "Role", type: "select", options: ROLES, value: operator.role, hint: ROLE_HINT },
          {
            path: "disabled",
            label: "Disabled (ends the operator's sessions and revokes their tokens at once)",
            type: "checkbox",
            value: operator.disabled_at !== null,
          },
          { path: "password", label: "New password", type: "password", hint: "Leave empty to keep the current one." },
        ],
        submit: "Save",
        guard: true,
        onSubmit: async (values) => {
          if (values.password === "") delete values.password;
          if (Object.keys(values).length === 0) return "Nothing changed.";
          const saved = await send<Operator>("PATCH", `operators/${id}`, values);
          await drawTokens();
          return `Saved: ${say("role", saved.role)}, ${saved.disabled_at ? "disabled" : "enabled"}.`;
        },
      }),
    ),
    card(
      "API tokens",
      h("p", { class: "hint" }, "For automation: a token acts as this operator with their current role (Authorization: Bearer op_live_…)."),
      form({
        needs: "owner",
        fields: [{ path: "label", label: "Label", required: true, hint: "What the token is for." }],
        submit: "Create token",
        onSubmit: async (values) => {
          const made = await send<IssuedOperatorToken>("POST", `operators/${id}/tokens`, values);
          showToken(issued, made);
          await drawTokens();
          return `Token ${made.prefix}… created.`;
        },
      }),
      issued,
      tokens,
    ),
  );
}

export async function mePage(main: HTMLElement): Promise<void> {
  const me = await get<CurrentOperator>("me");
  if (!me.operator_id) {
    main.replaceChildren(
      h("h1", {}, "My account"),
      card(
        "Signed in with the shared token",
        h(
          "p",
          {},
          `This session uses the ${me.actor === "break_glass" ? "break-glass" : "bootstrap"} token (role ${say("role", me.role)}); it has no sessions or tokens of its own.`,
        ),
        h("p", {}, "Create the first owner with npm run admin -- operators:create --email … --role owner, then sign in with e-mail and password."),
      ),
    );
    return;
  }
  const sessions = h("div", {});
  const drawSessions = async () => {
    const result = outcome();
    const list = await get<OperatorSession[]>("me/sessions");
    sessions.replaceChildren(
      table(
        ["Signed in", "Ends", "Browser", "Address", ""],
        list.map((s) => [
          date(s.created_at),
          date(s.expires_at),
          s.user_agent ?? "—",
          s.address ?? "—",
          s.current
            ? h("span", { class: "badge" }, "this session")
            : h(
                "button",
                {
                  type: "button",
                  class: "secondary",
                  "aria-label": `Sign out the session from ${date(s.created_at)}`,
                  "data-needs": "support",
                  onClick: async () => {
                    try {
                      await send("DELETE", `me/sessions/${s.id}`);
                      await drawSessions();
                    } catch (error) {
                      result.fail(error);
                    }
                  },
                },
                "Sign out",
              ),
        ]),
        "My console sessions",
      ),
      result.element,
    );
  };
  const issued = h("div", { "aria-live": "polite" });
  const tokens = h("div", {});
  const drawTokens = async () => {
    tokens.replaceChildren(tokenTable(await get<OperatorToken[]>("me/tokens"), (t) => `me/tokens/${t.id}`, drawTokens));
  };
  const [factors] = await Promise.all([secondFactorCard(), drawSessions(), drawTokens()]);
  main.replaceChildren(
    h("h1", {}, "My account"),
    h("p", {}, `${me.email} · role ${say("role", me.role)}`),
    factors,
    card("My sessions", sessions),
    card(
      "My API tokens",
      form({
        needs: "support",
        fields: [{ path: "label", label: "Label", required: true, hint: "What the token is for." }],
        submit: "Create token",
        onSubmit: async (values) => {
          const made = await send<IssuedOperatorToken>("POST", "me/tokens", values);
          showToken(issued, made);
          await drawTokens();
          return `Token ${made.prefix}… created.`;
        },
      }),
      issued,
      tokens,
    ),
  );
}

const FILTERS = [
  { name: "customer_name", label: "Customer", type: "text", hint: "Its name; suggestions appear as you type." },
  { name: "operator_email", label: "Operator", type: "email", hint: "Their e-mail." },
  { name: "operation", label: "Operation", type: "text", hint: "Its API name, e.g. updateCustomer." },
  { name: "from", label: `From (${timeZone})`, type: "datetime-local", hint: null },
  { name: "to", label: `Before (${timeZone})`, type: "datetime-local", hint: null },
] as const;

/** Filters by id that a link may carry (an entry of a removed operator or a deleted customer has no name to filter by). */
const ID_FILTERS = ["customer_id", "operator_id"] as const;

/** The audit log with its filters (kept in the URL's query after `#/audit-log?`) and cursor paging. */
export async function auditLogPage(main: HTMLElement): Promise<void> {
  const query = new URLSearchParams(location.hash.split("?")[1] ?? "");
  // Suggestions: customers' names from the server as the operator types, operators' e-mails from the entries shown.
  const customerNames = h("datalist", { id: uid("customers") });
  const operatorEmails = h("datalist", { id: uid("operators") });
  const lists: Partial<Record<(typeof FILTERS)[number]["name"], HTMLElement>> = { customer_name: customerNames, operator_email: operatorEmails };
  const inputs = FILTERS.map((f) => {
    const id = uid("filter");
    const given = query.get(f.name) ?? "";
    const input = h("input", { id, name: f.name, type: f.type, autocomplete: "off", value: f.type === "datetime-local" ? localInput(given) : given });
    const list = lists[f.name];
    if (list) input.setAttribute("list", list.id);
    const hint = f.hint ? h("p", { class: "hint", id: `${id}-hint` }, f.hint) : null;
    if (hint) input.setAttribute("aria-describedby", hint.id);
    return { f, input, wrap: h("div", { class: "field" }, h("label", { for: id }, f.label), input, hint, list ?? null) };
  });
  const customerInput = inputs.find((i) => i.f.name === "customer_name")?.input;
  customerInput?.addEventListener(
    "input",
    debounce(250, () => {
      const q = customerInput.value.trim();
      if (q === "") return;
      // Suggestions only: a failed look-up leaves the list as it was, the field still filters by what is typed.
      void getPage<{ name: string }>(`customers?${new URLSearchParams({ q, limit: "20", sort: "name" })}`).then(
        (page) => customerNames.replaceChildren(...[...new Set(page.data.map((c) => c.name))].map((name) => h("option", { value: name }))),
        () => undefined,
      );
    }),
  );
  // An id filter from a link applies until the form is submitted (the form filters by names).
  let carried = new URLSearchParams(ID_FILTERS.flatMap((name) => (query.get(name) ? [[name, query.get(name) ?? ""]] : [])));
  const result = outcome();
  const body = h("div", {});
  const status = h("p", { role: "status", class: "hint" });
  const cursors: (string | null)[] = [null];
  const filters = () => {
    const params = new URLSearchParams(carried);
    for (const { f, input } of inputs) {
      const value = f.type === "datetime-local" ? fromLocalInput(input.value) : input.value.trim();
      if (value) params.set(f.name, value);
    }
    return params;
  };
  const newer = h("button", { type: "button", class: "secondary", "data-read": "" }, "Newer");
  const older = h("button", { type: "button", class: "secondary", "data-read": "" }, "Older");
  const load = async () => {
    result.clear();
    const params = filters();
    params.set("limit", "50");
    const after = cursors[cursors.length - 1];
    if (after) params.set("after", after);
    try {
      const page = await getPage<AuditEntry>(`audit-log?${params}`);
      const emails = new Set(Array.from(operatorEmails.querySelectorAll("option"), (o) => o.value));
      for (const e of page.data) if (e.actor.email) emails.add(e.actor.email);
      operatorEmails.replaceChildren(...[...emails].sort().map((email) => h("option", { value: email })));
      body.replaceChildren(
        table(
          ["Time", "Who", "Operation", "Status", "Customer", "Change", "Request id"],
          page.data.map((e) => [
            date(e.at),
            h(
              "span",
              {},
              e.actor.operator_id
                ? h(
                    "a",
                    {
                      href: `#/audit-log?${new URLSearchParams(e.actor.email ? { operator_email: e.actor.email } : { operator_id: e.actor.operator_id })}`,
                      title: "Only this operator's entries",
                    },
                    e.actor.email ?? "a removed operator",
                  )
                : null,
              e.actor.operator_id ? h("br", {}) : null,
              h("span", { class: "hint" }, say("actorType", e.actor.type)),
            ),
            h("span", { title: e.operation_id }, operationLabel(e.operation_id)),
            e.count > 1 ? `${e.status} (${e.count} times)` : String(e.status),
            e.customer_id
              ? h(
                  "a",
                  {
                    href: `#/audit-log?${new URLSearchParams(e.customer_name ? { customer_name: e.customer_name } : { customer_id: e.customer_id })}`,
                    title: "Only this customer's entries",
                  },
                  e.customer_name ?? "a deleted customer",
                )
              : "—",
            e.change ? h("details", {}, h("summary", {}, "Show"), h("pre", {}, JSON.stringify(e.change, null, 2))) : "—",
            h("code", {}, e.request_id),
          ]),
          "Audit entries, newest first",
        ),
      );
      status.textContent = `Page ${cursors.length}: ${page.data.length} entries${page.paging?.has_next ? ", more older ones" : ""}.`;
      newer.disabled = cursors.length === 1;
      older.disabled = !page.paging?.has_next;
      older.onclick = () => {
        cursors.push(page.paging?.after ?? null);
        void load();
      };
    } catch (error) {
      result.fail(error);
    }
  };
  newer.onclick = () => {
    cursors.pop();
    void load();
  };
  const carriedNote =
    carried.size > 0
      ? h(
          "p",
          { class: "hint", "data-testid": "carried-filters" },
          `Also only ${[carried.has("operator_id") ? "one operator's" : null, carried.has("customer_id") ? "one customer's" : null].filter(Boolean).join(" and ")} entries (from the link you followed); Filter replaces this.`,
        )
      : null;
  const filterForm = h(
    "form",
    { novalidate: true, "data-read": "" },
    carriedNote,
    h("div", { class: "row" }, ...inputs.map((i) => i.wrap)),
    h("div", { class: "row" }, h("button", { type: "submit" }, "Filter")),
  );
  filterForm.addEventListener("submit", (event) => {
    event.preventDefault();
    cursors.splice(1);
    carried = new URLSearchParams();
    carriedNote?.remove();
    history.replaceState(null, "", `#/audit-log${filters().size > 0 ? `?${filters()}` : ""}`);
    void load();
  });
  main.replaceChildren(
    h("h1", {}, "Audit log"),
    h("p", { class: "hint" }, "Every admin write (API, console, CLI), every break-glass request and every console sign-in; kept 400 days, never changed."),
    card("Filters", filterForm),
    card("Entries", status, body, h("div", { class: "row" }, newer, older), result.element),
  );
  await load();
}
