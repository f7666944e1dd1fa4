import { and, eq, isNull } from "drizzle-orm";
import * as oidc from "openid-client";
import type { Config } from "../../core/config";
import type { Database } from "../../db/client";
import { operators } from "../../db/schema";
import type { OperatorRole, OperatorView } from "./accounts";

/**
 * Single sign-on through OpenID Connect with `openid-client` (a certified relying party): the authorization
 * code flow with PKCE (S256), `state` and `nonce`. Every check of the provider's answer (state, the code
 * exchange, the ID token's signature, `iss`, `aud`, `azp`, `exp`, `iat`, `nonce`) is the library's; this module
 * only decides who is admitted and with which role. The provider's metadata is discovered once per process and
 * discovered again after a failure (a provider that rotated its keys or was briefly down).
 */
export type SsoSettings = {
  issuer: URL;
  clientId: string;
  clientSecret: string;
  tokenAuthMethod: "client_secret_basic" | "client_secret_post";
  providerName: string;
  scopes: string;
  redirectUri: string;
  allowedDomains: string[];
  groupsClaim: string;
  roleMapping: Map<string, OperatorRole>;
  defaultRole: OperatorRole | null;
};

const RANK: Record<OperatorRole, number> = { support: 0, admin: 1, owner: 2 };

/** The settings from the environment; null while `OIDC_ISSUER_URL` is unset (single sign-on off). */
export function ssoSettingsOf(config: Config, publicBaseUrl: string): SsoSettings | null {
  if (!config.OIDC_ISSUER_URL || !config.OIDC_CLIENT_ID || !config.OIDC_CLIENT_SECRET) return null;
  const roleMapping = new Map<string, OperatorRole>();
  for (const rule of (config.OIDC_ROLE_MAPPING ?? "").split(",")) {
    const at = rule.lastIndexOf("=");
    if (at > 0) roleMapping.set(rule.slice(0, at).trim(), rule.slice(at + 1).trim() as OperatorRole);
  }
  return {
    issuer: new URL(config.OIDC_ISSUER_URL),
    clientId: config.OIDC_CLIENT_ID,
    clientSecret: config.OIDC_CLIENT_SECRET,
    tokenAuthMethod: config.OIDC_TOKEN_AUTH_METHOD,
    providerName: config.OIDC_PROVIDER_NAME,
    scopes: config.OIDC_SCOPES,
    redirectUri: config.OIDC_REDIRECT_URI ?? new URL("/console/sso/callback", publicBaseUrl).href,
    allowedDomains: (config.OIDC_ALLOWED_DOMAINS ?? "")
      .split(",")
      .map((d) => d.trim().toLowerCase().replace(/^@/, ""))
      .filter(Boolean),
    groupsClaim: config.OIDC_GROUPS_CLAIM,
    roleMapping,
    defaultRole: config.OIDC_DEFAULT_ROLE ?? null,
  };
}

/** What a sign-in keeps between the redirect to the provider and its answer (server-side, never in the browser). */
type SsoChecks = { state: string; nonce: string; verifier: string };

export type SsoClient = {
  settings: SsoSettings;
  /** The provider's authorization URL for a new sign-in, and the checks its answer must pass. */
  start(): Promise<{ url: string; checks: SsoChecks }>;
  /** Exchanges the code of the provider's answer (the callback's query) and returns the verified ID token claims. */
  finish(callbackQuery: string, checks: SsoChecks): Promise<Record<string, unknown>>;
};

export function createSsoClient(settings: SsoSettings): SsoClient {
  let discovered: Promise<oidc.Configuration> | null = null;
  const configuration = () => {
    discovered ??= oidc
      .discovery(settings.issuer, settings.clientId, undefined, clientAuthentication(settings), {
        // Plain http only to a provider on this machine (tests, a local provider); anywhere else https.
        execute: isLoopback(settings.issuer) ? [oidc.allowInsecureRequests] : [],
      })
      .catch((error: unknown) => {
        discovered = null;
        throw error;
      });
    return discovered;
  };
  return {
    settings,
    async start() {
      const config = await configuration();
      const checks = { state: oidc.randomState(), nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier() };
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: settings.redirectUri,
        scope: settings.scopes,
        code_challenge: await oidc.calculatePKCECodeChallenge(checks.verifier),
        code_challenge_method: "S256",
        state: checks.state,
        nonce: checks.nonce,
      });
      return { url: url.href, checks };
    },
    async finish(callbackQuery, checks) {
      const config = await configuration();
      // The redirect URI sent with the code is the registered one, whatever host or proxy the answer came through.
      const current = new URL(settings.redirectUri);
      current.search = callbackQuery;
      const tokens = await oidc.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: checks.verifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) throw new Error("the provider's answer carried no ID token");
      return { ...claims };
    },
  };
}

