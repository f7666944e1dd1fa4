import { builtinModules } from "node:module";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

/**
 * The layer rules of `layers.json`, checked on every import of every source file under `lib/`, `api/` and
 * `packages/`: static, type-only, re-exports, `require()` and `import()` alike (the TypeScript scanner reads
 * them, not a regular expression). The check is closed-world: a file in no part, a relative specifier that
 * resolves to no file, a package that no package.json declares, and a package importing itself by its own
 * name all fail, as does an import a part may not make and an import into a service's folder that is not one
 * of the service's entries. `npm run lint` runs it; `tests/foundation/layers.test.ts` runs it too.
 */
export type LayerRules = {
  /** The folders whose every source file must belong to a part. */
  roots: string[];
  /** Part name → the folders and files it is made of (paths from the repository root; the longest match wins). */
  parts: Record<string, string[]>;
  /** Part name → the other parts it may import (a part may always import itself). */
  allowed: Record<string, string[]>;
  /**
   * Service folder → the only files of it that a file outside the folder may import (the service's public
   * `index.ts`, and the seed and simulator entries the runtime starts).
   */
  entries: Record<string, string[]>;
  /** Build output → the source folder it is built from (the Vercel entries import `dist/functions/*.js`). */
  built: Record<string, string>;
  /** Parts that import their own package by name as an installed consumer would (the packed package's fixtures). */
  consumers: string[];
  /** Packages a file installs for itself at run time (not a dependency of any package.json), with the reason. */
  undeclared: Record<string, string>;
  /** Part name → what it is, one line (the README's layer table is checked against it). */
  describe: Record<string, string>;
};

export type LayerViolation = {
  file: string;
  line: number;
  specifier: string;
  kind: "forbidden" | "deep" | "unresolved" | "no-part" | "self-import";
  /** One line saying what is wrong, for the lint output. */
  message: string;
};

const repoRoot = resolve(import.meta.dirname, "..");
const SOURCE = /\.(ts|mts|cts|tsx|js|mjs|cjs)$/;
/** Folders that hold no source of ours: installed packages, build output, generated client types. */
const SKIPPED = new Set(["node_modules", "dist"]);

export function readLayerRules(root = repoRoot): LayerRules {
  return JSON.parse(readFileSync(join(root, "layers.json"), "utf8")) as LayerRules;
}

/** The part a repository path belongs to: the longest matching folder or file wins. */
export function partOf(rules: LayerRules, path: string): string | undefined {
  let best: { part: string; length: number } | undefined;
  for (const [part, members] of Object.entries(rules.parts)) {
    for (const member of members) {
      if ((path === member || path.startsWith(`${member}/`)) && member.length > (best?.length ?? -1)) best = { part, length: member.length };
    }
  }
  return best?.part;
}

function sourceFiles(root: string, path: string): string[] {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  if (statSync(full).isFile()) return SOURCE.test(full) ? [path] : [];
  return readdirSync(full)
    .filter((name) => !SKIPPED.has(name))
    .flatMap((name) => sourceFiles(root, join(path, name)));
}

const isFile = (path: string) => existsSync(path) && statSync(path).isFile();

/** A relative specifier resolved to a repository path (`.ts`, `/index.ts`, `.js` written for `.ts`, or the file itself). */
function resolveRelative(root: string, rules: LayerRules, file: string, specifier: string): string | undefined {
  let base = relative(root, resolve(root, dirname(file), specifier));
  for (const [output, source] of Object.entries(rules.built)) {
    if (base.startsWith(output)) base = `${source}${base.slice(output.length)}`;
  }
  const full = join(root, base);
  const candidates = [full, `${full}.ts`, `${full}.js`, join(full, "index.ts"), full.replace(/\.js$/, ".ts"), full.replace(/\.mjs$/, ".mts")];
  const found = candidates.find(isFile);
  return found === undefined ? undefined : relative(root, found);
}

/** `entries`: the source file (the `source` condition of `exports`) of each specifier the package answers, `name` and `name/sub`. */
type Manifest = { folder: string; name: string; packages: Set<string>; entries: Map<string, string> };

/** The root package and the workspace packages: their names, what they declare, and the file their name resolves to. */
function manifests(root: string): Manifest[] {
  const folders = [".", ...(existsSync(join(root, "packages")) ? readdirSync(join(root, "packages")).map((name) => `packages/${name}`) : [])];
  return folders
    .filter((folder) => isFile(join(root, folder, "package.json")))
    .map((folder) => {
      const json = JSON.parse(readFileSync(join(root, folder, "package.json"), "utf8")) as {
        name: string;
        dependencies?: Record<string, string>;
        devDependencies?: Record<string, string>;
        peerDependencies?: Record<string, string>;
        exports?: Record<string, { source?: string } | string>;
      };
      const entries = new Map<string, string>();
      const subpaths: [string, { source?: string } | string][] = Object.entries({ ".": {}, ...json.exports });
      for (const [subpath, target] of subpaths) {
        const source = (typeof target === "object" ? target.source : undefined) ?? (subpath === "." ? "./src/index.ts" : undefined);
        if (source && isFile(join(root, folder, source)))
          entries.set(subpath === "." ? json.name : `${json.name}/${subpath.slice(2)}`, relative(root, join(root, folder, source)));
      }
      const packages = new Set([
        ...Object.keys(json.dependencies ?? {}),
        ...Object.keys(json.devDependencies ?? {}),
        ...Object.keys(json.peerDependencies ?? {}),
      ]);
      return { folder, name: json.name, packages, entries };
    });
}

