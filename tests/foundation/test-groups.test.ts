import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, test } from "vitest";
import { TEST_GROUPS } from "../../vitest.config";
import { repoRoot } from "../helpers/processes";

/*
 * The rule of vitest.config.ts, checked: the `harness` group's workers are not reset between files, so a file
 * that changes what the process shares (a module stub, a spy, a global, the environment, fake timers, the
 * process's tracer) must be in a group whose files each get a fresh module graph (`isolated`, `beside`,
 * `alone`), and a file that starts processes of its own must not run in `harness` either.
 */
const PROCESS_WIDE = [
  /\bvi\.(mock|doMock|spyOn|stubEnv|stubGlobal|useFakeTimers)\(/,
  /\bprocess\.env\.[A-Z_]+\s*=[^=]/,
  /\bdelete process\.env\./,
  /\bregisterTracing\(/,
];

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith(".test.ts") ? [relative(repoRoot, path)] : [];
  });
}

/** Vitest's globs as used in the config: `**` any folders, `*` within a name. */
function globPattern(glob: string): RegExp {
  const source = glob
    .split("**/")
    .map((part) => part.replace(/[.+^${}()|[\]\\]/g, "\\$&").replaceAll("*", "[^/]*"))
    .join("(?:.+/)?");
  return new RegExp(`^${source}$`);
}

const grouped = (patterns: readonly string[]) => (file: string) => patterns.some((glob) => globPattern(glob).test(file));
const outsideHarness = grouped([...TEST_GROUPS.alone, ...TEST_GROUPS.beside, ...TEST_GROUPS.isolated]);

test("files that change what the process shares run outside the non-isolated harness group", () => {
  const files = testFiles(join(repoRoot, "tests")).filter((file) => file !== "tests/foundation/test-groups.test.ts");
  expect(files.length).toBeGreaterThan(100);
  const misplaced = files.filter((file) => {
    const source = readFileSync(join(repoRoot, file), "utf8");
    return PROCESS_WIDE.some((pattern) => pattern.test(source)) && !outsideHarness(file);
  });
  expect(misplaced).toEqual([]);
});

test("every pattern of the groups names a test file, and no file is in two groups", () => {
  const files = testFiles(join(repoRoot, "tests"));
  for (const glob of [...TEST_GROUPS.alone, ...TEST_GROUPS.beside, ...TEST_GROUPS.isolated]) {
    expect(
      files.some((file) => globPattern(glob).test(file)),
      glob,
    ).toBe(true);
  }
  const groups = Object.values(TEST_GROUPS).map(grouped);
  expect(files.filter((file) => groups.filter((inGroup) => inGroup(file)).length > 1)).toEqual([]);
});
