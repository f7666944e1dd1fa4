import { z } from "zod";

/**
 * The whole environment in one schema. Every variable is optional: the defaults are the embedded mode
 * (`npm start` with no accounts and no network). Production sets the Upstash/QStash/Blob/Neon variables.
 */
const optionalUrl = z.url().optional();
const flag = z
  .enum(["true", "false", "1", "0"])
  .optional()
  .transform((v) => v === "true" || v === "1");

export const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000).describe("HTTP port of the local server"),
  HOST: z.string().default("127.0.0.1").describe("Interface the local server binds to"),
  PUBLIC_BASE_URL: optionalUrl.describe("Public origin used in links (asset URLs, upload URLs); default http://localhost:PORT"),
  DATA_DIR: z.string().default(".data").describe("Embedded mode: where PGlite, files and generated secrets live"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional()
    .describe("Postgres URL; unset = embedded PGlite; a neon.tech host (or NEON_LOCAL_PROXY set) uses the Neon driver, any other uses pg"),
  ADMIN_TOKEN: z.string().min(24, "must be at least 24 characters").optional().describe("Operator token for /admin/v1"),
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
    .min(0)
    .max(86_400)
    .default(120)
    .describe(
      "Seconds after a provider call whose outcome is in doubt before what Postmark's search does not show is sent again (its search index lags behind the send)",
    ),
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
  NEON_LOCAL_PROXY: z
    .string()
    .regex(/^(127\.0\.0\.1|localhost|\[::1\]):\d{1,5}$/, "must be a loopback host:port, e.g. 127.0.0.1:4444")
    .optional()
    .describe(
      "TEST ONLY: host:port of the local WebSocket proxy (lib/db/neon-local-proxy.ts); when set, DATABASE_URL is opened with the Neon driver through it, as CI does",
    ),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info").describe("Log verbosity"),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl.describe(
    "OpenTelemetry collector (OTLP over HTTP); set = tracing on, spans exported in batches (the SDK reads the other standard OTEL_* variables itself)",
  ),
  OTEL_TRACES_EXPORTER: z
    .enum(["otlp", "console", "none"])
    .optional()
    .describe("`console` prints every span to stdout (local debugging), `none` turns tracing off whatever else is set; unset = OTLP when an endpoint is set"),
  OTEL_SERVICE_NAME: z.string().max(100).optional().describe("Service name on every span; default mail-ads-middleware"),
});

export type Config = z.infer<typeof configSchema>;

/** The variables described `TEST ONLY:`: they loosen a production guard, so a Vercel deployment refuses them. */
export const testOnlyVariables = Object.entries(configSchema.shape)
  .filter(([, schema]) => schema.description?.startsWith("TEST ONLY:"))
  .map(([name]) => name);

export class ConfigError extends Error {}

/**
 * Parses the environment once; a bad value names the variable instead of failing later with a stack trace.
 * On Vercel (`VERCEL` set) any `TEST ONLY:` variable is an error, whatever its value.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  return parseEnvironment(configSchema, env);
}

/** What opening the database needs, and nothing else: `npm run db:migrate` runs without the HTTP settings. */
export const databaseConfigSchema = configSchema.pick({ DATA_DIR: true, DATABASE_URL: true, NEON_LOCAL_PROXY: true });

export type DatabaseConfig = z.infer<typeof databaseConfigSchema>;

export function loadDatabaseConfig(env: Record<string, string | undefined> = process.env): DatabaseConfig {
  return parseEnvironment(databaseConfigSchema, env);
}

function parseEnvironment<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): z.infer<S> {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  if (cleaned.VERCEL) {
    const present = testOnlyVariables.filter((name) => name in cleaned);
    if (present.length > 0) throw new ConfigError(`Test-only variables are not allowed on Vercel: ${present.join(", ")}`);
  }
  const result = schema.safeParse(cleaned);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid environment:\n${lines.join("\n")}`);
  }
  return result.data;
}

/** Every variable with its description and default, for the README and `npm run admin -- env`. */
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
