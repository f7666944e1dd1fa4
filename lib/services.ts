import { createAdsDeps, type AdsDeps } from "./ads";
import type { AdminDeps } from "./admin/deps";
import { createAssetStorage } from "./blob-storage";
import { createMailDeps, type MailDeps } from "./mail";
import type { RuntimeDeps } from "./providers";

/*
 * Each service's deps come from its one factory (`lib/<service>/deps.ts`), given the runtime's core deps and
 * the process's one blob store (Vercel Blob or DATA_DIR/blobs), shared by both services. The root app
 * (lib/runtime.ts) builds all of them here; a Vercel function (lib/functions/) that serves one service calls
 * that service's factory itself, so its cold start loads nothing of the other.
 */

/** Both services' deps over one asset store, as the root app and the internal API's function build them. */
export function serviceDepsOf(deps: RuntimeDeps): { mailDeps: MailDeps; adsDeps: AdsDeps; assets: ReturnType<typeof createAssetStorage> } {
  const assets = createAssetStorage(deps);
  return { mailDeps: createMailDeps(deps, assets), adsDeps: createAdsDeps(deps, assets.blobs), assets };
}

/**
 * The admin API's deps. Embedded mode: the in-memory Postmark simulator learns a customer's server and
 * webhook at once (its seeding module is imported only then); production has no simulator, so nothing.
 */
export function adminDepsOf(deps: RuntimeDeps, ads: AdsDeps, mail: MailDeps): AdminDeps {
  return {
    ...deps,
    ads,
    mail,
    mailProviderChanged: async (customerId) => {
      if (!deps.providers.postmarkSimulator) return;
      const { registerSimulatorServers } = await import("./mail/seed");
      await registerSimulatorServers(deps, customerId);
    },
  };
}

/** The admin app's deps for a function that serves it without the other apps (api/admin, api/console). */
export function standaloneAdminDeps(deps: RuntimeDeps): AdminDeps {
  const { mailDeps, adsDeps } = serviceDepsOf(deps);
  return adminDepsOf(deps, adsDeps, mailDeps);
}
