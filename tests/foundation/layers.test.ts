import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { expect, test } from "vitest";
import { ConfigError, loadDatabaseConfig } from "../../lib/db/config";

const root = resolve(__dirname, "../..");

function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/^(?:import|export)\s[^;]*?from\s+"([^"]+)";/gms)].map((m) => m[1] as string);
}

test("the database schema imports nothing outside lib/db (no service code)", () => {
  const folder = join(root, "lib/db/schema");
  const outside = readdirSync(folder)
    .filter((name) => name.endsWith(".ts"))
    .flatMap((name) =>
      importsOf(join(folder, name))
        .filter((spec) => spec.startsWith("."))
        .map((spec) => relative(join(root, "lib/db"), resolve(dirname(join(folder, name)), spec)))
        .filter((target) => target.startsWith(".."))
        .map((target) => `${name} → ${target}`),
    );
  expect(outside).toEqual([]);
});

test("the migration command reads only the database variables: a broken HTTP setting does not stop it", () => {
  expect(loadDatabaseConfig({ PORT: "not a port", ADMIN_TOKEN: "short", DATA_DIR: "/tmp/x" })).toEqual({ DATA_DIR: "/tmp/x" });
  expect(() => loadDatabaseConfig({ DATABASE_URL: "mysql://nope" })).toThrow(ConfigError);
  expect(() => loadDatabaseConfig({ DATABASE_URL: "mysql://nope" })).toThrow(/DATABASE_URL/);
});

test("lib/db/migrate.ts loads the database config, not the whole service config", () => {
  const text = readFileSync(join(root, "lib/db/migrate.ts"), "utf8");
  expect(text).toContain("loadDatabaseConfig");
  expect(text).not.toMatch(/\bloadConfig\b/);
});
