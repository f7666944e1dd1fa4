import { and, eq } from "drizzle-orm";
import { mailBlocks, mailProviderConfigs, mailTemplates } from "../db/schema";
import type { CoreDeps } from "../core/context";
import type { RunningPostmarkSimulator } from "./provider/simulator/server";
import { randomToken } from "../core/secrets";
import { demoBlocks, demoBrand, defaultFrame } from "./blocks/library";
import { postmarkWebhookUrl } from "./events/receiver";
import { webhookCredentials } from "./events/receiver-credentials";
import { setBlockEnabled } from "./setup/blocks";
import { setDesignRules } from "./setup/design";
import { setFrame } from "./setup/frame";
import { setProviderConfig } from "./setup/provider-config";
import { createTemplate } from "./templates/service";

const [headerLogo, heading, text, , button] = demoBlocks;

/** The demo account's sending domain; the simulator accepts any sender, Postmark would need it verified. */
const DEMO_DOMAIN = "demo.example.com";
export const DEMO_TRANSACTIONAL_TEMPLATE = "Order confirmation";

/** The global demo block library (fixed ids), inserted once. */
async function seedBlockLibrary(deps: CoreDeps): Promise<void> {
  for (const block of demoBlocks) {
    await deps.db
      .insert(mailBlocks)
      .values({
        id: block.id,
        slug: block.slug,
        name: block.name,
        description: block.description,
        mjml: block.mjml,
        params: [...block.params],
        tags: block.tags,
        series: block.series,
        version: block.version,
      })
      .onConflictDoNothing();
  }
}

/**
 * Sets the Demo customer up completely for mail: every library block enabled, design rules, frame,
 * provider configuration (a fresh server token, green readiness) and an admin-origin transactional
 * template with a parameter contract. Runs once, when the customer is created.
 */
export async function seedDemoMail(deps: CoreDeps, customerId: string): Promise<void> {
  const now = deps.clock.now();
  await seedBlockLibrary(deps);
  for (const block of demoBlocks) await setBlockEnabled(deps.db, customerId, block.id, true);
  await setDesignRules(deps.db, customerId, { color_primary: "#0b6e4f", color_link: "#0b6e4f" }, now);
  await setFrame(
    deps.db,
    customerId,
    {
      header_mjml: null,
      newsletter_footer_mjml: defaultFrame.newsletter_footer_mjml,
      transactional_footer_mjml: defaultFrame.transactional_footer_mjml,
      brand: { ...demoBrand, company_name: "Demo GmbH", website_url: `https://www.${DEMO_DOMAIN}` },
    },
    now,
  );
  await setProviderConfig(
    deps.db,
    deps.secrets,
    customerId,
    {
      server_token: `demo-${randomToken(18)}`,
      transactional_stream: "outbound",
      broadcast_stream: "broadcast",
      verified_senders: [],
      verified_domains: [DEMO_DOMAIN],
      default_newsletter_from: { email: `news@${DEMO_DOMAIN}`, name: "Demo GmbH" },
      default_transactional_from: { email: `hello@${DEMO_DOMAIN}`, name: "Demo GmbH" },
    },
    now,
  );
  const [existing] = await deps.db
    .select({ id: mailTemplates.id })
    .from(mailTemplates)
    .where(and(eq(mailTemplates.customerId, customerId), eq(mailTemplates.name, DEMO_TRANSACTIONAL_TEMPLATE)));
  if (!existing && headerLogo && heading && text && button) {
    await createTemplate(deps.db, customerId, "admin", {
      name: DEMO_TRANSACTIONAL_TEMPLATE,
      kind: "transactional",
      subject: "Your order {{order_number}}",
      params: [
        { name: "order_number", label: "Order number", type: "string", required: true, example: "A-10023" },
        { name: "customer_name", label: "Customer name", type: "string", required: false, example: "Jane" },
        { name: "order_url", label: "Order link", type: "url", required: true, example: "https://www.demo.example.com/orders/A-10023" },
      ],
      blocks: [
        { block_id: headerLogo.id, values: {} },
        { block_id: heading.id, values: { title: "Thank you{{#customer_name}}, {{customer_name}}{{/customer_name}}!", subtitle: "" } },
        { block_id: text.id, values: { body: "We have received your order {{order_number}} and will ship it soon." } },
        { block_id: button.id, values: { label: "View your order", url: "{{order_url}}" } },
      ],
      from: null,
    });
  }
}

/** The receiver origin each embedded simulator posts to, once the server listens. */
const receiverOrigins = new WeakMap<object, string>();

/**
 * Embedded mode: the simulator is in memory, so on every start (and whenever an operator changes a
 * provider configuration or rotates webhook credentials) each configured account's server is registered
 * with it, streams included, and, once the receiver listens, with the customer's own webhook URL and
 * credentials, exactly as an operator configures a server's webhook in Postmark.
 */
export async function registerSimulatorServers(
  deps: CoreDeps & { providers: { postmarkSimulator: RunningPostmarkSimulator | null } },
  customerId?: string,
): Promise<number> {
  const simulator = deps.providers.postmarkSimulator?.simulator;
  if (!simulator) return 0;
  const origin = receiverOrigins.get(simulator);
  const rows = await deps.db
    .select()
    .from(mailProviderConfigs)
    .where(customerId ? eq(mailProviderConfigs.customerId, customerId) : undefined);
  let registered = 0;
  for (const row of rows) {
    if (!row.serverTokenSealed) continue;
    const streams = [
      ...(row.transactionalStream ? [{ id: row.transactionalStream, type: "Transactional" as const }] : []),
      ...(row.broadcastStream ? [{ id: row.broadcastStream, type: "Broadcasts" as const }] : []),
    ];
    let token: string;
    try {
      token = deps.secrets.open(row.serverTokenSealed);
    } catch {
      // Sealed under another key: not this deployment's row (a database shared by test runs). Skipped, as a
      // server Postmark would not know either.
      deps.logger.warn("provider configuration sealed under another key; not registered with the simulator", { customer_id: row.customerId });
      continue;
    }
    const credentials = origin ? await webhookCredentials(deps, row.customerId) : null;
    const webhook =
      origin && credentials ? { url: postmarkWebhookUrl(origin, row.customerId), username: credentials.username, password: credentials.password } : undefined;
    simulator.addServer({ token, name: `Customer ${row.customerId}`, streams, webhook });
    registered++;
  }
  return registered;
}

/** Embedded mode: from now on each customer's simulated server posts its events to that customer's receiver URL. */
export async function pointSimulatorAtReceiver(
  deps: CoreDeps & { providers: { postmarkSimulator: RunningPostmarkSimulator | null } },
  origin: string,
): Promise<boolean> {
  const simulator = deps.providers.postmarkSimulator?.simulator;
  if (!simulator) return false;
  receiverOrigins.set(simulator, origin);
  await registerSimulatorServers(deps);
  return true;
}
