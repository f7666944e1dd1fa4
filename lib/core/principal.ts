import type { ServiceName } from "./errors";
import type { auditActorTypes, operatorRoles } from "../db/schema";

/* Who is calling and what they may do, apart from the deps so the API-key code can name them without a cycle. */

export type Scope = "full" | "reporting";

/** How a route touches the account: reads, writes, or sends (mail's access switch guards sends only). */
export type Access = "read" | "write" | "send";

type MailAccess = { sendingBlocked: boolean; mode: "live" | "sandbox"; monthlyLimit: number; maxPerJob: number };
export type AdsAccess = {
  accountState: "active" | "deactivated" | "overdue" | "checkout_open" | "ended";
  stage: "starter" | "growth" | "scale" | "enterprise";
  enterpriseIncludedAds: number | null;
};

/** The authenticated caller: one key, bound to one customer, one service and one scope. */
export type Principal = {
  keyId: string;
  customerId: string;
  customerName: string;
  service: Exclude<ServiceName, "admin">;
  scope: Scope;
  mail: MailAccess | null;
  ads: AdsAccess | null;
};

/**
 * The caller of the admin API: a signed-in operator (console session), an operator's API token, the shared
 * bootstrap token (only until the first owner exists), the same token as break-glass (only with
 * `ADMIN_TOKEN_BREAK_GLASS=true`), or the admin CLI on the server's machine. `role` is what it may do.
 */
export type OperatorActor = {
  type: Exclude<(typeof auditActorTypes)[number], "anonymous">;
  role: (typeof operatorRoles)[number];
  operatorId: string | null;
  tokenId: string | null;
  /** The console session the request came through, if any. */
  sessionId: string | null;
  /**
   * When the session's operator last proved who they are (sign-in or re-authentication); set for console
   * sessions only. Sensitive operations need it recent (`requireRecentAuth`, lib/admin/reauthentication.ts).
   */
  authenticatedAt?: Date;
};
