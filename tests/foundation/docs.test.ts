import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { expect, test } from "vitest";
import { describeEnvironment } from "../../lib/core/config";
import { generatedFiles } from "../../tools/docs";
import { repoRoot } from "../helpers/processes";

/*
 * The documentation as a product: the README stays a short entry without history, every page is reachable
 * from it, every relative link resolves, the generated tables match their sources, and every fenced block
 * is either run (by the walk-through test or the client package test) or says why not.
 */

const read = (file: string) => readFileSync(join(repoRoot, file), "utf8");

function markdownFiles(dir: string): string[] {
  return readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith(".md") ? [path] : [];
  });
}

/** Every page of the documentation: the README, the changelog and everything under docs/. */
const PAGES = ["README.md", "CHANGELOG.md", ...markdownFiles("docs")];

/**
 * Pages other work adds later: linked from the indexes already, allowed to be missing until they exist
 * (once present they are checked like every other page).
 */
const ANNOUNCED = new Set([
  "docs/operators/sso-and-second-factor.md",
  "docs/operators/secrets-and-sessions.md",
  "docs/operators/deliverability.md",
  "docs/portal-developers/mcp.md",
]);

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of markdown.replace(/```[\s\S]*?```/g, "").matchAll(/^#{1,6} (.+)$/gm)) {
    const base = (heading ?? "")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .trim()
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n === 0 ? base : `${base}-${n}`);
  }
  return result;
}

/** Relative links of a page (inline links and `src=` of images), outside code. */
function links(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  const found = [...prose.matchAll(/\]\(([^)\s]+)\)/g), ...prose.matchAll(/src="([^"]+)"/g)].map((m) => m[1] ?? "");
  return found.filter((href) => !/^[a-z]+:/i.test(href));
}

test("the README is a short entry: at most 250 lines, no dates, no issue numbers, the two commands", () => {
  const readme = read("README.md");
  expect(readme.split("\n").length).toBeLessThanOrEqual(250);
  expect(readme.match(/\b20\d\d-\d\d(-\d\d)?\b/g) ?? []).toEqual([]);
  expect(readme.match(/\b[Ii]ssues? \d+|#\d{2}\b/g) ?? []).toEqual([]);
  expect(readme).toContain("npm install && npm start");
  expect(readme).toContain("npm install && npm test");
});

test("the generated tables match their sources (else: run npm run docs:generate)", () => {
  const stale = generatedFiles()
    .filter((f) => f.checked && f.wanted !== f.committed)
    .map((f) => `${f.file} is stale: run npm run docs:generate`);
  expect(stale).toEqual([]);
  // The environment table names every variable of the config schema.
  const environment = read("docs/deploy/environment.md");
  expect(describeEnvironment().filter((v) => !environment.includes(`| \`${v.name}\` |`))).toEqual([]);
});

test("every relative link of every page resolves (file and heading)", () => {
  const broken: string[] = [];
  for (const page of PAGES) {
    for (const href of links(read(page))) {
      const [path = "", anchor] = href.split("#");
      const target = path === "" ? page : normalize(join(dirname(page), decodeURI(path)));
      if (!existsSync(join(repoRoot, target))) {
        if (!ANNOUNCED.has(target)) broken.push(`${page}: ${href} (no ${target})`);
        continue;
      }
      if (anchor && target.endsWith(".md") && !anchors(read(target)).has(anchor)) broken.push(`${page}: ${href} (no heading #${anchor} in ${target})`);
    }
  }
  expect(broken).toEqual([]);
});

test("every documentation page is reachable from the README", () => {
  const reached = new Set<string>(["README.md"]);
  const queue = ["README.md"];
  while (queue.length > 0) {
    const page = queue.shift() as string;
    for (const href of links(read(page))) {
      const path = href.split("#")[0] ?? "";
      if (path === "") continue;
      const target = normalize(join(dirname(page), decodeURI(path)));
      if (!target.endsWith(".md") || reached.has(target) || !existsSync(join(repoRoot, target))) continue;
      if (!statSync(join(repoRoot, target)).isFile()) continue;
      reached.add(target);
      queue.push(target);
    }
  }
  // Decision records are listed by their folder's index, which other work extends in parallel: a record is
  // reached when the index is.
  const unreached = PAGES.filter((page) => !reached.has(page) && !(reached.has("docs/adr/README.md") && /^docs\/adr\/\d{4}-/.test(page)));
  expect(unreached).toEqual([]);
  expect(reached.size).toBeGreaterThan(30);
});

test("every fenced block is run or says why not", () => {
  const MARK = /^<!-- (walkthrough: (run|before-start)|client-example: [a-z0-9-]+|not-run: .{10,}) -->$/;
  const unmarked: string[] = [];
  for (const page of PAGES) {
    const lines = read(page).split("\n");
    let open = -1;
    for (let i = 0; i < lines.length; i++) {
      if (!/^```/.test(lines[i] ?? "")) continue;
      if (open < 0) {
        open = i;
        continue;
      }
      // A block is marked on the line before it or the line after its closing fence.
      const before = lines[open - 1] ?? "";
      const after = lines[i + 1] ?? "";
      if (!MARK.test(before) && !/^<!-- not-run: .{10,} -->$/.test(after)) unmarked.push(`${page}:${open + 1}: ${lines[open]}`);
      open = -1;
    }
  }
  expect(unmarked).toEqual([]);
});

test("the guides' pages are listed in their index, in the order the walk-through runs them", () => {
  for (const dir of ["docs/portal-developers", "docs/operators"]) {
    const index = read(`${dir}/README.md`);
    const listed = [...index.matchAll(/^\d+\. \[[^\]]+\]\(([^)]+)\)/gm)].map((m) => m[1]);
    const pages = markdownFiles(dir)
      .map((file) => relative(dir, file))
      .filter((file) => file !== "README.md");
    const withBlocks = pages.filter((file) => read(join(dir, file)).includes("<!-- walkthrough: run -->"));
    expect(
      withBlocks.filter((file) => !listed.includes(file)),
      `${dir}: pages with runnable blocks missing from the numbered list`,
    ).toEqual([]);
  }
});