/** The client secret sent the way the application is registered at the provider (a provider may refuse the other way). */
function clientAuthentication(settings: SsoSettings): oidc.ClientAuth {
  return settings.tokenAuthMethod === "client_secret_post" ? oidc.ClientSecretPost(settings.clientSecret) : oidc.ClientSecretBasic(settings.clientSecret);
}

function isLoopback(url: URL): boolean {
  return url.hostname === "localhost" || url.hostname === "127.0.0.1" || url.hostname === "[::1]";
}

export type SsoIdentity = { issuer: string; subject: string; email: string; groups: string[] };
export type Admission = { admitted: true; identity: SsoIdentity; role: OperatorRole } | { admitted: false; identity: SsoIdentity | null; reason: string };

/**
 * Who the ID token names and whether a rule admits them. The e-mail is the `email` claim, or Entra's
 * `preferred_username` when that is an address and `email` is absent; an address the provider marks
 * unverified (`email_verified: false`) is refused. With allowed domains, the e-mail's domain must be one of
 * them. The role is the highest one a group rule gives, else the default role; no role means refused.
 */
export function admit(claims: Record<string, unknown>, settings: SsoSettings): Admission {
  const text = (name: string) => (typeof claims[name] === "string" ? (claims[name] as string) : "");
  const username = text("preferred_username");
  const email = (text("email") || (/^[^@\s]+@[^@\s]+$/.test(username) ? username : "")).trim().toLowerCase();
  const raw = claims[settings.groupsClaim];
  const groups = (Array.isArray(raw) ? raw : typeof raw === "string" ? [raw] : []).filter((g): g is string => typeof g === "string");
  const identity = email ? { issuer: text("iss"), subject: text("sub"), email, groups } : null;
  if (!identity?.subject) return { admitted: false, identity, reason: "The identity provider sent no e-mail address for this user." };
  if (claims.email_verified === false) return { admitted: false, identity, reason: "The identity provider has not verified this user's e-mail address." };
  const domain = email.slice(email.lastIndexOf("@") + 1);
  if (settings.allowedDomains.length > 0 && !settings.allowedDomains.includes(domain)) {
    return { admitted: false, identity, reason: `E-mail addresses of ${domain} are not admitted to this console.` };
  }
  const mapped = groups.map((g) => settings.roleMapping.get(g)).filter((r): r is OperatorRole => r !== undefined);
  const role = mapped.sort((a, b) => RANK[b] - RANK[a])[0] ?? settings.defaultRole;
  if (!role) return { admitted: false, identity, reason: "None of this user's groups is given a role in this console." };
  return { admitted: true, identity, role };
}

/**
 * The operator account of an admitted identity: the one linked to its issuer and subject; else the account of
 * the same e-mail, which gets linked (the provider vouches for the address); else a new account with the
 * admitted role and no password. An existing account keeps its role (owners change roles in the console).
 * A disabled account is refused.
 */
const DISABLED = "This operator account is disabled.";

export async function operatorForIdentity(
  db: Database,
  identity: SsoIdentity,
  role: OperatorRole,
): Promise<{ operator: OperatorView; created: boolean } | { refused: string }> {
  const view = (row: typeof operators.$inferSelect): OperatorView => ({
    id: row.id,
    email: row.email,
    role: row.role,
    created_at: row.createdAt.toISOString(),
    disabled_at: row.disabledAt?.toISOString() ?? null,
  });
  const [linked] = await db
    .select()
    .from(operators)
    .where(and(eq(operators.ssoIssuer, identity.issuer), eq(operators.ssoSubject, identity.subject)));
  if (linked) return linked.disabledAt ? { refused: DISABLED } : { operator: view(linked), created: false };
  const [sameEmail] = await db
    .update(operators)
    .set({ ssoIssuer: identity.issuer, ssoSubject: identity.subject })
    .where(and(eq(operators.email, identity.email), isNull(operators.ssoSubject)))
    .returning();
  if (sameEmail) return sameEmail.disabledAt ? { refused: DISABLED } : { operator: view(sameEmail), created: false };
  const [made] = await db
    .insert(operators)
    .values({ email: identity.email, role, passwordHash: null, ssoIssuer: identity.issuer, ssoSubject: identity.subject })
    .onConflictDoNothing()
    .returning();
  // The e-mail is taken by an account linked to another subject of the provider: not this person's account.
  if (!made) return { refused: "This e-mail belongs to an operator account linked to another identity of the provider." };
  return { operator: view(made), created: true };
}
