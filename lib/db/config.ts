import { z } from "zod";

/**
 * The variables that open the database, owned here so `npm run db:migrate` reads them without the service's
 * other settings (and without importing the service's config); `lib/core/config.ts` puts them in its schema.
 */
export const databaseVariables = {
  DATA_DIR: z.string().default(".data").describe("Embedded mode: where PGlite, files and generated secrets live"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional()
    .describe("Postgres URL; unset = embedded PGlite; a neon.tech host (or NEON_LOCAL_PROXY set) uses the Neon driver, any other uses pg"),
  NEON_LOCAL_PROXY: z
    .string()
    .regex(/^(127\.0\.0\.1|localhost|\[::1\]):\d{1,5}$/, "must be a loopback host:port, e.g. 127.0.0.1:4444")
    .optional()
    .describe(
      "TEST ONLY: host:port of the local WebSocket proxy (lib/db/neon-local-proxy.ts); when set, DATABASE_URL is opened with the Neon driver through it, as CI does",
    ),
};

/** What opening the database needs, and nothing else: `npm run db:migrate` runs without the HTTP settings. */
const databaseConfigSchema = z.object(databaseVariables);

export type DatabaseConfig = z.infer<typeof databaseConfigSchema>;

export class ConfigError extends Error {}

export function loadDatabaseConfig(env: Record<string, string | undefined> = process.env): DatabaseConfig {
  return parseEnvironment(databaseConfigSchema, env);
}

/**
 * Parses the environment once; a bad value names the variable instead of failing later with a stack trace.
 * On Vercel (`VERCEL` set) any `TEST ONLY:` variable of the schema is an error, whatever its value.
 */
export function parseEnvironment<S extends z.ZodObject>(schema: S, env: Record<string, string | undefined>): z.infer<S> {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  if (cleaned.VERCEL) {
    const present = testOnlyNames(schema).filter((name) => name in cleaned);
    if (present.length > 0) throw new ConfigError(`Test-only variables are not allowed on Vercel: ${present.join(", ")}`);
  }
  const result = schema.safeParse(cleaned);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid environment:\n${lines.join("\n")}`);
  }
  return result.data;
}

/** The variables described `TEST ONLY:`: they loosen a production guard, so a Vercel deployment refuses them. */
export function testOnlyNames(schema: z.ZodObject): string[] {
  return Object.entries(schema.shape)
    .filter(([, variable]) => (variable as z.ZodType).description?.startsWith("TEST ONLY:"))
    .map(([name]) => name);
}
