import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { serve, type ServerType } from "@hono/node-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createAd, createAdsWorld, onboardedCustomer, type AdsWorld } from "../ads/support/ads-world";
import { describeResponse, type Harness } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { makeOperator, type TestOperator } from "../helpers/operators";

/**
 * The MCP server at `/mcp` (and over stdio), driven by the SDK's own client against the running service.
 * Which tools a credential gets is checked against the service itself, not against the server's own
 * reading of the documents: every operation behind a listed tool answers that credential with something
 * other than 401/403 over plain HTTP, and every JSON operation of the service that is not listed answers 403.
 */

type Tool = { name: string; description?: string; annotations?: Record<string, unknown>; inputSchema: { properties?: Record<string, unknown> } };
type ToolResult = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> };
type DocOperation = {
  operationId: string;
  parameters?: ({ in: string; name: string } | { $ref: string })[];
  requestBody?: { content?: Record<string, unknown> };
};
type Document = { paths: Record<string, Record<string, DocOperation>> };

let world: AdsWorld;
let h: Harness;
let url: string;
let server: ServerType;
let mailCustomer: Awaited<ReturnType<typeof readyMailCustomer>>;
let adsCustomer: Awaited<ReturnType<typeof onboardedCustomer>>;
const operators: Partial<Record<"owner" | "admin" | "support", TestOperator>> = {};
const clients: Client[] = [];
const randomId = "0f8fad5b-d9cb-469f-a165-70867728950e";

beforeAll(async () => {
  world = await createAdsWorld({ AUTH_FAILURES_PER_MINUTE: "1000000", RATE_LIMIT_PER_MINUTE: "1000000" });
  h = world.h;
  const listening = await new Promise<{ server: ServerType; port: number }>((resolve) => {
    const s = serve({ fetch: h.root.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) => resolve({ server: s, port: info.port }));
  });
  server = listening.server;
  // The probes between two MCP calls run in this process for seconds: an idle keep-alive socket the server
  // closes at its default 5 s while the client reuses it would read as ECONNRESET.
  (server as unknown as { keepAliveTimeout: number }).keepAliveTimeout = 600_000;
  url = `http://127.0.0.1:${listening.port}`;
  mailCustomer = await readyMailCustomer(h, "MCP mail");
  adsCustomer = await onboardedCustomer(world, "MCP ads");
  for (const role of ["owner", "admin", "support"] as const) operators[role] = await makeOperator(h, role);
}, 600_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await new Promise((resolve) => server.close(resolve));
  await world.close();
});

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: "mcp-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function tools(client: Client): Promise<Tool[]> {
  return (await client.listTools()).tools as Tool[];
}

async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

/** A field of a tool's structured answer. */
const field = <T>(result: ToolResult, name: string): T => (result.structuredContent as Record<string, unknown>)[name] as T;

const operationName = (operationId: string) => operationId.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();

/** The service's answer to `token` for one operation, called so that it changes nothing: a random id, or a body that is not JSON. */
async function httpProbe(service: string, method: string, path: string, operation: DocOperation, token: string): Promise<number | null> {
  const hasPathParam = path.includes("{");
  const jsonBody = Boolean(operation.requestBody?.content?.["application/json"]);
  if (method !== "get" && !hasPathParam && !jsonBody) return null;
  const r = await h.call("GET" === method.toUpperCase() ? "GET" : method.toUpperCase(), `/${service}${path.replace(/\{[^}]+\}/g, randomId)}`, {
    key: token,
    ...(jsonBody && method !== "get" ? { rawBody: "{not json", headers: { "content-type": "application/json" } } : {}),
  });
  return r.status;
}

