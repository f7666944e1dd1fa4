import { z } from "zod";
import { databaseVariables, parseEnvironment, testOnlyNames } from "../db/config";
import { operatorRoles } from "../db/schema/operators";

export { ConfigError } from "../db/config";

/**
 * The whole environment in one schema. Every variable is optional: the defaults are the embedded mode
 * (`npm start` with no accounts and no network). Production sets the Upstash/QStash/Blob/Neon variables.
 */
const optionalUrl = z.url().optional();
const flag = z
  .enum(["true", "false", "1", "0"])
  .optional()
  .transform((v) => v === "true" || v === "1");

const configSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(3000).describe("HTTP port of the local server"),
    HOST: z.string().default("127.0.0.1").describe("Interface the local server binds to"),
    PUBLIC_BASE_URL: optionalUrl.describe("Public origin used in links (asset URLs, upload URLs); default http://localhost:PORT"),
    DATA_DIR: databaseVariables.DATA_DIR,
    DATABASE_URL: databaseVariables.DATABASE_URL,
    ADMIN_TOKEN: z
      .string()
      .min(24, "must be at least 24 characters")
      .optional()
      .describe("Shared bootstrap token for /admin/v1 and the console: works only until the first owner account exists (then see ADMIN_TOKEN_BREAK_GLASS)"),
    ADMIN_TOKEN_BREAK_GLASS: flag.describe(
      "Emergency only: ADMIN_TOKEN keeps working (as owner) after owner accounts exist; every request made with it is audited as break_glass",
    ),
    OIDC_ISSUER_URL: optionalUrl.describe(
      'Single sign-on for the console (OpenID Connect): the identity provider\'s issuer URL (Google: https://accounts.google.com; Entra: https://login.microsoftonline.com/<tenant id>/v2.0; Okta: https://<org>.okta.com or its authorization server). Set = the sign-in page shows "Sign in with <OIDC_PROVIDER_NAME>"; needs OIDC_CLIENT_ID and OIDC_CLIENT_SECRET',
    ),
    OIDC_CLIENT_ID: z.string().min(1).optional().describe("Single sign-on: the client (application) id registered at the identity provider"),
    OIDC_CLIENT_SECRET: z.string().min(1).optional().describe("Single sign-on: the client secret registered at the identity provider (never logged or shown)"),
    OIDC_TOKEN_AUTH_METHOD: z
      .enum(["client_secret_basic", "client_secret_post"])
      .default("client_secret_basic")
      .describe(
        "Single sign-on: how the client secret is sent to the provider's token endpoint, as registered there (`client_secret_basic`: the OAuth default, Okta's default for a new app, taken by Google and Entra; `client_secret_post`: in the form body)",
      ),
    OIDC_PROVIDER_NAME: z
      .string()
      .min(1)
      .max(60)
      .default("single sign-on")
      .describe('Single sign-on: the provider\'s name on the sign-in button ("Sign in with Okta")'),
    OIDC_SCOPES: z
      .string()
      .regex(/(^|\s)openid(\s|$)/, "must include openid")
      .default("openid email profile")
      .describe("Single sign-on: the scopes asked for, space-separated; add `groups` for Okta's groups claim"),
    OIDC_ALLOWED_DOMAINS: z
      .string()
      .optional()
      .describe(
        "Single sign-on: comma-separated e-mail domains admitted (`example.com,example.org`); a user of another domain is refused. Unset = any domain, so long as a group rule (OIDC_ROLE_MAPPING) admits the user",
      ),
    OIDC_GROUPS_CLAIM: z
      .string()
      .min(1)
      .default("groups")
      .describe("Single sign-on: the ID token claim that lists the user's groups or roles (Entra: `groups` or `roles`; Okta: `groups`)"),
    OIDC_ROLE_MAPPING: z
      .string()
      .regex(/^\s*[^=,]+=(owner|admin|support)\s*(,\s*[^=,]+=(owner|admin|support)\s*)*$/, "must be `group=role,group=role` with roles owner, admin or support")
      .optional()
      .describe(
        "Single sign-on: group-to-role rules, `group=role` comma-separated (`ops-owners=owner,ops-team=admin,helpdesk=support`); a user in several groups gets the highest role. A user in none of them gets OIDC_DEFAULT_ROLE, or is refused without one",
      ),
    OIDC_DEFAULT_ROLE: z
      .enum(operatorRoles)
      .optional()
      .describe("Single sign-on: the role of an admitted user whom no group rule names (the allowed domains admit them); unset = such a user is refused"),
    OIDC_REDIRECT_URI: optionalUrl.describe(
      "Single sign-on: the redirect URI registered at the identity provider; default <PUBLIC_BASE_URL>/console/sso/callback",
    ),
    ENCRYPTION_KEY: z
      .string()
      .regex(/^[A-Za-z0-9+/]{43}=$/, "must be 32 bytes, base64-encoded")
      .optional()
      .describe("AES-256-GCM key for secrets at rest (base64, 32 bytes); embedded: generated into DATA_DIR"),
    UPSTASH_REDIS_REST_URL: optionalUrl.describe("Upstash Redis for rate limits and idempotency records"),
    UPSTASH_REDIS_REST_TOKEN: z.string().optional().describe("Upstash Redis REST token"),
    RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(1000).describe("Requests per minute per customer"),
    AUTH_FAILURES_PER_MINUTE: z.coerce
      .number()
      .int()
      .positive()
      .max(1_000_000)
      .default(60)
      .describe("Requests with a missing or invalid API key or operator token per minute per client address before 429"),
    CONSOLE_SESSION_IDLE_MINUTES: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 60)
      .default(30)
      .describe("A console session with no request for this many minutes ends (1–1,440; default 30)"),
    CONSOLE_SESSION_MAX_HOURS: z.coerce
      .number()
      .int()
      .min(1)
      .max(7 * 24)
      .default(12)
      .describe("A console session ends this many hours after sign-in, however active (1–168; default 12)"),
    CONSOLE_REAUTH_MINUTES: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 60)
      .default(10)
      .describe(
        "Revealing a secret, creating an owner or changing a provider credential in the console needs a sign-in or re-authentication at most this many minutes old (1–1,440; default 10)",
      ),
    RATE_LIMIT_TIMEOUT_MS: z.coerce.number().int().positive().default(300).describe("Fail-open timeout of the rate limiter"),
    QSTASH_TOKEN: z.string().optional().describe("QStash token; unset = in-process queue"),
    QSTASH_URL: optionalUrl.describe("QStash API URL override"),
    QSTASH_CURRENT_SIGNING_KEY: z.string().optional().describe("QStash signature verification key (current)"),
    QSTASH_NEXT_SIGNING_KEY: z.string().optional().describe("QStash signature verification key (next)"),
    BLOB_READ_WRITE_TOKEN: z
      .string()
      .regex(/^vercel_blob_rw_[A-Za-z0-9]+_\S+$/, "must look like vercel_blob_rw_<storeId>_<secret>")
      .optional()
      .describe("Vercel Blob token; unset = local files under DATA_DIR"),
    VERCEL_BLOB_API_URL: optionalUrl.describe(
      "Vercel Blob API base the @vercel/blob SDK and our upload URLs use; unset = https://vercel.com/api/blob (tests point it at a local fake)",
    ),
    POSTMARK_API_URL: optionalUrl.describe("Postmark API origin; unset = the embedded Postmark simulator"),
    POSTMARK_WEBHOOK_ALLOWED_IPS: z.string().optional().describe("Optional comma-separated IP allow-list for the Postmark receiver"),
    GRAPH_API_URL: optionalUrl.describe("Graph API base incl. version; unset = the embedded platform simulator"),
    GRAPH_APP_SECRET: z.string().optional().describe("Meta app secret (webhook signature of /api/platform/webhook)"),
    GRAPH_WEBHOOK_VERIFY_TOKEN: z
      .string()
      .min(16)
      .optional()
      .describe("Verify token of the platform webhook subscription (GET /api/platform/webhook); unset = derived from ENCRYPTION_KEY"),
    CRON_SECRET: z.string().optional().describe("Bearer secret Vercel Cron sends to /api/cron/*"),
    BILLING_URL: optionalUrl.describe("Where the daily accepted-mail count is posted; unset = not posted"),
    BILLING_SECRET: z.string().optional().describe("HMAC secret for billing posts"),
    SEND_RECONCILE_GRACE_SECONDS: z.coerce
      .number()
      .int()
      .min(30, "must be at least 30 (Postmark may still take in a call for a while after its connection closed)")
      .max(86_400)
      .default(120)
      .describe(
        "Seconds after a provider call in doubt ended within which Postmark may still have taken it in: a message missing from Postmark's search is sent again only once Postmark has answered promptly for at least this long (and for longer than the call can have been held by a stall) and the search shows a message received after that (30–86,400; docs/adr/0061)",
      ),
    SEND_RECONCILE_LIMIT_HOURS: z.coerce
      .number()
      .int()
      .min(1, "must be at least 1")
      .max(24 * 30)
      .default(24)
      .describe(
        "Hours a message may stay in doubt (Postmark's search never shown current past its call) before it ends `unknown` for good, counted on its job",
      ),
    SEND_RECONCILE_TEST_GRACE_MS: z.coerce
      .number()
      .int()
      .min(100)
      .max(86_400_000)
      .optional()
      .describe("TEST ONLY: replaces SEND_RECONCILE_GRACE_SECONDS below its 30 s floor (milliseconds), so crash tests run in seconds"),
    ADS_INSIGHTS_BACKFILL_ON_CONNECT: z
      .enum(["true", "false", "1", "0"])
      .default("true")
      .transform((v) => v === "true" || v === "1")
      .describe(
        "Queue an ad account's insights backfill (up to 90 days) as soon as its onboarding is verified, instead of at the next nightly run; the test harness turns it off so tests drive snapshots explicitly",
      ),
    ALLOW_LOOPBACK_OUTBOUND: flag.describe("TEST ONLY: lets the SSRF-safe client reach loopback"),
    OUTBOUND_TRUSTED_CA: z
      .string()
      .includes("-----BEGIN CERTIFICATE-----", { message: "must be a PEM certificate" })
      .optional()
      .describe("TEST ONLY: one extra CA (PEM text) the SSRF-safe client trusts, for a self-signed local image server"),
    NEON_LOCAL_PROXY: databaseVariables.NEON_LOCAL_PROXY,
    LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info").describe("Log verbosity"),
    OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl.describe(
      "OpenTelemetry collector (OTLP over HTTP); set = tracing on, spans exported in batches (the SDK reads the other standard OTEL_* variables itself)",
    ),
    OTEL_TRACES_EXPORTER: z
      .enum(["otlp", "console", "none"])
      .optional()
      .describe("`console` prints every span to stdout (local debugging), `none` turns tracing off whatever else is set; unset = OTLP when an endpoint is set"),
    OTEL_SERVICE_NAME: z.string().max(100).optional().describe("Service name on every span; default mail-ads-middleware"),
  })
  .superRefine((config, issues) => {
    // Single sign-on half set up would show a button that cannot work, or admit nobody: refused at start.
    if (!config.OIDC_ISSUER_URL) return;
    for (const name of ["OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET"] as const) {
      if (!config[name]) issues.addIssue({ code: "custom", path: [name], message: "must be set when OIDC_ISSUER_URL is" });
    }
    if (!config.OIDC_ROLE_MAPPING && !config.OIDC_DEFAULT_ROLE) {
      issues.addIssue({
        code: "custom",
        path: ["OIDC_DEFAULT_ROLE"],
        message: "set it or OIDC_ROLE_MAPPING when OIDC_ISSUER_URL is: no rule would admit anyone",
      });
    }
  });

export type Config = z.infer<typeof configSchema>;

/** The variables described `TEST ONLY:`: they loosen a production guard, so a Vercel deployment refuses them. */
export const testOnlyVariables = testOnlyNames(configSchema);

/**
 * Parses the environment once; a bad value names the variable instead of failing later with a stack trace.
 * On Vercel (`VERCEL` set) any `TEST ONLY:` variable is an error, whatever its value.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  return parseEnvironment(configSchema, env);
}

/** Every variable with its description and default, for docs/deploy/environment.md and `npm run admin -- env`. */
export function describeEnvironment(): { name: string; description: string; default: string | null }[] {
  return Object.entries(configSchema.shape).map(([name, schema]) => {
    const parsed = schema.safeParse(undefined);
    return {
      name,
      description: schema.description ?? "",
      default: parsed.success && parsed.data !== undefined && parsed.data !== false ? String(parsed.data) : null,
    };
  });
}
