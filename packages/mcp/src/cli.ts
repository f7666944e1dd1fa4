#!/usr/bin/env node
import { parseArgs } from "node:util";
import { resilientFetch } from "@mail-ads/client";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CredentialError, createMcpServer } from "./server.js";

const USAGE = `Usage: mail-ads-mcp --base-url https://api.example.com

Serves the mail, ads or admin API as MCP tools over stdio, for the credential in the environment:
  MAIL_ADS_API_KEY   a customer's key (mk_live_… mail, ak_live_… ads) or an operator's token (op_live_…)
  MAIL_ADS_BASE_URL  the deployment's root, instead of --base-url`;

const { values } = parseArgs({ options: { "base-url": { type: "string" }, help: { type: "boolean", short: "h" } } });
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const baseUrl = values["base-url"] ?? process.env.MAIL_ADS_BASE_URL;
const token = process.env.MAIL_ADS_API_KEY;
if (!baseUrl || !token) {
  process.stderr.write(`${USAGE}\n\nmail-ads-mcp: ${baseUrl ? "MAIL_ADS_API_KEY is not set" : "no --base-url"}\n`);
  process.exit(2);
}
// 429 and 503 retried after Retry-After; writes keep the Idempotency-Key the tool set.
const fetch = resilientFetch((request) => globalThis.fetch(request), {}, false);
try {
  const server = await createMcpServer({ baseUrl, token, fetch });
  await server.connect(new StdioServerTransport());
} catch (error) {
  // stdout is the protocol's channel: what went wrong goes to stderr, without a stack.
  const message = error instanceof CredentialError || error instanceof Error ? error.message : String(error);
  process.stderr.write(`mail-ads-mcp: ${message}\n`);
  process.exit(1);
}
