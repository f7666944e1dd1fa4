import { readFileSync } from "node:fs";
import { join } from "node:path";
import { bootRuntime } from "../bootstrap";
import { describeEnvironment, loadConfig } from "../core/config";
import { runningServer } from "../data-dir";
import { randomToken } from "../core/secrets";
import type { OperatorActor } from "../core/principal";
import { asOperator } from "../admin/authenticate";

/** The password `operators:create` gives an account when OPERATOR_PASSWORD is not set (printed once). */
const generatedPassword = randomToken(18);

/**
 * `npm run admin -- <command>`: the admin API from a terminal. A data directory belongs to one process
 * (`lib/data-dir.ts`): when a server holds it, the CLI finds it through `DATA_DIR/server.json` (whatever
 * its port) and calls it over HTTP with the operator token; when none does, it boots the same runtime
 * in-process against the local database (taking the directory's lock for that moment). Anything else (a
 * holder that does not answer) is refused with a message, never a second process on the same database.
 */
const usage = `Usage: npm run admin -- <command>
  customers:list
  customers:create <name>
  customers:get <customer-id>
  customers:update <customer-id> '<json>'   e.g. '{"mail":{"sending_blocked":true}}'
  keys:create <customer-id> <mail|ads> <full|reporting>
  keys:list <customer-id>
  keys:revoke <key-id>
  operators:create --email <e-mail> --role <owner|admin|support>   password from OPERATOR_PASSWORD, else one is made and printed once
  operators:list
  env                                       every environment variable with its default`;

type Call = { method: string; path: string; body?: unknown };

/** `--name value` pairs after the command. */
function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? undefined : args[at + 1];
}

function toCall(args: string[]): Call | null {
  const [command, a, b, c] = args;
  if (command === "operators:create") {
    const email = option(args, "email");
    const role = option(args, "role");
    return email && role
      ? { method: "POST", path: "/admin/v1/operators", body: { email, role, password: process.env.OPERATOR_PASSWORD ?? generatedPassword } }
      : null;
  }
  switch (command) {
    case "customers:list":
      return { method: "GET", path: "/admin/v1/customers?limit=100" };
    case "customers:create":
      return a ? { method: "POST", path: "/admin/v1/customers", body: { name: a } } : null;
    case "customers:get":
      return a ? { method: "GET", path: `/admin/v1/customers/${a}` } : null;
    case "customers:update":
      return a && b ? { method: "PATCH", path: `/admin/v1/customers/${a}`, body: JSON.parse(b) } : null;
    case "keys:create":
      return a && b && c ? { method: "POST", path: `/admin/v1/customers/${a}/keys`, body: { service: b, scope: c } } : null;
    case "keys:list":
      return a ? { method: "GET", path: `/admin/v1/customers/${a}/keys` } : null;
    case "keys:revoke":
      return a ? { method: "DELETE", path: `/admin/v1/keys/${a}` } : null;
    case "operators:list":
      return { method: "GET", path: "/admin/v1/operators" };
    default:
      return null;
  }
}

async function viaServer(call: Call, base: string, token: string): Promise<Response | null> {
  try {
    return await fetch(`${base}${call.path}`, {
      method: call.method,
      headers: { authorization: `Bearer ${token}`, ...(call.body ? { "content-type": "application/json" } : {}) },
      body: call.body ? JSON.stringify(call.body) : undefined,
      signal: AbortSignal.timeout(10_000),
    });
  } catch {
    return null;
  }
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args[0] === "env") {
    for (const v of describeEnvironment()) process.stdout.write(`${v.name}=${v.default ?? ""}\n    ${v.description}\n`);
    return 0;
  }
  const call = toCall(args);
  if (!call) {
    process.stderr.write(`${usage}\n`);
    return 2;
  }
  const config = loadConfig();
  const server = runningServer(config.DATA_DIR);
  // The running server's CLI token (server.json, this machine only); a server from before it had one takes the shared token.
  const token = server?.cliToken ?? config.ADMIN_TOKEN ?? readTokenFile(config.DATA_DIR);
  let response: Response | null = null;
  if (server) {
    response = token ? await viaServer(call, server.url, token) : null;
    if (!response) {
      process.stderr.write(
        `The server at ${server.url} (pid ${server.pid}) holds the data directory ${config.DATA_DIR} but did not answer${token ? "" : " (no operator token: set ADMIN_TOKEN)"}; try again, or stop it and run the command without a server.\n`,
      );
      return 1;
    }
  } else {
    const runtime = await bootRuntime();
    // In-process: the admin app takes the CLI as its caller directly (audited as `cli`), no token involved.
    const actor: OperatorActor = { type: "cli", role: "owner", operatorId: null, tokenId: null, sessionId: null };
    response = await runtime.app.root.request(
      call.path,
      {
        method: call.method,
        headers: call.body ? { "content-type": "application/json" } : {},
        body: call.body ? JSON.stringify(call.body) : undefined,
      },
      asOperator(undefined, actor),
    );
    await runtime.close();
  }
  const text = await response.text();
  process.stdout.write(`${JSON.stringify(JSON.parse(text), null, 2)}\n`);
  if (response.ok && args[0] === "operators:create" && !process.env.OPERATOR_PASSWORD) {
    process.stdout.write(`Password (shown this once; sign in at /console and keep it safe): ${generatedPassword}\n`);
  }
  return response.ok ? 0 : 1;
}

function readTokenFile(dataDir: string): string | null {
  try {
    return readFileSync(join(dataDir, "admin-token"), "utf8").trim();
  } catch {
    return null;
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