describe("tools follow the credential's access, as the service enforces it", () => {
  const cases = () =>
    [
      ["mail", "full", mailCustomer.mailFull],
      ["mail", "reporting", mailCustomer.mailReporting],
      ["ads", "full", adsCustomer.adsFull],
      ["ads", "reporting", adsCustomer.adsReporting],
      ["admin", "owner", operators.owner?.token ?? ""],
      ["admin", "admin", operators.admin?.token ?? ""],
      ["admin", "support", operators.support?.token ?? ""],
    ] as const;

  test("every listed operation is callable over HTTP with the credential, every unlisted JSON operation is refused", async () => {
    const counts: Record<string, number> = {};
    for (const [service, label, token] of cases()) {
      const listed = new Set((await tools(await connect(token))).map((tool) => tool.name));
      const document = (await h.call<Document>("GET", `/${service}/v1/openapi.json`)).json;
      let checked = 0;
      for (const [path, item] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(item)) {
          if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
          const status = await httpProbe(service, method, path, operation, token);
          if (status === null) continue;
          const name = operationName(operation.operationId);
          if (listed.has(name)) expect([401, 403], `${service}/${label}: ${name} is a tool but HTTP answered ${status}`).not.toContain(status);
          else if (status !== 404 && status !== 405) {
            // Not JSON (an image, an upload) or not allowed: a JSON operation that is not a tool must be refused.
            const json = !(operation.requestBody?.content && !operation.requestBody.content["application/json"]);
            if (json && !["getBlockTile", "getAdTemplatePreviewImage", "uploadAssetFile"].includes(operation.operationId))
              expect(status, `${service}/${label}: ${name} is not a tool but HTTP answered ${status}`).toBe(403);
          }
          checked++;
        }
      }
      counts[`${service}/${label}`] = listed.size;
      expect(checked).toBeGreaterThan(10);
    }
    expect(counts["mail/reporting"]).toBeLessThan(counts["mail/full"]);
    expect(counts["ads/reporting"]).toBeLessThan(counts["ads/full"]);
    expect(counts["admin/support"]).toBeLessThan(counts["admin/admin"]);
    expect(counts["admin/admin"]).toBeLessThan(counts["admin/owner"]);
  }, 240_000);

  test("a reporting key has no write tool; support has only the writes support may use", async () => {
    for (const token of [mailCustomer.mailReporting, adsCustomer.adsReporting]) {
      const writes = (await tools(await connect(token))).filter((tool) => tool.annotations?.readOnlyHint !== true);
      expect(writes.map((tool) => tool.name)).toEqual([]);
    }
    const supportWrites = (await tools(await connect(operators.support?.token ?? ""))).filter((tool) => tool.annotations?.readOnlyHint !== true);
    const document = (
      await h.call<{ paths: Record<string, Record<string, { operationId: string; "x-required-role"?: string }>> }>("GET", "/admin/v1/openapi.json")
    ).json;
    const supportOperations = new Set(
      Object.values(document.paths)
        .flatMap((item) => Object.values(item))
        .filter((operation) => operation["x-required-role"] === "support")
        .map((operation) => operationName(operation.operationId)),
    );
    expect(supportWrites.length).toBeGreaterThan(0);
    for (const tool of supportWrites) expect(supportOperations.has(tool.name), tool.name).toBe(true);
    expect(supportWrites.map((tool) => tool.name)).not.toContain("create_customer");
  }, 60_000);

  test("annotations: reads are read-only, deletes and cancels destructive, creates not; writes carry an idempotency key", async () => {
    const byName = new Map((await tools(await connect(mailCustomer.mailFull))).map((tool) => [tool.name, tool]));
    expect(byName.get("get_template")?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName.get("delete_template")?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.get("cancel_send_job")?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.get("create_template")?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
    expect(byName.get("send_template")?.inputSchema.properties).toHaveProperty("idempotency_key");
    const admin = new Map((await tools(await connect(operators.owner?.token ?? ""))).map((tool) => [tool.name, tool]));
    expect(admin.get("revoke_api_key")?.annotations).toMatchObject({ destructiveHint: true });
    expect(admin.get("update_customer")?.annotations).toMatchObject({ destructiveHint: true });
  }, 60_000);
});

