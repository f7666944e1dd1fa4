import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { expect, test } from "vitest";

/**
 * A closed list of words (statuses, stages, ratios, roles) written out in two files drifts: one gains a value
 * the other never learns. Every array literal of three or more string literals under lib/ (a `z.enum([...])`,
 * an `as const` list, a `new Set([...])`) is counted by its set of words; a set written in more than one
 * file fails, naming the files. The list is written once (the stored vocabularies in
 * lib/db/schema/vocabulary.ts or beside their column, the others in their domain schema) and imported.
 * Exceptions below, each with its reason; none today.
 */
const root = join(import.meta.dirname, "../..");

const ALLOWED_REPEATS: Record<string, string> = {};

function files(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return files(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Each word list of 3+ string literals in `file`, as its sorted distinct words joined by `|`. */
function wordLists(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isArrayLiteralExpression(node) && node.elements.length >= 3 && node.elements.every((e) => ts.isStringLiteralLike(e))) {
      const words = [...new Set(node.elements.map((e) => (e as ts.StringLiteralLike).text))].sort();
      if (words.length >= 3) found.push(words.join("|"));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Word list → the files it is written in. */
function vocabularies(): Map<string, Set<string>> {
  const where = new Map<string, Set<string>>();
  for (const file of files("lib")) {
    for (const list of wordLists(file, readFileSync(join(root, file), "utf8"))) {
      const set = where.get(list) ?? new Set<string>();
      set.add(file);
      where.set(list, set);
    }
  }
  return where;
}

test("the counter finds a word list written in two files and not one repeated inside a file", () => {
  const lists = wordLists("probe.ts", `const a = z.enum(["b", "a", "c"]); const b = new Set(["a", "b", "c", "a"]); const two = ["x", "y"];`);
  expect(lists).toEqual(["a|b|c", "a|b|c"]);
  expect(wordLists("probe.ts", 'const mixed = ["a", "b", 3];')).toEqual([]);
});

test("every closed word list under lib/ is written in one file and imported elsewhere", () => {
  const all = vocabularies();
  const repeated = [...all]
    .filter(([list, where]) => where.size > 1 && !(list in ALLOWED_REPEATS))
    .map(([list, where]) => `${list}: ${[...where].sort().join(", ")}`);
  expect(all.size, "word lists found (the counter still reads the tree)").toBeGreaterThan(100);
  expect(repeated, "word lists written in more than one file: write each once and import it").toEqual([]);
  const stale = Object.keys(ALLOWED_REPEATS).filter((list) => (all.get(list)?.size ?? 0) < 2);
  expect(stale, "exceptions no longer repeated: remove them from the list").toEqual([]);
});
