import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { bootRuntime } from "../../lib/bootstrap";
import { ConfigError } from "../../lib/core/config";
import { seedDemo } from "../../lib/seed";

/** Embedded start-up as `npm start` does it: PGlite under DATA_DIR, generated secrets, demo seed. */
test("first start seeds the Demo customer and prints its keys once; a restart keeps all data and the operator token", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "boot-"));
  const env = { DATA_DIR: dataDir, LOG_LEVEL: "silent" };

  const first = await bootRuntime(env);
  const demo = await seedDemo(first.deps);
  expect(demo.keys?.mailFull).toMatch(/^mk_live_/);
  expect(demo.keys?.adsReporting).toMatch(/^ak_live_/);
  const token = readFileSync(join(dataDir, "admin-token"), "utf8").trim();
  expect(statSync(join(dataDir, "admin-token")).mode & 0o777).toBe(0o600);
  expect(statSync(join(dataDir, "encryption-key")).mode & 0o777).toBe(0o600);
  const health = await first.app.root.request("/mail/v1/health", { headers: { authorization: `Bearer ${demo.keys?.mailFull}` } });
  expect(health.status).toBe(200);
  await first.close();

  const second = await bootRuntime(env);
  try {
    const again = await seedDemo(second.deps);
    expect(again.keys).toBeNull();
    expect(again.customerId).toBe(demo.customerId);
    expect(second.deps.adminToken).toBe(token);
    const stillValid = await second.app.root.request("/mail/v1/health", { headers: { authorization: `Bearer ${demo.keys?.mailFull}` } });
    expect(stillValid.status).toBe(200);
    const blocks = await second.app.root.request("/mail/v1/blocks", { headers: { authorization: `Bearer ${demo.keys?.mailReporting}` } });
    expect(((await blocks.json()) as { data: unknown[] }).data.length).toBeGreaterThan(5);
  } finally {
    await second.close();
  }
}, 60_000);

test("on Vercel, start-up refuses to generate secrets or use a local database", async () => {
  await expect(bootRuntime({ VERCEL: "1", LOG_LEVEL: "silent" })).rejects.toThrow(/DATABASE_URL, ADMIN_TOKEN, ENCRYPTION_KEY/);
  await expect(bootRuntime({ PORT: "not-a-port" })).rejects.toThrow(ConfigError);
});

test("on Vercel, start-up refuses without the Postmark webhook credentials (embedded mode generates them) and names what is missing", async () => {
  // Everything else production needs; the database URL is never opened because the check comes first.
  const production = {
    VERCEL: "1",
    LOG_LEVEL: "silent",
    DATABASE_URL: "postgres://user:password@127.0.0.1:1/none",
    ADMIN_TOKEN: "a".repeat(32),
    ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
  };
  const refused = bootRuntime(production);
  await expect(refused).rejects.toThrow(ConfigError);
  await expect(refused).rejects.toThrow("Missing environment for production: POSTMARK_WEBHOOK_USERNAME, POSTMARK_WEBHOOK_PASSWORD");
  await expect(bootRuntime({ ...production, POSTMARK_WEBHOOK_USERNAME: "postmark" })).rejects.toThrow(/: POSTMARK_WEBHOOK_PASSWORD$/);
  // An empty value counts as unset.
  await expect(bootRuntime({ ...production, POSTMARK_WEBHOOK_USERNAME: "", POSTMARK_WEBHOOK_PASSWORD: "s3cret-s3cret" })).rejects.toThrow(/: POSTMARK_WEBHOOK_USERNAME$/);

  const dataDir = mkdtempSync(join(tmpdir(), "boot-webhook-"));
  const embedded = await bootRuntime({ DATA_DIR: dataDir, LOG_LEVEL: "silent" });
  try {
    expect(embedded.config.POSTMARK_WEBHOOK_USERNAME).toBe("postmark");
    expect(embedded.config.POSTMARK_WEBHOOK_PASSWORD).toBe(readFileSync(join(dataDir, "postmark-webhook-password"), "utf8").trim());
    expect(embedded.config.POSTMARK_WEBHOOK_PASSWORD?.length).toBeGreaterThanOrEqual(24);
  } finally {
    await embedded.close();
  }
}, 60_000);
