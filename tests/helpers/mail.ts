import { eq } from "drizzle-orm";
import { mailProviderConfigs } from "../../lib/db/schema";
import { registerSimulatorServers, seedDemoMail } from "../../lib/mail/seed";
import type { Harness } from "./harness";

/**
 * A customer set up for sending the way an operator would (the same code the Demo customer gets on
 * first start), with its Postmark server registered in the embedded simulator.
 */
export async function readyMailCustomer(h: Harness, name = "Mail customer") {
  const c = await h.customer(name);
  await seedDemoMail(h.deps, c.id);
  const [config] = await h.db.select().from(mailProviderConfigs).where(eq(mailProviderConfigs.customerId, c.id));
  if (!config?.serverTokenSealed) throw new Error("seeded customer has no server token");
  const serverToken = h.deps.secrets.open(config.serverTokenSealed);
  const simulator = h.deps.providers.postmarkSimulator?.simulator;
  if (!simulator) throw new Error("tests run with the embedded Postmark simulator");
  await registerSimulatorServers(h.deps, c.id);
  return { ...c, serverToken, simulator };
}
