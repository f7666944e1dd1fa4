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
  const demo = await seedDemo(first.deps, first.app.adsDeps);
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
    const again = await seedDemo(second.deps, second.app.adsDeps);
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
