import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { repoRoot } from "../helpers/processes";

/*
 * The code reads without its history: comments say what holds and why, not which issue or change brought it
 * (that is git's and the changelog's; lasting reasons are decision records in docs/adr). This keeps issue
 * references out of the source: "issue 33", "issues 27.10", "#31". Allowed, because they are not references:
 * HTML numeric character references (`&#39;`) and Graph's own error texts (`(#17) User request limit reached`);
 * links to upstream trackers (`…/issues/123`) do not match.
 */
const ROOTS = ["lib", "api", "packages", "tools", "tests", "bench", ".ci"];
const SKIP = /(^|\/)(node_modules|dist|\.build)(\/|$)|^lib\/client\/types\/|^packages\/client\/src\/types\/|^tests\/foundation\/code-history\.test\.ts$/;
const SOURCE = /(\.(ts|mts|cts|mjs|cjs|js|tsx|sh)|^run)$/;

function sources(dir: string): string[] {
  return readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (SKIP.test(path)) return [];
    if (entry.isDirectory()) return sources(path);
    return SOURCE.test(entry.name) ? [path] : [];
  });
}

const ISSUE = /\b[Ii]ssues? [0-9]+/;
const HASH = /(?<![&(])#[0-9]{2}\b/;

test("no issue references in the code, its tests, benches and CI scripts", () => {
  const found: string[] = [];
  for (const file of ROOTS.flatMap(sources)) {
    readFileSync(join(repoRoot, file), "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (ISSUE.test(line) || HASH.test(line)) found.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)}`);
      });
  }
  expect(found, "comments say what holds and why; move lasting reasons into docs/adr").toEqual([]);
});

test("the check sees what it is meant to", () => {
  expect(ISSUE.test("// faster since issue 33")).toBe(true);
  expect(ISSUE.test(" * (issues 27.10, 29.1)")).toBe(true);
  expect(HASH.test("// see #31")).toBe(true);
  expect(HASH.test('out += "&#39;";')).toBe(false);
  expect(HASH.test('17: "(#17) User request limit reached",')).toBe(false);
  expect(ISSUE.test("// https://github.com/nodejs/node/issues/12345")).toBe(false);
});
