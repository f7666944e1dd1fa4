import { expect, test } from "vitest";
import { bootRuntime, PRODUCTION_REQUIRED_ENV } from "../../lib/bootstrap";
import { generateEncryptionKey, randomToken } from "../../lib/core/secrets";

/*
 * On Vercel no embedded adapter may stand in for a production one: start-up refuses, naming every missing
 * variable, before it opens anything. (The production smoke test shows the other side: with all of them set,
 * the built functions use only the production adapters.)
 */

const core = {
  VERCEL: "1",
  LOG_LEVEL: "silent",
  DATABASE_URL: "postgres://nobody@127.0.0.1:1/none",
  ADMIN_TOKEN: randomToken(32),
  ENCRYPTION_KEY: generateEncryptionKey(),
};

test("with only the database and the secrets, start-up on Vercel names every production adapter's variables", async () => {
  await expect(bootRuntime(core)).rejects.toThrow(
    "Missing environment for production: PUBLIC_BASE_URL, CRON_SECRET, UPSTASH_REDIS_REST_URL, UPSTASH_REDIS_REST_TOKEN, QSTASH_TOKEN, QSTASH_CURRENT_SIGNING_KEY, QSTASH_NEXT_SIGNING_KEY, BLOB_READ_WRITE_TOKEN",
  );
});

test.each(PRODUCTION_REQUIRED_ENV.filter((name) => !(name in core)))("without %s alone, start-up on Vercel refuses and names it", async (name) => {
  const full: Record<string, string> = {
    ...core,
    PUBLIC_BASE_URL: "https://mail.example.com",
    CRON_SECRET: randomToken(24),
    UPSTASH_REDIS_REST_URL: "https://example.upstash.io",
    UPSTASH_REDIS_REST_TOKEN: "token",
    QSTASH_TOKEN: "token",
    QSTASH_CURRENT_SIGNING_KEY: "sig_current",
    QSTASH_NEXT_SIGNING_KEY: "sig_next",
    BLOB_READ_WRITE_TOKEN: "vercel_blob_rw_Store1_secret",
  };
  delete full[name];
  await expect(bootRuntime(full)).rejects.toThrow(`Missing environment for production: ${name}`);
});
