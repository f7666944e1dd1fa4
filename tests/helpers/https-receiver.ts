import { once } from "node:events";
import { createServer, type Server } from "node:https";
import type { IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { generate } from "selfsigned";

export type ReceivedRequest = { method: string; path: string; headers: IncomingHttpHeaders; body: string };

/**
 * A third party's https endpoint on loopback (a customer's webhook receiver, the billing system) with its
 * own self-signed certificate. Our SSRF-safe client reaches it only through the test-only settings
 * `ALLOW_LOOPBACK_OUTBOUND=true` and `OUTBOUND_TRUSTED_CA=<ca>`. Records every request and answers 200.
 */
export async function startHttpsReceiver(commonName: string) {
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
      received.push({ method: req.method ?? "", path: req.url ?? "/", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
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
