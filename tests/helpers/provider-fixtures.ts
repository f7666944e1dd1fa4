import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

/**
 * Provider payloads copied from the providers' documentation and SDK test data (`tests/fixtures/providers/`,
 * each with its `_source`), and the two ways the tests use them: served to our clients by a loopback
 * server, and compared by shape with what our simulators answer for the same request.
 */
export type ProviderFixture = {
  _source: string;
  _note?: string;
  request?: { method: string; path: string; fields?: string; query?: Record<string, string> };
  status?: number;
  headers?: Record<string, string>;
  body: unknown;
};

export function providerFixture(provider: "postmark" | "graph", name: string): ProviderFixture {
  const fixture = JSON.parse(readFileSync(join(import.meta.dirname, "..", "fixtures", "providers", provider, `${name}.json`), "utf8")) as ProviderFixture;
  if (!/^https:\/\//.test(fixture._source)) throw new Error(`fixture ${provider}/${name} names no source URL`);
  return fixture;
}

const typeOf = (value: unknown) => (value === null ? "null" : Array.isArray(value) ? "array" : typeof value);

/**
 * Where `actual` differs in shape from `expected`: keys either side lacks and values of another JSON type,
 * recursively (an array by its first items). Keys under a path in `opaque` (Metadata, reason-code maps)
 * are data, not fields: only their container's type is compared.
 */
export function shapeDifferences(expected: unknown, actual: unknown, path = "", opaque: readonly string[] = []): string[] {
  const at = path || "(root)";
  if (typeOf(expected) !== typeOf(actual)) return [`${at}: ${typeOf(actual)} where the fixture has ${typeOf(expected)}`];
  if (opaque.includes(path.replace(/\[\]/g, ""))) return [];
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length === 0 || actual.length === 0) return [];
    return shapeDifferences(expected[0], actual[0], `${path}[]`, opaque);
  }
  if (typeOf(expected) !== "object") return [];
  const want = expected as Record<string, unknown>;
  const got = actual as Record<string, unknown>;
  const differences: string[] = [];
  for (const key of Object.keys(want)) {
    const child = path ? `${path}.${key}` : key;
    if (!(key in got)) differences.push(`${child}: missing (the fixture has it)`);
    else differences.push(...shapeDifferences(want[key], got[key], child, opaque));
  }
  for (const key of Object.keys(got)) if (!(key in want)) differences.push(`${path ? `${path}.${key}` : key}: not in the fixture`);
  return differences;
}

export type FixtureServer = { url: string; requests: { method: string; path: string; body: string }[]; close(): Promise<void> };

/** A loopback HTTP server answering each request with the fixture `answer` picks (404 when none). */
export async function serveFixtures(answer: (request: { method: string; url: URL; body: string }) => ProviderFixture | undefined): Promise<FixtureServer> {
  const requests: FixtureServer["requests"] = [];
  const read = (request: IncomingMessage) =>
    new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    });
  const server = createServer(async (request, response) => {
    const body = await read(request);
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    requests.push({ method: request.method ?? "GET", path: url.pathname, body });
    const fixture = answer({ method: request.method ?? "GET", url, body });
    if (!fixture) {
      response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ Message: `no fixture for ${request.method} ${url.pathname}` }));
      return;
    }
    response.writeHead(fixture.status ?? 200, { "content-type": "application/json", ...fixture.headers }).end(JSON.stringify(fixture.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
