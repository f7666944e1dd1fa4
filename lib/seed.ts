import { eq } from "drizzle-orm";
import { issueApiKey } from "./core/keys";
import type { AdsDeps } from "./ads";
import type { CoreDeps } from "./core/context";
import { customers } from "./db/schema";
import { createCustomer } from "./admin/customers";
import { seedDemoMail } from "./mail/seed";
import { seedDemoAds } from "./ads/seed";
import type { Providers } from "./providers";

const DEMO_CUSTOMER_NAME = "Demo";

export type DemoKeys = { mailFull: string; mailReporting: string; adsFull: string; adsReporting: string };

/**
 * First start: the `Demo` customer with one full and one reporting key per service. The keys exist only
 * in this return value (they are stored hashed), so the caller prints them once. Later starts find the
 * customer and create nothing (only the in-memory simulators learn the demo's accounts again).
 * `media: "deferred"` (npm start) returns the demo's rendered media as `media` to run once listening.
 */
export async function seedDemo(
  deps: CoreDeps & { providers: Providers },
  ads: AdsDeps,
  options: { media?: "now" | "deferred" } = {},
): Promise<{ customerId: string; keys: DemoKeys | null; media: () => Promise<void> }> {
  const [existing] = await deps.db.select({ id: customers.id }).from(customers).where(eq(customers.name, DEMO_CUSTOMER_NAME)).limit(1);
  if (existing) {
    // The embedded simulators forget everything on exit: the demo's ad account is registered on every start.
    const media = await seedDemoAds(ads, deps.providers.graphSimulator, existing.id, options);
    return { customerId: existing.id, keys: null, media };
  }
  const demo = await createCustomer(deps.db, { name: DEMO_CUSTOMER_NAME, mail: { mode: "live" } }, deps.clock.now());
  await seedDemoMail(deps, demo.id);
  const media = await seedDemoAds(ads, deps.providers.graphSimulator, demo.id, options);
  const key = async (service: "mail" | "ads", scope: "full" | "reporting") => (await issueApiKey(deps.db, { customerId: demo.id, service, scope })).key;
  return {
    customerId: demo.id,
    media,
    keys: {
      mailFull: await key("mail", "full"),
      mailReporting: await key("mail", "reporting"),
      adsFull: await key("ads", "full"),
      adsReporting: await key("ads", "reporting"),
    },
  };
}

/** The Demo's ad account in a freshly started embedded simulator (a no-op without the Demo or the simulator). */
export async function restoreDemoAccounts(deps: CoreDeps & { providers: Providers }, ads: AdsDeps): Promise<void> {
  const [existing] = await deps.db.select({ id: customers.id }).from(customers).where(eq(customers.name, DEMO_CUSTOMER_NAME)).limit(1);
  if (existing) await seedDemoAds(ads, deps.providers.graphSimulator, existing.id);
}
