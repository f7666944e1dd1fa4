import { expect, test } from "vitest";
import { ConfigError, loadConfig, testOnlyVariables } from "../../lib/core/config";

const testOnlySettings: Record<string, string> = {
  ALLOW_LOOPBACK_OUTBOUND: "true",
  OUTBOUND_TRUSTED_CA: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
  NEON_LOCAL_PROXY: "127.0.0.1:4444",
  SEND_RECONCILE_TEST_GRACE_MS: "1000",
};

test("every TEST ONLY variable of the schema is listed, and only those", () => {
  expect([...testOnlyVariables].sort()).toEqual(Object.keys(testOnlySettings).sort());
});

test.each(Object.entries(testOnlySettings))("on Vercel, %s is refused by name", (name, value) => {
  expect(() => loadConfig({ VERCEL: "1", [name]: value })).toThrow(ConfigError);
  expect(() => loadConfig({ VERCEL: "1", [name]: value })).toThrow(new RegExp(`not allowed on Vercel: ${name}$`));
  expect(() => loadConfig({ [name]: value })).not.toThrow();
});

test("on Vercel the error names every test-only variable that is set", () => {
  expect(() => loadConfig({ VERCEL: "1", ...testOnlySettings })).toThrow(/ALLOW_LOOPBACK_OUTBOUND, OUTBOUND_TRUSTED_CA, NEON_LOCAL_PROXY/);
});

test("without test-only variables Vercel's environment loads, and outside Vercel they apply", () => {
  expect(loadConfig({ VERCEL: "1" }).ALLOW_LOOPBACK_OUTBOUND).toBe(false);
  expect(loadConfig({ VERCEL: "1", ALLOW_LOOPBACK_OUTBOUND: "" }).ALLOW_LOOPBACK_OUTBOUND).toBe(false);
  expect(loadConfig({ ALLOW_LOOPBACK_OUTBOUND: "true" }).ALLOW_LOOPBACK_OUTBOUND).toBe(true);
});

test("NEON_LOCAL_PROXY must name a loopback host:port", () => {
  expect(() => loadConfig({ NEON_LOCAL_PROXY: "proxy.example.com:4444" })).toThrow(/NEON_LOCAL_PROXY: must be a loopback host:port/);
  expect(loadConfig({ NEON_LOCAL_PROXY: "[::1]:4444" }).NEON_LOCAL_PROXY).toBe("[::1]:4444");
});
