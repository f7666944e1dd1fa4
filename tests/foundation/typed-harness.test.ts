import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";

/**
 * Tests read answers through types named from one source, the generated client types (`Mail["getTemplate"]`,
 * `ErrorEnvelope<…>` in `tests/helpers/harness.ts`). An untyped call answers `unknown`, so a test that reads
 * a body must say which operation's body it reads; these checks keep that from drifting back.
 */
const harness = readFileSync(join(import.meta.dirname, "../helpers/harness.ts"), "utf8");

const testFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return /\.(ts|mts)$/.test(entry.name) ? [path] : [];
  });

test("the harness's call and admin answer `unknown` unless the caller names the body type", () => {
  expect(harness).toMatch(/async function call<T = unknown>\(/);
  expect(harness).toMatch(/const admin = <T = unknown>\(/);
  expect(harness).not.toMatch(/:\s*any\b|\bas any\b|<any\b|,\s*any>/);
});

test("tests take response types from the generated client types, not from the route files", () => {
  const offenders = testFiles(join(import.meta.dirname, ".."))
    .flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .map((line, index) => ({ file, line, index })),
    )
    .filter(({ line }) => /^import .*\b\w+Response\b.* from "(\.\.\/)+lib\/.*\/routes\//.test(line))
    .map(({ file, line, index }) => `${file}:${index + 1}: ${line}`);
  expect(offenders).toEqual([]);
});

test("Biome's noExplicitAny holds in tests too (no override turns it off)", () => {
  const biome = readFileSync(join(import.meta.dirname, "../../biome.jsonc"), "utf8");
  expect(biome).toMatch(/"noExplicitAny": "error"/);
  expect(biome).not.toMatch(/"noExplicitAny": "(off|warn|info)"/);
});
