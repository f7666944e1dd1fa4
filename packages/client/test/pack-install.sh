#!/usr/bin/env bash
# The packed client as a portal gets it: build, `npm pack`, install the tarball into three scratch projects
# in a temp dir (ESM with moduleResolution NodeNext, CommonJS with Node16 and `require`, a bundler setup),
# type-check a portal flow in each and a file of deliberate type errors that must fail, then run the flow
# compiled as ESM and as CommonJS against a fresh server. Installs come from the npm cache (--prefer-offline):
# the tarball's one dependency (openapi-fetch) and, for the scratch projects, typescript and @types/node.
# Prints the package's size and the install footprint. Run from anywhere: `npm run client:package-test`.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
fixtures="$repo/packages/client/test/fixtures"
started=$SECONDS
work=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    # The server writes its data directory while it shuts down: wait for it (at most 15 s) before removing it.
    for _ in $(seq 150); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work" || { sleep 1; rm -rf "$work"; }
}
trap cleanup EXIT
install_flags=(--prefer-offline --no-audit --no-fund --loglevel=error)
ts_version=$(node -p "require('$repo/node_modules/typescript/package.json').version")
types_node_version=$(node -p "require('$repo/node_modules/@types/node/package.json').version")

echo "-- pack (prepack builds: dist/ is removed first, so an empty tarball cannot pass)"
rm -rf "$repo/packages/client/dist"
# npm pack prints the prepack build's lines before its JSON: the JSON is from the line that opens the array.
pack_json=$(cd "$repo/packages/client" && npm pack --json --pack-destination "$work" 2>/dev/null | sed -n '/^\[/,$p')
tarball="$work/$(node -pe "JSON.parse(process.argv[1])[0].filename" "$pack_json")"
node -e '
  const [p] = JSON.parse(process.argv[1]);
  console.log(`package ${p.name}@${p.version}: ${p.entryCount} files, tarball ${(p.size / 1024).toFixed(0)} KB, unpacked ${(p.unpackedSize / 1024).toFixed(0)} KB`);
  if (p.unpackedSize > 1_000_000) { console.error("unpacked size over 1 MB"); process.exit(1); }
  for (const file of ["dist/index.mjs", "dist/index.cjs", "dist/index.d.mts"]) {
    if (!p.files.some((f) => f.path === file)) { console.error(`the tarball lacks ${file}: prepack did not build`); process.exit(1); }
  }
  const deps = Object.keys(require(process.argv[2] + "/packages/client/package.json").dependencies);
  if (deps.join() !== "openapi-fetch") { console.error("run-time dependencies other than openapi-fetch: " + deps); process.exit(1); }
' "$pack_json" "$repo"

echo "-- install footprint (the tarball alone)"
mkdir "$work/footprint" && (cd "$work/footprint" && npm init -y >/dev/null && npm install "${install_flags[@]}" "$tarball" >/dev/null)
echo "installed: $(ls -d "$work"/footprint/node_modules/*/ "$work"/footprint/node_modules/@*/*/ 2>/dev/null | grep -v '/@[^/]*/$' | wc -l) packages, $(du -sk "$work/footprint/node_modules" | cut -f1) KB"

# project <dir> <package.json type> <module> <moduleResolution> <main file>
project() {
  local dir="$work/$1"
  mkdir -p "$dir"
  cp "$fixtures/portal.ts" "$fixtures/bad.ts" "$fixtures/$5" "$dir/"
  # The ESM project also type-checks the guides' client examples (docs/**/*.md blocks marked
  # <!-- client-example: name -->) in the same compilation; they run against the server below.
  local examples=""
  if [ "$1" = esm-nodenext ]; then
    node "$repo/packages/client/test/guide-examples.mjs" "$repo/docs" "$dir/examples"
    examples=', "include": ["examples/*.ts"]'
  fi
  cat >"$dir/package.json" <<JSON
{ "name": "scratch-$1", "private": true, "type": "$2" }
JSON
  cat >"$dir/tsconfig.json" <<JSON
{ "compilerOptions": { "target": "ES2022", "module": "$3", "moduleResolution": "$4", "strict": true, "types": ["node"],
  "skipLibCheck": false, "outDir": "out", "rootDir": ".", "lib": ["ES2022", "DOM"] }, "files": ["portal.ts", "$5"]$examples }
JSON
  cat >"$dir/tsconfig.bad.json" <<JSON
{ "extends": "./tsconfig.json", "compilerOptions": { "noEmit": true }, "files": ["bad.ts"], "include": [] }
JSON
  (cd "$dir" && npm install "${install_flags[@]}" "$tarball" "typescript@$ts_version" "@types/node@$types_node_version" >/dev/null)
  echo "-- $1: module $3, moduleResolution $4"
  (cd "$dir" && npx tsc -p tsconfig.json) || { echo "$1: the portal flow does not type-check" >&2; exit 1; }
  local bad
  if bad=$(cd "$dir" && npx tsc -p tsconfig.bad.json 2>&1); then echo "$1: bad.ts type-checked" >&2; exit 1; fi
  local errors
  errors=$(grep -c '^bad.ts(' <<<"$bad" || true)
  echo "$1: portal flow type-checks; bad.ts fails with $errors errors"
  if [ "$errors" -lt 5 ]; then echo "$bad" >&2; echo "$1: expected 5 errors in bad.ts" >&2; exit 1; fi
}
project esm-nodenext module NodeNext NodeNext main-esm.ts
project cjs-node16 commonjs Node16 Node16 main-cjs.ts
project bundler module ESNext Bundler main-esm.ts
node -e 'const c = require(process.argv[1]); if (typeof c.createMailClient !== "function") process.exit(1)' "$work/cjs-node16/node_modules/@mail-ads/client"

