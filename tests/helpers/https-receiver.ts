import { createHmac, timingSafeEqual } from "node:crypto";
import { once } from "node:events";
import { createServer, type Server } from "node:https";
import type { IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { generate } from "selfsigned";

export type ReceivedRequest = { method: string; path: string; headers: IncomingHttpHeaders; body: string };
export type ReceiverAnswer = { status: number; headers?: Record<string, string>; body?: string };

/**
 * A third party's https endpoint on loopback (a customer's webhook receiver, the billing system) with its
 * own self-signed certificate. Our SSRF-safe client reaches it only through the test-only settings
 * `ALLOW_LOOPBACK_OUTBOUND=true` and `OUTBOUND_TRUSTED_CA=<ca>`. Records every request; answers 200 with
 * `{"ok":true}` unless `answer` (called per request, after it is recorded) says otherwise.
 */
export async function startHttpsReceiver(commonName: string, answer?: (request: ReceivedRequest) => ReceiverAnswer) {
  const pems = await generate([{ name: "commonName", value: commonName }], {
    keyType: "ec",
    algorithm: "sha256",
    extensions: [
      { name: "basicConstraints", cA: true },
      { name: "subjectAltName", altNames: [{ type: 7, ip: "127.0.0.1" }] },
    ],
  });
  const received: ReceivedRequest[] = [];
  const server: Server = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request = { method: req.method ?? "", path: req.url ?? "/", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      received.push(request);
      const reply = answer?.(request) ?? { status: 200 };
      res.writeHead(reply.status, reply.headers ?? { "content-type": "application/json" }).end(reply.body ?? (reply.status < 300 ? '{"ok":true}' : ""));
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ca: pems.cert,
    received,
    async close(): Promise<void> {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * A receiver's check of `X-Service-Signature` as a third party following Stripe's documented scheme
 * writes it (not our verifier): any `v1` equal to HMAC-SHA256 over "<t>.<raw body>", |now − t| ≤ 300 s.
 */
export function verifyStripeStyle(secret: string, rawBody: string, header: string, nowSeconds: number): { verified: boolean; timestamp: number } {
  const pairs = header.split(",").map((part) => part.split("=", 2));
  const t = pairs.find(([name]) => name === "t")?.[1] ?? "";
  const expected = createHmac("sha256", secret).update(`${t}.${rawBody}`).digest();
  const matches = pairs.some(([name, value]) => {
    const given = Buffer.from(name === "v1" ? (value ?? "") : "", "hex");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  const timestamp = Number(t);
  return { verified: secret !== "" && /^\d+$/.test(t) && matches && Math.abs(nowSeconds - timestamp) <= 300, timestamp };
}
