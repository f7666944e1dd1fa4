#!/usr/bin/env node
// The size of every function `vercel build` wrote (.vercel/output/functions/**/*.func), uncompressed, as the
// platform deploys it: the function's directory plus the repository files its .vc-config.json maps in
// (`filePathMap`: migrations, the docs page's script, fonts). Prints a table and exits 1 when a function is over
// its budget (MB = 10^6 bytes):
//   every API function (mail, ads, admin, console, cron, postmark, platform, queue)   15 MB
//   the image function (api/media: the image routes; libvips, resvg, fonts)          40 MB (docs/deploy/functions.md)
//   video (api/video: ffmpeg brotli-compressed, libvips, resvg)                      90 MB
// Also fails when a function ships something it must not: esbuild, PGlite, tsx, typescript, npm's cache,
// ffmpeg outside api/video, libvips or resvg outside api/media and api/video, or the Node version differs
// from the one Vercel picks from package.json's engines (the highest major the range names).
import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const functionsDir = join(root, ".vercel/output/functions");
const MB = 1e6;
const BUDGETS = { video: 90, image: 40, api: 15 };
const IMAGE_FUNCTIONS = new Set(["api/media"]);
const FORBIDDEN = [
  "node_modules/.cache/",
  "node_modules/esbuild/",
  "node_modules/@esbuild/",
  "node_modules/@electric-sql/pglite/",
  "node_modules/tsx/",
  "node_modules/typescript/",
];

function walk(dir, visit) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, visit);
    else visit(path);
  }
}

const functions = [];
walk(functionsDir, (path) => {
  if (path.endsWith("/.vc-config.json") && path.includes(".func/")) functions.push(path.slice(0, -"/.vc-config.json".length));
});
if (functions.length === 0) {
  console.error("no functions under .vercel/output/functions: run `npm run vercel:build` first");
  process.exit(1);
}

const engines = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).engines?.node ?? "";
// Vercel runs the newest major the range allows ("^20.19.0 || ^22.12.0 || 24.x" → 24.x).
const functionMajor = Math.max(...engines.split("||").map((part) => Number.parseInt(part.replace(/^[^\d]*/, ""), 10)));
const expectedRuntime = `nodejs${functionMajor}.x`;
const rows = [];
const problems = [];
for (const func of functions.sort()) {
  const name = relative(functionsDir, func).replace(/\.func$/, "");
  const config = JSON.parse(readFileSync(join(func, ".vc-config.json"), "utf8"));
  let bytes = 0;
  const files = [];
  walk(func, (path) => {
    const stat = lstatSync(path);
    if (!stat.isSymbolicLink()) bytes += stat.size;
    files.push(relative(func, path));
  });
  for (const [inFunction, inRepo] of Object.entries(config.filePathMap ?? {})) {
    const source = join(root, inRepo);
    if (existsSync(source)) bytes += statSync(source).size;
    files.push(inFunction);
  }
  const kind = name === "api/video" ? "video" : IMAGE_FUNCTIONS.has(name) ? "image" : "api";
  const budget = BUDGETS[kind];
  const mb = bytes / MB;
  const ffmpeg = files.some((file) => file.startsWith("node_modules/@ffmpeg-installer/") || file.startsWith("dist/ffmpeg/"));
  const sharp = files.some((file) => file.startsWith("node_modules/@img/") || file.startsWith("node_modules/@resvg/"));
  rows.push({ name, kind, mb, budget, ffmpeg, sharp });
  if (mb > budget) problems.push(`${name}: ${mb.toFixed(1)} MB is over its ${budget} MB budget (${kind})`);
  for (const prefix of FORBIDDEN) if (files.some((file) => file.startsWith(prefix))) problems.push(`${name} ships ${prefix}`);
  if (ffmpeg && kind !== "video") problems.push(`${name} ships ffmpeg (only api/video may)`);
  if (kind === "video" && !ffmpeg) problems.push(`${name} has no ffmpeg`);
  if (sharp && kind === "api") problems.push(`${name} ships libvips or resvg (only api/media and api/video may)`);
  if (config.runtime !== expectedRuntime) problems.push(`${name} runs ${config.runtime}, package.json's engines say ${engines} (${expectedRuntime})`);
}

console.log("function sizes (MB, uncompressed, with the files mapped in):");
console.log("  function        kind   size  budget  ffmpeg  libvips/resvg");
for (const row of rows) {
  console.log(
    `  ${row.name.padEnd(15)} ${row.kind.padEnd(5)} ${row.mb.toFixed(1).padStart(5)}  ${String(row.budget).padStart(6)}  ${(row.ffmpeg ? "yes" : "no").padEnd(6)}  ${row.sharp ? "yes" : "no"}`,
  );
}
if (problems.length > 0) {
  for (const problem of problems) console.error(`function check: ${problem}`);
  process.exit(1);
}
console.log(`function check: ${rows.length} functions within their budgets, runtime ${expectedRuntime}`);
