// Writes the guides' client examples into a scratch project: every ```ts block of docs/**/*.md preceded by
// `<!-- client-example: <name> -->` becomes <out>/<name>.ts (pack-install.sh type-checks them against the packed
// package and runs them against a fresh server). Usage: node guide-examples.mjs <docs dir> <out dir>
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [docs, out] = process.argv.slice(2);
if (!docs || !out) throw new Error("usage: node guide-examples.mjs <docs dir> <out dir>");
mkdirSync(out, { recursive: true });
const block = /<!-- client-example: ([a-z0-9-]+) -->\n```ts\n([\s\S]*?)\n```/g;
const names = new Set();
for (const file of readdirSync(docs, { recursive: true })) {
  if (!String(file).endsWith(".md")) continue;
  const text = readFileSync(join(docs, String(file)), "utf8");
  for (const [, name, code] of text.matchAll(block)) {
    if (names.has(name)) throw new Error(`two client examples are named ${name}`);
    names.add(name);
    writeFileSync(join(out, `${name}.ts`), `${code}\nexport {};\n`);
  }
}
if (names.size === 0) throw new Error(`no client examples under ${docs}`);
console.log(`${names.size} client examples: ${[...names].join(", ")}`);
