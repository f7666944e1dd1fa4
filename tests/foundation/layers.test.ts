import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ConfigError, loadDatabaseConfig } from "../../lib/db/config";
import { checkLayers, type LayerRules, type LayerViolation, partOf, readLayerRules, readmeWithLayerTable } from "../../tools/layers";

const root = resolve(__dirname, "../..");

test("every import of every file follows layers.json (type-only imports included); a violation names file and line", () => {
  const result = checkLayers();
  expect(result.violations.map((v) => `${v.file}:${v.line}: ${v.kind}: ${v.message}`)).toEqual([]);
  expect(result.files).toBeGreaterThan(600);
});

test("the checker sees type-only imports: with the mail domain allowed nothing, its `import type` lines are reported with their line", () => {
  const rules = readLayerRules();
  const { violations } = checkLayers({ ...rules, allowed: { ...rules.allowed, "mail-domain": [] } });
  const typeOnly = violations.filter((v) => {
    const line = readFileSync(join(root, v.file), "utf8").split("\n")[v.line - 1] ?? "";
    return line.startsWith("import type") && line.includes(v.specifier);
  });
  expect(typeOnly.length).toBeGreaterThan(0);
  expect(typeOnly.every((v) => v.file.startsWith("lib/mail/") && v.kind === "forbidden")).toBe(true);
});

test("besides the runtime, other parts reach a service only through its index.ts", () => {
  const rules = readLayerRules();
  expect(Object.keys(rules.entries).sort()).toEqual(["lib/ads", "lib/mail"]);
  // With index.ts the only entry, the imports of the HTTP apps, the seeds and the simulators are deep ones:
  // they all come from the runtime, which starts those.
  const { violations } = checkLayers({ ...rules, entries: { "lib/mail": ["lib/mail/index.ts"], "lib/ads": ["lib/ads/index.ts"] } });
  const deep = violations.filter((v) => v.kind === "deep");
  expect(deep.length).toBeGreaterThan(0);
  expect(deep.filter((v) => partOf(rules, v.file) !== "runtime").map((v) => v.file)).toEqual([]);
});

test("the simulators are imported only by the runtime and the seeds", () => {
  const rules = readLayerRules();
  const importers = Object.entries(rules.allowed)
    .filter(([, allowed]) => allowed.includes("mail-simulator") || allowed.includes("ads-simulator"))
    .map(([part]) => part)
    .sort();
  expect(importers).toEqual(["ads-seed", "mail-seed", "runtime"]);
});

test("a service's domain never imports its routes", () => {
  const rules = readLayerRules();
  for (const service of ["mail", "ads"]) {
    expect(rules.allowed[`${service}-domain`]).not.toContain(`${service}-routes`);
    expect(rules.allowed[`${service}-domain`]).not.toContain(service);
  }
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

/**
 * Probes: a small repository in a temporary folder, clean at first, then one file added per kind of import
 * the check must refuse. Each probe must fail the check and name the probe file.
 */
describe("the check fails on each kind of bad import, naming the file", () => {
  let fixture: string;
  const rules: LayerRules = {
    roots: ["lib", "packages"],
    parts: {
      low: ["lib/low"],
      high: ["lib/high"],
      svc: ["lib/svc/index.ts"],
      "svc-domain": ["lib/svc"],
      pkg: ["packages/pkg/src"],
    },
    allowed: { low: [], high: ["low", "svc"], svc: ["svc-domain"], "svc-domain": [], pkg: [] },
    entries: { "lib/svc": ["lib/svc/index.ts"] },
    built: {},
    consumers: [],
    undeclared: {},
    describe: {},
  };
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(fixture, path)), { recursive: true });
    writeFileSync(join(fixture, path), text);
  };
  beforeAll(() => {
    fixture = mkdtempSync(join(tmpdir(), "layers-probe-"));
    write("package.json", JSON.stringify({ name: "probe-app", dependencies: { zod: "*" } }));
    write("packages/pkg/package.json", JSON.stringify({ name: "@probe/pkg", exports: { ".": { source: "./src/index.ts" } } }));
    write("packages/pkg/src/index.ts", "export const pkg = 1;\n");
    write("lib/low/a.ts", 'import { z } from "zod";\nimport { join } from "node:path";\nexport const a = z.string();\nexport const j = join;\n');
    write("lib/high/b.ts", 'import { a } from "../low/a";\nimport { inner } from "../svc";\nexport type B = { b: number };\nexport const b = [a, inner];\n');
    write("lib/svc/index.ts", 'export { inner } from "./inner";\n');
    write("lib/svc/inner.ts", "export const inner = 1;\n");
  });
  afterAll(() => rmSync(fixture, { recursive: true, force: true }));

  const probe = (path: string, text: string): LayerViolation[] => {
    write(path, text);
    try {
      return checkLayers(rules, fixture).violations;
    } finally {
      rmSync(join(fixture, path));
    }
  };

  test("the fixture without a probe passes", () => {
    expect(checkLayers(rules, fixture).violations).toEqual([]);
  });

  test.each([
    ["a value import", "lib/low/probe.ts", 'import { b } from "../high/b";\nexport const p = b;\n', "forbidden"],
    ["a type-only import", "lib/low/probe.ts", 'import type { B } from "../high/b";\nexport type P = B;\n', "forbidden"],
    ["a re-export", "lib/low/probe.ts", 'export { b } from "../high/b";\n', "forbidden"],
    ["a dynamic import()", "lib/low/probe.ts", 'export const load = () => import("../high/b");\n', "forbidden"],
    ["an import type in a type position", "lib/low/probe.ts", 'export type P = import("../high/b").B;\n', "forbidden"],
    ["an unresolved relative specifier", "lib/low/probe.ts", 'import { gone } from "./gone";\nexport const p = gone;\n', "unresolved"],
    ["a package no package.json declares", "lib/low/probe.ts", 'import pad from "left-pad";\nexport const p = pad;\n', "unresolved"],
    ["a file in no part", "lib/orphan/probe.ts", "export const p = 1;\n", "no-part"],
    ["the root package importing itself by name", "lib/low/probe.ts", 'import { a } from "probe-app/lib/low/a";\nexport const p = a;\n', "self-import"],
    ["a workspace package importing itself by name", "packages/pkg/src/probe.ts", 'import { pkg } from "@probe/pkg";\nexport const p = pkg;\n', "self-import"],
    ["a deep import into a service", "lib/high/probe.ts", 'import { inner } from "../svc/inner";\nexport const p = inner;\n', "deep"],
  ] as const)("%s", (_, path, text, kind) => {
    const violations = probe(path, text);
    expect(violations.map((v) => [v.file, v.kind])).toContainEqual([path, kind]);
    expect(violations.every((v) => v.file === path)).toBe(true);
  });
});
