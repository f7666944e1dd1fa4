import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, CoreDeps } from "../../core/context";
import { envelope, errorResponses } from "../../core/openapi";
import { defaultDesignTokens, designTokensSchema, type DesignTokenName } from "../../mail/render/tokens";
import { getDesignRules, setDesignRules } from "../../mail/setup/design";
import { CustomerIdParam } from "./schema";
import { requireCustomer } from "./mail-customer";
import { json, MailDesignRules, PutMailDesignRules, security } from "./mail-schema";

/*
 * The spec names sixteen token keys and says further groups (status colours, components) exist without
 * naming them; these are our names. A key missing from the lists still gets documented under "Other".
 */
const namedGroups: [title: string, keys: DesignTokenName[]][] = [
  [
    "Base tokens (the spec's keys)",
    [
      "color_background",
      "color_container",
      "color_text",
      "color_heading",
      "color_primary",
      "color_on_primary",
      "color_link",
      "color_footer_bg",
      "color_footer_text",
      "font_heading",
      "font_body",
      "font_size_base",
      "font_size_h1",
      "space_section",
      "container_width",
      "button_radius",
    ],
  ],
  ["Status colours (notices in transactional mails: order confirmed, payment failed…)", ["color_success", "color_warning", "color_danger", "color_info"]],
  ["Typography", ["color_text_muted", "font_size_h2", "font_size_small", "line_height_base", "heading_letter_spacing", "heading_font_weight"]],
  ["Components (gutters, buttons, dividers, images)", ["space_gutter", "button_padding", "divider_color", "divider_width", "image_radius"]],
];

const allKeys = Object.keys(designTokensSchema.shape) as DesignTokenName[];
const grouped = new Set(namedGroups.flatMap(([, keys]) => keys));
const tokenGroups = [...namedGroups, ["Other", allKeys.filter((key) => !grouped.has(key))] as [string, DesignTokenName[]]].filter(([, keys]) => keys.length > 0);

function tokenLine(key: DesignTokenName): string {
  return `- \`${key}\`: ${String(designTokensSchema.shape[key].meta()?.description ?? "")} Default \`${defaultDesignTokens[key]}\`.`;
}

/** The token reference in the route descriptions: every group, every key, its meaning and default. */
export const designTokenReference = [
  "Value formats: colours are hex (`#rgb` or `#rrggbb`); sizes are px within a range per token (e.g. `font_size_base` 10–24px); fonts are font stacks with single quotes only; `heading_font_weight` is `normal`, `bold` or `100`–`900`; `button_padding` is one to four px values.",
  ...tokenGroups.map(([title, keys]) => `\n**${title}**\n${keys.map(tokenLine).join("\n")}`),
].join("\n");

const tags = ["Mail design rules"];

export function registerMailDesignRoutes(router: OpenAPIHono<AppEnv>, deps: CoreDeps): void {
  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/customers/{id}/mail/design-rules",
      operationId: "getCustomerDesignRules",
      tags,
      summary: "Get a customer's design rules",
      description: `The customer's own overrides and the complete resolved tokens (defaults where no override exists; \`version\` 0 while there are none). The customer reads the same \`tokens\` at \`GET /v1/design-rules\`; blocks read them as \`{{token.<key>}}\`.\n\n${designTokenReference}`,
      security,
      request: { params: CustomerIdParam },
      responses: { 200: { description: "Overrides and resolved tokens.", content: json(envelope(MailDesignRules)) }, ...errorResponses("admin", [401, 404, 422]) },
    }),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      return c.json({ data: await getDesignRules(deps.db, customer.id), request_id: c.get("requestId") }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: "put",
      path: "/v1/customers/{id}/mail/design-rules",
      operationId: "setCustomerDesignRules",
      tags,
      summary: "Set a customer's design rules",
      description: `Replaces the customer's overrides with \`overrides\`, a partial set of tokens resolved over the complete defaults (\`{}\` resets to the defaults). Every bad value is reported at once: 422 with one \`details\` entry per key (\`overrides.color_primary\`), unknown keys included. Bumps \`version\`, which refreshes the customer's tiles.\n\n${designTokenReference}`,
      security,
      request: { params: CustomerIdParam, body: { required: true, content: json(PutMailDesignRules) } },
      responses: { 200: { description: "Overrides and resolved tokens.", content: json(envelope(MailDesignRules)) }, ...errorResponses("admin", [400, 401, 404, 422]) },
    }),
    async (c) => {
      const customer = await requireCustomer(deps.db, c.req.valid("param").id);
      const rules = await setDesignRules(deps.db, customer.id, c.req.valid("json").overrides, deps.clock.now());
      return c.json({ data: rules, request_id: c.get("requestId") }, 200);
    },
  );
}
