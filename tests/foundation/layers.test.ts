import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect, test } from "vitest";
import { ConfigError, loadDatabaseConfig } from "../../lib/db/config";
import { checkLayers, readLayerRules, readmeWithLayerTable } from "../../tools/layers";

const root = resolve(__dirname, "../..");

test("every import of every file follows layers.json (type-only imports included); a violation names file and line", () => {
  const result = checkLayers();
  expect(result.violations.map((v) => `${v.file}:${v.line}: ${v.from} → ${v.to} (${v.specifier})`)).toEqual([]);
  expect(result.files).toBeGreaterThan(300);
});

test("the checker sees type-only imports: with mail allowed nothing, mail's `import type` lines are reported with their line", () => {
  const rules = readLayerRules();
  const { violations } = checkLayers({ ...rules, allowed: { ...rules.allowed, mail: [] } });
  const typeOnly = violations.filter((v) => {
    const line = readFileSync(join(root, v.file), "utf8").split("\n")[v.line - 1] ?? "";
    return line.startsWith("import type") && line.includes(v.specifier);
  });
  expect(typeOnly.length).toBeGreaterThan(0);
  expect(typeOnly.every((v) => v.from === "mail")).toBe(true);
});

test("the README's layer table is the one written from layers.json", () => {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  expect(readmeWithLayerTable(readme)).toBe(readme);
});

test("the migration command reads only the database variables: a broken HTTP setting does not stop it", () => {
  expect(loadDatabaseConfig({ PORT: "not a port", ADMIN_TOKEN: "short", DATA_DIR: "/tmp/x" })).toEqual({ DATA_DIR: "/tmp/x" });
  expect(() => loadDatabaseConfig({ DATABASE_URL: "mysql://nope" })).toThrow(ConfigError);
  expect(() => loadDatabaseConfig({ DATABASE_URL: "mysql://nope" })).toThrow(/DATABASE_URL/);
});
