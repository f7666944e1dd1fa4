import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import type { BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CHROMIUM, chromiumPresent, launchOfflineChromium, type OfflineBrowser } from "../helpers/chromium";
import { createHarness, type Harness } from "../helpers/harness";

/**
 * The three API docs pages (Scalar) in Debian's Chromium, served by the app over loopback: each page renders
 * its document and makes no request that leaves our origin (Scalar's agent, proxy, hosted client, telemetry and
 * fonts are off, lib/core/docs.ts), and the page's Content-Security-Policy is never violated (so it allows what
 * the page needs and nothing else). Every request to another origin is recorded and refused.
 */

const PAGES = [
  { path: "/mail/v1/docs", title: "Mail service API" },
  { path: "/ads/v1/docs", title: "Ads service API" },
  { path: "/admin/v1/docs", title: "Admin API" },
];

let h: Harness;
let server: ServerType;
let origin: string;
let context: BrowserContext;
let browser: OfflineBrowser | undefined;

(chromiumPresent ? describe : describe.skip)(
  chromiumPresent ? "API docs pages in Chromium" : `API docs pages in Chromium — skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`,
  () => {
    beforeAll(async () => {
      h = await createHarness();
      server = await new Promise<ServerType>((resolve) => {
        const s = serve({ fetch: h.root.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
      });
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      // Nothing leaves our origin: any other request is recorded and refused.
      browser = await launchOfflineChromium({ origin, profilePrefix: "docs-chromium-", viewport: { width: 1280, height: 900 } });
      context = browser.context;
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
      await h?.close();
    });

    for (const { path, title } of PAGES) {
      test(`${path}: renders its document, nothing leaves our origin, the CSP holds`, async () => {
        const page = await context.newPage();
        const violations: string[] = [];
        page.on("console", (message) => {
          const text = message.text();
          // zod's feature probe (`try { new Function("") } catch`) is refused by the CSP on purpose and falls back.
          if (/Content Security Policy/i.test(text) && text !== "Content Security Policy: script-src eval") violations.push(text);
        });
        try {
          let scriptEncoding: string | undefined;
          page.on("response", (response) => {
            if (response.url().includes("/docs/scalar.js")) scriptEncoding = response.headers()["content-encoding"];
          });
          await page.addInitScript(() => {
            document.addEventListener("securitypolicyviolation", (event) =>
              console.error(`Content Security Policy: ${event.violatedDirective} ${event.blockedURI}`),
            );
          });
          const response = await page.goto(`${origin}${path}`, { waitUntil: "load" });
          expect(response?.status()).toBe(200);
          expect(response?.headers()["content-security-policy"]).toContain("default-src 'none'");
          // Scalar rendered the document: its title as a heading, and an operation of the document listed.
          await page.getByRole("heading", { name: title }).first().waitFor({ timeout: 30_000 });
          await expect.poll(() => page.locator("text=/health|customers/i").count(), { timeout: 30_000 }).toBeGreaterThan(0);
          // Scalar's late requests (the agent, telemetry, a proxy probe) would come after the first render.
          await page.waitForLoadState("networkidle");
          expect(scriptEncoding, "scalar.js is sent compressed").toMatch(/^(br|gzip)$/);
          expect(browser?.outside).toEqual([]);
          expect(violations).toEqual([]);
          // No "Ask AI" and no "Open API Client" button (client.scalar.com) on the page ("Powered by Scalar" stays: a link, no request).
          expect(await page.getByText("Ask AI").count()).toBe(0);
          expect(await page.locator('a[href*="client.scalar.com"]').count()).toBe(0);
        } finally {
          await page.close();
        }
      }, 90_000);
    }
  },
);