echo "-- the flow against a fresh server (ESM and CommonJS builds)"
port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
mkdir "$work/data"
(cd "$repo" && DATABASE_URL= DATA_DIR="$work/data" PORT=$port HOST=127.0.0.1 LOG_LEVEL=warn exec node --import tsx lib/server.ts >"$work/server.log" 2>&1) &
server_pid=$!
for _ in $(seq 1 600); do
  grep -q 'export GRAPH_SIM=' "$work/server.log" && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.2
done
grep -q 'export GRAPH_SIM=' "$work/server.log" || { cat "$work/server.log" >&2; echo "the server did not start" >&2; exit 1; }
eval "$(grep -E '^\s+export (BASE|MAIL|ADS)=' "$work/server.log" | sed 's/^\s*//')"
export BASE MAIL ADS
# The Demo's six ads are made with its media after the server listens (lib/server.ts): wait for them (at most 120 s).
demo_ads() { node -e 'fetch(process.argv[1], { headers: { authorization: `Bearer ${process.env.ADS}` } }).then((r) => r.json()).then((b) => console.log(b.data?.length ?? 0), () => console.log(0))' "$BASE/ads/v1/ads?limit=100"; }
for _ in $(seq 1 240); do
  [ "$(demo_ads)" -ge 6 ] && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.5
done
for build in esm-nodenext/out/main-esm.js cjs-node16/out/main-cjs.js; do
  out=$(node "$work/$build")
  echo "$build:"; sed 's/^/  /' <<<"$out"
  for expected in "health ok" "sent accepted" "verified 1" "refused signature_mismatch" "ads 6" "error 404 not_found"; do
    grep -qF "$expected" <<<"$out" || { echo "$build: missing '$expected'" >&2; exit 1; }
  done
done
for example in "$work"/esm-nodenext/out/examples/*.js; do
  out=$(cd "$work/esm-nodenext" && node "$example") || { echo "$out" >&2; echo "guide example $(basename "$example" .js) failed" >&2; exit 1; }
  echo "guide example $(basename "$example" .js): $(tail -n 1 <<<"$out")"
done
echo "-- @mail-ads/mcp as an assistant gets it: packed, installed beside the client's tarball, its tools listed over stdio"
rm -rf "$repo/packages/mcp/dist"
mcp_json=$(cd "$repo/packages/mcp" && npm pack --json --pack-destination "$work" 2>/dev/null | sed -n '/^\[/,$p')
mcp_tarball="$work/$(node -pe "JSON.parse(process.argv[1])[0].filename" "$mcp_json")"
node -e '
  const [p] = JSON.parse(process.argv[1]);
  console.log(`package ${p.name}@${p.version}: ${p.entryCount} files, unpacked ${(p.unpackedSize / 1024).toFixed(0)} KB`);
  for (const file of ["dist/cli.js", "dist/index.js", "dist/index.d.ts"]) {
    if (!p.files.some((f) => f.path === file)) { console.error(`the tarball lacks ${file}: prepack did not build`); process.exit(1); }
  }
' "$mcp_json"
mkdir "$work/mcp" && cd "$work/mcp" && npm init -y >/dev/null
npm install "${install_flags[@]}" "$tarball" "$mcp_tarball" >/dev/null
node -e '
  const deps = Object.keys(require("./node_modules/@mail-ads/mcp/package.json").dependencies).sort().join();
  if (deps !== "@mail-ads/client,@modelcontextprotocol/sdk") { console.error("the MCP package depends on " + deps); process.exit(1); }
  console.log("mcp run-time dependencies: " + deps);
'
cat >list-tools.mjs <<'JS'
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
const transport = new StdioClientTransport({
  command: process.execPath,
  args: ["node_modules/@mail-ads/mcp/dist/cli.js", "--base-url", process.env.BASE],
  env: { ...process.env, MAIL_ADS_API_KEY: process.env.MAIL },
});
const client = new Client({ name: "pack-test", version: "1.0.0" });
await client.connect(transport);
const { tools } = await client.listTools();
const usage = await client.callTool({ name: "get_usage", arguments: {} });
const text = usage.content?.[0]?.text ?? "";
console.log(`tools ${tools.length}; get_usage ${usage.isError ? "failed" : "answered"}: ${text.slice(0, 80)}`);
await client.close();
if (tools.length < 10 || usage.isError || !text.includes("sent")) process.exit(1);
JS
out=$(node list-tools.mjs) || { echo "$out" >&2; echo "the packed MCP server did not serve its tools" >&2; exit 1; }
echo "$out"
cd "$repo"
echo "client package test: $((SECONDS - started)) s"
