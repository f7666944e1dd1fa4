import type { AdsDeps } from "../ads";
import type { CoreDeps } from "../core/context";
import type { MailDeps } from "../mail";

/**
 * What the operator API needs: the core, its token, the mail and ads services' deps (built once by the runtime) and
 * what to do when a customer's Postmark setup changes (embedded mode: the runtime tells the simulator; in
 * production nothing), so no admin route reaches simulator code.
 */
export type AdminDeps = CoreDeps & {
  adminToken: string;
  /** The admin CLI's credential for this server start (written to `DATA_DIR/server.json`, mode 0600); absent on Vercel. */
  cliToken?: string;
  ads: AdsDeps;
  mail: MailDeps;
  mailProviderChanged: MailProviderChanged;
};

/** Called after a customer's Postmark server token, streams or webhook credentials changed. */
type MailProviderChanged = (customerId: string) => Promise<void>;