const packageName = (specifier: string) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");
const builtins = new Set(builtinModules);

/** Every import that breaks a rule of `layers.json`, with the number of files and imports read. */
export function checkLayers(rules: LayerRules = readLayerRules(), root = repoRoot): { files: number; imports: number; violations: LayerViolation[] } {
  const violations: LayerViolation[] = [];
  const packages = manifests(root);
  const rootManifest = packages.find((p) => p.folder === ".");
  const owner = (file: string) => packages.find((p) => p.folder !== "." && file.startsWith(`${p.folder}/`)) ?? rootManifest;
  const files = [...new Set(rules.roots.flatMap((path) => sourceFiles(root, path)))].sort();
  let imports = 0;
  for (const file of files) {
    const from = partOf(rules, file);
    if (!from) {
      violations.push({ file, line: 1, specifier: "", kind: "no-part", message: `${file} belongs to no part of layers.json` });
      continue;
    }
    const text = readFileSync(join(root, file), "utf8");
    const { importedFiles } = ts.preProcessFile(text, true, true);
    const own = owner(file);
    for (const imported of importedFiles) {
      imports++;
      const specifier = imported.fileName;
      const line = text.slice(0, imported.pos).split("\n").length;
      const fail = (kind: LayerViolation["kind"], message: string) => violations.push({ file, line, specifier, kind, message });
      let target: string | undefined;
      if (specifier.startsWith(".")) {
        target = resolveRelative(root, rules, file, specifier);
        if (!target) {
          fail("unresolved", `"${specifier}" resolves to no file`);
          continue;
        }
      } else {
        if (specifier.startsWith("node:") || builtins.has(specifier)) continue;
        const name = packageName(specifier);
        const workspace = packages.find((p) => p.name === name);
        if (workspace) {
          if (workspace === own && !rules.consumers.includes(from)) {
            fail("self-import", `imports its own package by name ("${specifier}"); use a relative path`);
            continue;
          }
          target = workspace.entries.get(specifier);
          if (!target) {
            fail("unresolved", `"${specifier}" names no source file of the workspace package ${name}`);
            continue;
          }
        } else {
          if (!own?.packages.has(name) && !rootManifest?.packages.has(name) && !(name in rules.undeclared))
            fail("unresolved", `"${specifier}" is no dependency of ${own?.folder === "." ? "package.json" : `${own?.folder}/package.json`}`);
          continue;
        }
      }
      const to = partOf(rules, target);
      if (!to) {
        fail("no-part", `imports ${target}, which belongs to no part`);
        continue;
      }
      if (to !== from && !rules.allowed[from]?.includes(to)) fail("forbidden", `${from} may not import ${to} (${target})`);
      for (const [folder, entries] of Object.entries(rules.entries)) {
        if (target.startsWith(`${folder}/`) && !file.startsWith(`${folder}/`) && !entries.includes(target))
          fail("deep", `reaches inside ${folder} (${target}); import ${entries[0]} instead`);
      }
    }
  }
  return { files: files.length, imports, violations };
}

/** The README's layer table, written from the rules: one row per part with what it may import. */
export function layerTable(rules: LayerRules = readLayerRules()): string {
  const rows = Object.keys(rules.parts).map(
    (part) =>
      `| ${part} | ${rules.parts[part]?.map((p) => `\`${p}\``).join(", ")} | ${rules.allowed[part]?.join(", ") || "—"} | ${rules.describe[part] ?? ""} |`,
  );
  return ["| part | folders | may import | what it is |", "|---|---|---|---|", ...rows].join("\n");
}

const README_START = "<!-- layers.json: generated by `npx tsx tools/layers.ts --write`; npm run lint checks it -->";
const README_END = "<!-- /layers.json -->";

/** The README with its layer table replaced by the one written from the rules (the markers stay). */
export function readmeWithLayerTable(readme: string, rules: LayerRules = readLayerRules()): string {
  const start = readme.indexOf(README_START);
  const end = readme.indexOf(README_END);
  if (start < 0 || end < start) throw new Error("README.md has no layer table markers");
  return `${readme.slice(0, start + README_START.length)}\n${layerTable(rules)}\n${readme.slice(end)}`;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const readmePath = join(repoRoot, "README.md");
  const readme = readFileSync(readmePath, "utf8");
  const wanted = readmeWithLayerTable(readme);
  if (process.argv.includes("--write")) writeFileSync(readmePath, wanted);
  else if (wanted !== readme) {
    process.stderr.write("layers: README.md's layer table differs from layers.json; run npx tsx tools/layers.ts --write\n");
    process.exit(1);
  }
  const { files, imports, violations } = checkLayers();
  for (const v of violations) process.stderr.write(`${v.file}:${v.line}: ${v.kind}: ${v.message}\n`);
  if (violations.length > 0) {
    process.stderr.write(`layers: ${violations.length} import(s) or file(s) break layers.json\n`);
    process.exit(1);
  }
  process.stdout.write(`layers: ${imports} imports in ${files} files follow layers.json; README.md's layer table matches\n`);
}