describe("calls", () => {
  async function transactionalTemplate(): Promise<{ id: string; params: { name: string; example: string }[] }> {
    const listed = await h.call<{ data: { id: string; kind: string; status: string; params: { name: string; example: string }[] }[] }>(
      "GET",
      "/mail/v1/templates",
      {
        key: mailCustomer.mailFull,
      },
    );
    const template = listed.json.data.find((item) => item.kind === "transactional" && item.status === "active");
    if (!template) throw new Error(`no active transactional template: ${describeResponse(listed)}`);
    return template;
  }

  test("a retried send with the same arguments sends one mail; a new idempotency_key sends again", async () => {
    const client = await connect(mailCustomer.mailFull);
    const template = await transactionalTemplate();
    const to = `retry-${crypto.randomUUID()}@example.com`;
    const params = Object.fromEntries(template.params.map((param) => [param.name, param.example]));
    const args = { id: template.id, body: { to, params } };
    const first = await callTool(client, "send_template", args);
    const second = await callTool(client, "send_template", args);
    expect(first.isError, JSON.stringify(first)).toBeFalsy();
    expect(second.structuredContent).toEqual(first.structuredContent);
    const sentTo = () => mailCustomer.simulator.messages({ to }).total;
    expect(sentTo()).toBe(1);
    const third = await callTool(client, "send_template", { ...args, idempotency_key: crypto.randomUUID() });
    expect(third.isError, JSON.stringify(third)).toBeFalsy();
    expect(sentTo()).toBe(2);
  }, 60_000);

  test("errors come back as tool errors with the API's envelope, never a stack", async () => {
    const client = await connect(mailCustomer.mailFull);
    const missing = await callTool(client, "get_message", { id: randomId });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toMatchObject({ status: 404, error: { code: "not_found" } });
    const invalid = await callTool(client, "create_template", { body: { name: "" } });
    expect(invalid.isError).toBe(true);
    expect(field<{ details: unknown[] }>(invalid, "error").details.length).toBeGreaterThan(0);
    const unknownArgument = await callTool(client, "get_message", { id: randomId, sql: "drop table" });
    expect(unknownArgument.structuredContent).toMatchObject({ error: { code: "invalid_arguments" } });
    const notATool = await callTool(await connect(mailCustomer.mailReporting), "send_template", { id: randomId, body: { to: "a@example.com" } });
    expect(notATool.isError).toBe(true);
    for (const result of [missing, invalid, unknownArgument, notATool]) expect(JSON.stringify(result)).not.toMatch(/\n\s+at |\.ts:\d+/);
  }, 60_000);

  test("composite tools: a test send of a template, then the story of the mail by its recipient", async () => {
    const client = await connect(mailCustomer.mailFull);
    const template = await transactionalTemplate();
    const to = `story-${crypto.randomUUID()}@example.com`;
    const sent = await callTool(client, "send_template_test", { template_id: template.id, to });
    expect(sent.isError, JSON.stringify(sent)).toBeFalsy();
    const messageId = field<{ message_id: string }>(sent, "result").message_id;
    expect(messageId).toMatch(/^[0-9a-f-]{36}$/);
    const story = await callTool(await connect(mailCustomer.mailReporting), "message_story", { recipient: to.toUpperCase() });
    expect(story.isError, JSON.stringify(story)).toBeFalsy();
    expect(field<{ id: string }[]>(story, "messages").map((message) => message.id)).toEqual([messageId]);
    expect(story.content[0]?.text).toContain(`Message ${messageId}`);
    expect(story.content[0]?.text).not.toContain(to);
    // The operator's story needs the customer; another customer's id finds nothing of this one.
    const operator = await connect(operators.support?.token ?? "");
    const own = await callTool(operator, "message_story", { customer_id: mailCustomer.id, recipient: to });
    expect(field<unknown[]>(own, "messages").length).toBe(1);
    const other = await callTool(operator, "message_story", { customer_id: adsCustomer.id, recipient: to });
    expect(other.structuredContent?.messages).toEqual([]);
  }, 60_000);

  test("why is an ad not running: a paused ad says so, from the live status and its ad set", async () => {
    const ad = await createAd(world, adsCustomer);
    const answer = await callTool(await connect(adsCustomer.adsReporting), "why_is_ad_not_running", { ad_id: ad.id });
    expect(answer.isError, JSON.stringify(answer)).toBeFalsy();
    expect(answer.structuredContent?.running).toBe(false);
    expect(answer.content[0]?.text).toMatch(/paused/i);
    expect(field<{ id: string }>(answer, "ad_set").id).toBe(ad.ad_set_id);
    const other = await callTool(await connect(adsCustomer.adsReporting), "why_is_ad_not_running", { ad_id: randomId });
    expect(other.structuredContent).toMatchObject({ status: 404 });
  }, 120_000);

  test("resources: the block library and the document", async () => {
    const client = await connect(mailCustomer.mailReporting);
    const listed = (await client.listResources()).resources.map((resource) => resource.uri);
    expect(listed).toEqual(expect.arrayContaining(["openapi://mail", "mail://blocks", "mail://templates", "mail://design-rules"]));
    const blocks = await client.readResource({ uri: "mail://blocks" });
    expect(JSON.parse(String((blocks.contents[0] as { text: string }).text)).data.length).toBeGreaterThan(0);
    const document = await client.readResource({ uri: "openapi://mail" });
    expect(JSON.parse(String((document.contents[0] as { text: string }).text)).paths).toHaveProperty("/v1/templates");
  }, 60_000);
});

describe("transport", () => {
  test("no credential or a wrong one: 401 with a Bearer challenge; GET answers 405", async () => {
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    };
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const none = await fetch(`${url}/mcp`, { method: "POST", headers, body: JSON.stringify(initialize) });
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
    const wrong = await fetch(`${url}/mcp`, {
      method: "POST",
      headers: { ...headers, authorization: "Bearer mk_live_notakey" },
      body: JSON.stringify(initialize),
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).not.toContain("mk_live_notakey");
    expect((await fetch(`${url}/mcp`, { headers: { authorization: `Bearer ${mailCustomer.mailFull}` } })).status).toBe(405);
  });

  test("stdio: the same tools for the same key, from the command-line server", async () => {
    const repo = join(import.meta.dirname, "..", "..");
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["--conditions=source", "--import", "tsx", join(repo, "packages/mcp/src/cli.ts"), "--base-url", url],
      env: { ...process.env, MAIL_ADS_API_KEY: mailCustomer.mailReporting } as Record<string, string>,
      cwd: repo,
      stderr: "pipe",
    });
    const client = new Client({ name: "mcp-stdio-test", version: "1.0.0" });
    await client.connect(transport);
    clients.push(client);
    const overStdio = (await tools(client)).map((tool) => tool.name).sort();
    const overHttp = (await tools(await connect(mailCustomer.mailReporting))).map((tool) => tool.name).sort();
    expect(overStdio).toEqual(overHttp);
    const usage = await callTool(client, "get_usage", {});
    expect(usage.isError, JSON.stringify(usage)).toBeFalsy();
  }, 60_000);
});
