/**
 * Builds `@mail-ads/client` into `dist/`: ESM (`index.mjs`) and CommonJS (`index.cjs`) with tsup, the
 * declarations with tsc (`index.d.mts` / `index.d.cts` over shared `.d.ts` files). The generated types are
 * `src/types/{mail,ads}.ts` (`npm run client:generate`, guarded by `npm run client:check`): the build ships
 * them indented with tabs (the same text, a third smaller) and without the error responses' examples. The
 * admin client (`src/admin.ts`, `./admin` in the exports, the source condition only) is not built: it serves
 * this repository. Run: `npm run client:build` (or `npm run build` here).
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, copyFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "tsup";

const here = import.meta.dirname;
const repo = join(here, "..", "..");
const dist = join(here, "dist");
const staging = join(here, ".build");
const SERVICES = ["mail", "ads"] as const;

/**
 * The error responses' `@example` blocks dropped: every operation repeats the same error envelope examples
 * (401, 404, 422, …), about a quarter of the types' text, while the error schema and its codes stay documented
 * (and every example stays in the OpenAPI documents). Keeps the package within its 1 MB unpacked budget.
 */
function withoutErrorExamples(text: string): string {
  const out: string[] = [];
  let errorIndent: string | null = null;
  let skipping = false;
  for (const line of text.split("\n")) {
    const opening = /^(\s*)(?:[45]\d\d|default): \{$/.exec(line);
    if (errorIndent === null && opening) errorIndent = opening[1] ?? "";
    else if (errorIndent !== null && line === `${errorIndent}};`) errorIndent = null;
    if (errorIndent !== null) {
      const trimmed = line.trim();
      if (trimmed.startsWith("* @example")) {
        skipping = true;
        continue;
      }
      if (skipping && !trimmed.startsWith("* @") && !trimmed.startsWith("*/")) continue;
      skipping = false;
    }
    out.push(line);
  }
  // A doc comment left with nothing in it.
  return out.join("\n").replace(/^[\t ]*\/\*\*\n[\t ]*\*\/\n/gm, "");
}

/** Leading groups of four spaces become tabs; nothing else changes. */
const tabbed = (text: string) => text.replace(/^( +)/gm, (spaces) => "\t".repeat(Math.floor(spaces.length / 4)) + " ".repeat(spaces.length % 4));

rmSync(dist, { recursive: true, force: true });
rmSync(staging, { recursive: true, force: true });
// The admin client and its types stay out (see above).
cpSync(join(here, "src"), join(staging, "src"), { recursive: true, filter: (path) => !/[\\/](types[\\/])?admin\.ts$/.test(path) });
for (const service of SERVICES) {
  writeFileSync(
    join(staging, "src", "types", `${service}.ts`),
    tabbed(withoutErrorExamples(readFileSync(join(here, "src", "types", `${service}.ts`), "utf8"))),
  );
}

await build({
  entry: { index: join(staging, "src", "index.ts") },
  format: ["esm", "cjs"],
  outDir: dist,
  target: "es2022",
  platform: "neutral",
  external: ["openapi-fetch"],
  outExtension: ({ format }) => ({ js: format === "cjs" ? ".cjs" : ".mjs" }),
  dts: false,
  sourcemap: false,
  splitting: false,
  treeshake: true,
  silent: true,
  config: false,
});

const tsconfig = join(staging, "tsconfig.json");
writeFileSync(
  tsconfig,
  JSON.stringify({
    compilerOptions: {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      lib: ["ES2022", "DOM"],
      types: [],
      strict: true,
      skipLibCheck: true,
      declaration: true,
      emitDeclarationOnly: true,
      rootDir: "src",
      outDir: dist,
    },
    files: ["src/index.ts"],
  }),
);
execFileSync(process.execPath, [join(repo, "node_modules", "typescript", "bin", "tsc"), "-p", tsconfig], { stdio: "inherit" });

// The generated types as copied (tsc would re-indent them); they hold only interfaces and type aliases.
for (const service of SERVICES) copyFileSync(join(staging, "src", "types", `${service}.ts`), join(dist, "types", `${service}.d.ts`));
// One entry declaration per format; the files they import are shared (type-only, valid from either).
copyFileSync(join(dist, "index.d.ts"), join(dist, "index.d.mts"));
renameSync(join(dist, "index.d.ts"), join(dist, "index.d.cts"));
rmSync(staging, { recursive: true, force: true });

const sizes: string[] = [];
let total = 0;
const walk = (dir: string) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else {
      total += statSync(path).size;
      sizes.push(`${path.slice(here.length + 1)} ${statSync(path).size}`);
    }
  }
};
mkdirSync(dist, { recursive: true });
walk(dist);
process.stdout.write(`${sizes.join("\n")}\n@mail-ads/client dist: ${total} bytes\n`);
