import { createAdsDeps, type AdsDeps } from "./ads";
import type { AdminDeps } from "./admin/deps";
import { createAssetStorage } from "./blob-storage";
import { createMailDeps, type MailDeps } from "./mail";
import type { RuntimeDeps } from "./providers";

/*
 * Each service's deps, built from the runtime's core deps: the one blob store of the process (Vercel Blob or
 * DATA_DIR/blobs) shared by both services. The root app (lib/runtime.ts) builds all of them; a Vercel
 * function (lib/functions/) only what its own app needs, so its cold start loads nothing else.
 */

export function createAssets(deps: RuntimeDeps) {
  return createAssetStorage(deps);
}

export function mailDepsOf(deps: RuntimeDeps, assets = createAssets(deps)): MailDeps {
  return createMailDeps({ ...deps, assets });
}

export function adsDepsOf(deps: RuntimeDeps, assets = createAssets(deps)): AdsDeps {
  return createAdsDeps({ ...deps, blobs: assets.blobs });
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
  const assets = createAssets(deps);
  return adminDepsOf(deps, adsDepsOf(deps, assets), mailDepsOf(deps, assets));
}
