import { once } from "node:events";
import { createServer as createHttpsServer, type Server } from "node:https";
import net, { type AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import { generate } from "selfsigned";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  assertOutboundUrl,
  createSafeFetch,
  OutboundError,
  type OutboundErrorReason,
  type ResolvedAddress,
  type SafeFetchOptions,
} from "../../lib/core/outbound/safe-fetch";

/**
 * Everything here stays on loopback. Requests that must be refused run under a guard that replaces
 * `net.Socket#connect` (which TLS sockets use too): if the client ever tried to dial, the guard records it
 * and fails the socket instead of touching the network, so "blocked before any connection" is proven
 * rather than assumed.
 */

type Seen = { path: string; host: string | undefined; servername: string | false | null; body: string };

type LocalServer = { server: Server; port: number; connections: number; seen: Seen[] };

let cert: { key: string; cert: string };
let v4: LocalServer;
let v6: LocalServer;

async function startServer(host: string): Promise<LocalServer> {
  const state: LocalServer = { server: createHttpsServer(cert), port: 0, connections: 0, seen: [] };
  state.server.on("connection", () => {
    state.connections += 1;
  });
  state.server.on("request", (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = new URL(req.url ?? "/", "https://local.invalid").pathname;
      state.seen.push({
        path: req.url ?? "",
        host: req.headers.host,
        servername: (req.socket as TLSSocket).servername,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      if (path === "/ok") {
        res.writeHead(200, { "content-type": "text/plain", "x-test": "yes" }).end("hello");
      } else if (path === "/echo") {
        res
          .writeHead(201, { "content-type": "application/json" })
          .end(JSON.stringify({ method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") }));
      } else if (path === "/redirect") {
        res.writeHead(302, { location: `https://127.0.0.1:${state.port}/ok` }).end();
      } else if (path === "/big") {
        res.writeHead(200, { "content-length": "2000" }).end(Buffer.alloc(2000, 1));
      } else if (path === "/big-chunked") {
        // No Content-Length: the limit has to be enforced while streaming.
        res.writeHead(200);
        for (let i = 0; i < 20; i += 1) res.write(Buffer.alloc(100, 1));
        res.end();
      } else if (path === "/exact") {
        res.writeHead(200).end(Buffer.alloc(1000, 2));
      } else if (path === "/slow") {
        // Never answers; the client's deadline must end it.
      } else if (path === "/stall-body") {
        res.writeHead(200);
        res.write("partial");
      } else {
        res.writeHead(404).end();
      }
    });
  });
  state.server.listen(0, host);
  await once(state.server, "listening");
  state.port = (state.server.address() as AddressInfo).port;
  return state;
}

async function stopServer(state: LocalServer): Promise<void> {
  state.server.closeAllConnections();
  state.server.close();
  await once(state.server, "close");
}

beforeAll(async () => {
  const pems = await generate([{ name: "commonName", value: "pinned.test" }], {
    keyType: "ec",
    algorithm: "sha256",
    extensions: [
      { name: "basicConstraints", cA: true },
      {
        name: "subjectAltName",
        altNames: [
          { type: 2, value: "pinned.test" },
          { type: 2, value: "localhost" },
          { type: 7, ip: "127.0.0.1" },
          { type: 7, ip: "::1" },
        ],
      },
    ],
  });
  cert = { key: pems.private, cert: pems.cert };
  v4 = await startServer("127.0.0.1");
  v6 = await startServer("::1");
});

afterAll(async () => {
  await Promise.all([stopServer(v4), stopServer(v6)]);
});

/** A resolver that only ever answers from a fixed table and records what it was asked. */
function tableResolver(table: Record<string, string[]>) {
  const asked: string[] = [];
  const resolver = async (hostname: string): Promise<ResolvedAddress[]> => {
    asked.push(hostname);
    const answers = table[hostname];
    if (!answers) throw Object.assign(new Error(`no such host ${hostname}`), { code: "ENOTFOUND" });
    return answers.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return { resolver, asked };
}

function loopbackFetch(extra: SafeFetchOptions = {}) {
  return createSafeFetch({ allowLoopbackForTests: true, trustedCa: cert.cert, ...extra });
}

async function failure(promise: Promise<unknown>): Promise<OutboundError> {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!("error" in outcome)) throw new Error(`expected an OutboundError, got ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(OutboundError);
  return outcome.error as OutboundError;
}

async function expectReason(promise: Promise<unknown>, reason: OutboundErrorReason): Promise<OutboundError> {
  const error = await failure(promise);
  expect(error.reason, error.message).toBe(reason);
  return error;
}

describe("safeFetch against a local https server (loopback allowed for tests)", () => {
  it("returns status, headers and body", async () => {
    const res = await loopbackFetch()(`https://127.0.0.1:${v4.port}/ok`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-test")).toBe("yes");
    expect(res.body.toString("utf8")).toBe("hello");
  });

  it("sends method, body and headers, but keeps Host and framing headers its own", async () => {
    const res = await loopbackFetch({ userAgent: "test-agent/1" })(`https://127.0.0.1:${v4.port}/echo?q=1`, {
      method: "POST",
      headers: { "content-type": "application/json", host: "internal.example", "Content-Length": "1" },
      body: JSON.stringify({ hello: "world" }),
    });
    expect(res.status, res.body.toString("utf8")).toBe(201);
    const echoed = JSON.parse(res.body.toString("utf8")) as { method: string; headers: Record<string, string>; body: string };
    expect(echoed.method).toBe("POST");
    expect(echoed.body).toBe('{"hello":"world"}');
    expect(echoed.headers.host).toBe(`127.0.0.1:${v4.port}`);
    expect(echoed.headers["content-length"]).toBe("17");
    expect(echoed.headers["user-agent"]).toBe("test-agent/1");
    expect(echoed.headers["content-type"]).toBe("application/json");
  });

  it("reaches an IPv6 loopback literal", async () => {
    const res = await loopbackFetch()(`https://[::1]:${v6.port}/ok`);
    expect(res.body.toString("utf8")).toBe("hello");
  });

  it("refuses a body larger than maxBytes, declared or streamed", async () => {
    const safeFetch = loopbackFetch();
    await expectReason(safeFetch(`https://127.0.0.1:${v4.port}/big`, { maxBytes: 1000 }), "too_large");
    await expectReason(safeFetch(`https://127.0.0.1:${v4.port}/big-chunked`, { maxBytes: 1000 }), "too_large");
    const exact = await safeFetch(`https://127.0.0.1:${v4.port}/exact`, { maxBytes: 1000 });
    expect(exact.body.length).toBe(1000);
  });

  it("gives up at the deadline, before headers or in the middle of the body", async () => {
    const safeFetch = loopbackFetch();
    await expectReason(safeFetch(`https://127.0.0.1:${v4.port}/slow`, { timeoutMs: 200 }), "timeout");
    await expectReason(safeFetch(`https://127.0.0.1:${v4.port}/stall-body`, { timeoutMs: 200 }), "timeout");
  });

  it("stops at the connect timeout when the TLS handshake never completes", async () => {
    // A TCP listener that accepts and stays silent.
    const silent = net.createServer(() => undefined);
    silent.listen(0, "127.0.0.1");
    await once(silent, "listening");
    const { port } = silent.address() as AddressInfo;
    try {
      const error = await expectReason(loopbackFetch({ connectTimeoutMs: 150 })(`https://127.0.0.1:${port}/`, { timeoutMs: 10_000 }), "timeout");
      expect(error.message).toMatch(/Connecting/);
    } finally {
      silent.close();
    }
  });

  it("returns a 302 as redirect_not_allowed and never follows it", async () => {
    const before = v4.seen.filter((s) => s.path === "/ok").length;
    const error = await expectReason(loopbackFetch()(`https://127.0.0.1:${v4.port}/redirect`), "redirect_not_allowed");
    expect(error.status).toBe(302);
    expect(error.location).toBe(`https://127.0.0.1:${v4.port}/ok`);
    expect(v4.seen.filter((s) => s.path === "/ok").length).toBe(before);
  });

  it("rejects http even with the loopback allowance, without connecting", async () => {
    const before = v4.connections;
    await expectReason(loopbackFetch()(`http://127.0.0.1:${v4.port}/ok`), "scheme_not_allowed");
    expect(v4.connections).toBe(before);
  });

  it("reports an untrusted certificate as tls_error", async () => {
    await expectReason(createSafeFetch({ allowLoopbackForTests: true })(`https://127.0.0.1:${v4.port}/ok`), "tls_error");
  });

  it("reports a refused connection as connection_failed", async () => {
    const closed = net.createServer();
    closed.listen(0, "127.0.0.1");
    await once(closed, "listening");
    const { port } = closed.address() as AddressInfo;
    closed.close();
    await once(closed, "close");
    await expectReason(loopbackFetch()(`https://127.0.0.1:${port}/`), "connection_failed");
  });

  it("reports the caller's own cancel as aborted", async () => {
    const controller = new AbortController();
    const pending = loopbackFetch()(`https://127.0.0.1:${v4.port}/slow`, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expectReason(pending, "aborted");
    await expectReason(loopbackFetch()(`https://127.0.0.1:${v4.port}/ok`, { signal: AbortSignal.abort() }), "aborted");
  });

  it("pins the connection to the checked address while Host and SNI keep the name", async () => {
    const { resolver, asked } = tableResolver({ "pinned.test": ["127.0.0.1"] });
    const res = await loopbackFetch({ resolver })(`https://pinned.test:${v4.port}/ok?via=pin`);
    expect(res.status, res.body.toString("utf8")).toBe(200);
    const seen = v4.seen.find((s) => s.path === "/ok?via=pin");
    expect(seen).toEqual({ path: "/ok?via=pin", host: `pinned.test:${v4.port}`, servername: "pinned.test", body: "" });
    // DNS is asked exactly once: the socket's lookup answers from the checked result, not a second query.
    expect(asked).toEqual(["pinned.test"]);
  });

  it("verifies the certificate against the name, not the pinned address", async () => {
    // The certificate covers pinned.test but not other.test, although both resolve to the same address.
    const { resolver } = tableResolver({ "other.test": ["127.0.0.1"] });
    await expectReason(loopbackFetch({ resolver })(`https://other.test:${v4.port}/ok`), "tls_error");
  });
});

describe("refused before any connection", () => {
  const dialled: string[] = [];

  beforeEach(() => {
    dialled.length = 0;
    vi.spyOn(net.Socket.prototype, "connect").mockImplementation(function guard(this: net.Socket, ...args: unknown[]) {
      dialled.push(JSON.stringify(args[0]));
      // Failed on the next tick: TLS still configures the socket synchronously after `connect` returns.
      process.nextTick(() => this.destroy(new Error("test guard: a connection was attempted")));
      return this;
    });
  });

  afterEach(() => {
    vi.restoreAllMocks();
    expect(dialled, "no socket may be dialled").toEqual([]);
  });

  const loopbackUrls = () => [
    `https://127.0.0.1:${v4.port}/ok`,
    `https://127.1:${v4.port}/ok`,
    `https://[::1]:${v6.port}/ok`,
    `https://[::ffff:127.0.0.1]:${v4.port}/ok`,
    `https://2130706433:${v4.port}/ok`,
    `https://0x7f000001:${v4.port}/ok`,
    `https://0177.0.0.1:${v4.port}/ok`,
    `https://0.0.0.0:${v4.port}/ok`,
    `https://[::]:${v6.port}/ok`,
    `https://localhost:${v4.port}/ok`,
    `https://LOCALHOST.:${v4.port}/ok`,
    `https://api.localhost:${v4.port}/ok`,
  ];

  it("blocks every loopback spelling when the test allowance is off, without resolving or connecting", async () => {
    const { resolver, asked } = tableResolver({ localhost: ["127.0.0.1"], "api.localhost": ["127.0.0.1"] });
    const safeFetch = createSafeFetch({ resolver, trustedCa: cert.cert });
    const before = { v4: v4.connections, v6: v6.connections };
    for (const url of loopbackUrls()) {
      const error = await failure(safeFetch(url));
      expect(error.reason, `${url}: ${error.message}`).toBe("blocked_address");
    }
    expect(asked).toEqual([]);
    expect({ v4: v4.connections, v6: v6.connections }).toEqual(before);
  });

  it.each([
    ["ftp://127.0.0.1/file", "scheme_not_allowed"],
    ["data:text/plain,hello", "scheme_not_allowed"],
    ["file:///etc/passwd", "scheme_not_allowed"],
    ["http://example.test/", "scheme_not_allowed"],
    ["https://user:secret@example.test/", "invalid_url"],
    ["https://user@example.test/", "invalid_url"],
    ["not a url", "invalid_url"],
    ["https://", "invalid_url"],
  ] as const)("%s -> %s", async (url, reason) => {
    const { resolver, asked } = tableResolver({ "example.test": ["127.0.0.1"] });
    await expectReason(createSafeFetch({ resolver, allowLoopbackForTests: true })(url), reason);
    expect(asked).toEqual([]);
  });

  describe.each([false, true])("resolved addresses (allowLoopbackForTests: %s)", (allowLoopbackForTests) => {
    it.each([
      "10.0.0.5",
      "192.168.1.1",
      "172.16.0.1",
      "169.254.169.254",
      "fd00::1",
      "fe80::1",
      "::ffff:10.0.0.1",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "2002:a00:1::1",
      "64:ff9b::a9fe:a9fe",
    ])("example.test -> %s is blocked", async (address) => {
      const { resolver, asked } = tableResolver({ "example.test": [address] });
      await expectReason(createSafeFetch({ resolver, allowLoopbackForTests })("https://example.test/"), "blocked_address");
      expect(asked).toEqual(["example.test"]);
    });

    it.each([
      ["8.8.8.8", "10.0.0.5"],
      ["10.0.0.5", "8.8.8.8"],
      ["2606:4700:4700::1111", "fd00::1"],
      ["127.0.0.1", "192.168.1.1"],
    ])("checks every answer: [%s, %s] is blocked", async (first, second) => {
      const { resolver } = tableResolver({ "example.test": [first, second] });
      await expectReason(createSafeFetch({ resolver, allowLoopbackForTests })("https://example.test/"), "blocked_address");
    });
  });

  it("turns resolver failures and empty answers into dns_failure", async () => {
    const { resolver } = tableResolver({ "empty.test": [] });
    const safeFetch = createSafeFetch({ resolver });
    await expectReason(safeFetch("https://missing.test/"), "dns_failure");
    await expectReason(safeFetch("https://empty.test/"), "dns_failure");
  });

  it("applies the deadline to a resolver that never answers", async () => {
    const safeFetch = createSafeFetch({ resolver: () => new Promise<ResolvedAddress[]>(() => undefined) });
    await expectReason(safeFetch("https://hangs.test/", { timeoutMs: 100 }), "timeout");
  });
});

describe("assertOutboundUrl (registration-time check, no DNS)", () => {
  it.each([
    ["https://hooks.example.com/in", null],
    ["https://93.184.216.34/in", null],
    ["http://hooks.example.com/in", "scheme_not_allowed"],
    ["https://127.0.0.1/in", "blocked_address"],
    ["https://[::ffff:127.0.0.1]/in", "blocked_address"],
    ["https://2130706433/in", "blocked_address"],
    ["https://localhost/in", "blocked_address"],
    ["https://10.1.2.3/in", "blocked_address"],
    ["https://a:b@hooks.example.com/in", "invalid_url"],
  ] as const)("%s -> %s", (url, reason) => {
    let caught: unknown = null;
    try {
      assertOutboundUrl(url);
    } catch (error) {
      caught = error;
    }
    if (reason === null) expect(caught).toBeNull();
    else expect(caught).toMatchObject({ name: "OutboundError", reason });
  });
});
