import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";

/**
 * Debian's Chromium for the browser tests (the console, the API docs pages), started the way this machine's
 * closed network needs: headless, a fresh profile, no background networking, sync or component updates.
 */
export const CHROMIUM = "/usr/bin/chromium";
export const chromiumPresent = existsSync(CHROMIUM);
if (!chromiumPresent && process.env.CI) throw new Error(`${CHROMIUM} is missing: .ci/run installs it (apt-get install -y chromium) before the tests`);

export type OfflineBrowser = {
  context: BrowserContext;
  /** Every request that tried to leave `origin` (each was refused). */
  outside: string[];
  close(): Promise<void>;
};

/**
 * A browser that may reach `origin` (and `alsoOrigins`, other loopback servers a test runs, and inline
 * `data:`/`blob:` URLs) only: any other request is recorded and refused.
 */
export async function launchOfflineChromium(options: {
  origin: string;
  alsoOrigins?: string[];
  profilePrefix: string;
  viewport: { width: number; height: number };
}): Promise<OfflineBrowser> {
  const profile = mkdtempSync(join(tmpdir(), options.profilePrefix));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: options.viewport,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const outside: string[] = [];
  await context.route("**/*", (route) => {
    const url = route.request().url();
    const allowed = [options.origin, ...(options.alsoOrigins ?? [])].some((o) => url.startsWith(`${o}/`));
    if (allowed || url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
    outside.push(url);
    return route.abort();
  });
  return {
    context,
    outside,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/**
 * axe-core run in the page: its serious and critical violations, as `id (impact)`. `exclude`: selectors of a
 * customer's own content (a design sample in the customer's colours), not the console's to judge.
 */
export async function seriousViolations(page: Page, exclude: string[] = []): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async (excluded) => {
    type Violation = { id: string; impact: string | null };
    const axe = (window as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: Violation[] }> } }).axe;
    const result = await axe.run(excluded.length > 0 ? { exclude: excluded.map((s) => [s]) } : document, { resultTypes: ["violations"] });
    return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id} (${v.impact})`);
  }, exclude);
}
