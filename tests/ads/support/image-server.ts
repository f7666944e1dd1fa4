import { once } from "node:events";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { generate } from "selfsigned";
import sharp from "sharp";

/**
 * An https server on loopback with its own self-signed certificate, serving the images a portal would
 * hand over by URL. Tests trust its certificate through the test-only `OUTBOUND_TRUSTED_CA` setting and
 * reach it through `ALLOW_LOOPBACK_OUTBOUND`; production has neither.
 */
export type ImageServer = {
  origin: string;
  /** The certificate to trust (PEM). */
  ca: string;
  /** Bytes served under each path, to prove they reach the platform unchanged. */
  files: Map<string, Buffer>;
  /** Holds the answers for `path` until the returned function is called (a slow origin, on cue). */
  hold(path: string): () => void;
  url(path: string): string;
  close(): Promise<void>;
};

async function picture(width: number, height: number, format: "jpeg" | "png" | "webp", seed: number): Promise<Buffer> {
  const image = sharp({ create: { width, height, channels: 3, background: { r: (seed * 37) % 256, g: (seed * 91) % 256, b: 120 } } });
  return image.toFormat(format).toBuffer();
}

export async function startImageServer(): Promise<ImageServer> {
  const pems = await generate([{ name: "commonName", value: "images.test" }], {
    keyType: "ec",
    algorithm: "sha256",
    extensions: [
      { name: "basicConstraints", cA: true },
      {
        name: "subjectAltName",
        altNames: [
          { type: 2, value: "localhost" },
          { type: 7, ip: "127.0.0.1" },
        ],
      },
    ],
  });
  const files = new Map<string, Buffer>([
    ["/square.jpg", await picture(1080, 1080, "jpeg", 1)],
    ["/square-2.jpg", await picture(1080, 1080, "jpeg", 2)],
    ["/square-3.jpg", await picture(1080, 1080, "jpeg", 3)],
    ["/portrait.png", await picture(1080, 1350, "png", 4)],
    ["/story.webp", await picture(1080, 1920, "webp", 5)],
    ["/landscape.jpg", await picture(1910, 1000, "jpeg", 6)],
    // 1.43:1 is none of the allowed ratios; 1:1.02 is within the ±3 % tolerance of 1:1.
    ["/odd-ratio.jpg", await picture(1000, 700, "jpeg", 7)],
    ["/nearly-square.png", await picture(1000, 1020, "png", 8)],
    // A GIF is an image, but not one the spec allows.
    ["/anim.gif", await picture(500, 500, "png", 9).then((png) => sharp(png).gif().toBuffer())],
    ["/not-an-image.jpg", Buffer.from("<html>surprise</html>")],
  ]);

  const held = new Map<string, Promise<void>>();
  const server: Server = createServer({ key: pems.private, cert: pems.cert }, async (req, res) => {
    const path = new URL(req.url ?? "/", "https://images.test").pathname;
    await held.get(path);
    const file = files.get(path);
    if (file) {
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": file.length }).end(file);
    } else if (path === "/redirect.jpg") {
      res.writeHead(302, { location: "/square.jpg" }).end();
    } else if (path === "/huge.jpg") {
      // Declares more than 30 MB; the client must give up before reading it.
      res.writeHead(200, { "content-type": "image/jpeg", "content-length": String(31 * 1024 * 1024) });
      res.write(Buffer.alloc(1024));
    } else {
      res.writeHead(404).end();
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    ca: pems.cert,
    files,
    hold(path) {
      let release = () => {};
      held.set(path, new Promise<void>((resolve) => (release = resolve)));
      return () => {
        held.delete(path);
        release();
      };
    },
    url: (path) => `${origin}${path}`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}
