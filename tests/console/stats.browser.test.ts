import { serve, type ServerType } from "@hono/node-server";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { registerSimulatorServers, seedDemoMail } from "../../lib/mail/seed";
import { createAd, graphControls, onboardedCustomer, runInsightsSnapshots, type AdsWorld } from "../ads/support/ads-world";
import { startImageServer, type ImageServer } from "../ads/support/image-server";
import { CHROMIUM, chromiumPresent, launchOfflineChromium, seriousViolations, type OfflineBrowser } from "../helpers/chromium";
import { createHarness, describeResponse, type Harness } from "../helpers/harness";
import { makeOperator } from "../helpers/operators";
import { freePort } from "../helpers/processes";
import { addRecipients, createJob, createNewsletter, waitForJob } from "../helpers/send-jobs";

/**
 * The console's charts in Debian's Chromium over loopback: a customer's mail per hour and
 * day (a send job through the Postmark simulator, its deliveries posted back as webhooks) and its ads'
 * insights per day and ad set by name (an ad delivering for three days on the Graph simulator, pulled by the
 * snapshot job). A support operator (read-only) sees both as uPlot charts, bundled with the console, with
 * their numbers in tables; nothing leaves our origin; axe finds no serious or critical violation.
 */
const DAY = 86_400_000;

let h: Harness;
let images: ImageServer;
let server: ServerType;
let origin: string;
let page: Page;
let browser: OfflineBrowser | undefined;

(chromiumPresent ? describe : describe.skip)(
  chromiumPresent ? "charts in the console" : `charts in the console — skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`,
  () => {
    beforeAll(async () => {
      const port = await freePort();
      origin = `http://127.0.0.1:${port}`;
      images = await startImageServer();
      h = await createHarness({
        postmarkWebhooks: true,
        env: { PUBLIC_BASE_URL: origin, ALLOW_LOOPBACK_OUTBOUND: "true", OUTBOUND_TRUSTED_CA: images.ca },
      });
      server = await new Promise<ServerType>((resolve) => {
        const s = serve({ fetch: h.root.fetch, port, hostname: "127.0.0.1" }, () => resolve(s));
      });
      browser = await launchOfflineChromium({ origin, profilePrefix: "stats-chromium-", viewport: { width: 1400, height: 900 } });
      page = browser.context.pages()[0] ?? (await browser.context.newPage());
      page.setDefaultTimeout(15_000);
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
      await h?.close();
      await images?.close();
    });

    test("a support operator sees the customer's mail per hour and day and its ad sets per day by name, and a job's own chart", async () => {
      // One customer with both services: onboarded for ads, set up for mail as an operator would.
      const world: AdsWorld = { h, images, sim: graphControls(h), close: async () => undefined };
      world.sim.advance(h.clock.now().getTime() - world.sim.now().getTime());
      const c = await onboardedCustomer(world, "Charts Co");
      await seedDemoMail(h.deps, c.id);
      await registerSimulatorServers(h.deps, c.id);

      const templateId = await createNewsletter(h, c.mailFull, "Charts news");
      const job = await createJob(h, c.mailFull, { template_id: templateId });
      await addRecipients(h, c.mailFull, job.id, [
        { email: "ann.charts@example.com" },
        { email: "bob.charts@example.com" },
        { email: "cat.charts@example.com" },
      ]);
      const started = await h.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: c.mailFull });
      expect(started.status, describeResponse(started)).toBe(200);
      await waitForJob(h, c.mailReporting, job.id, "completed");
      // The simulator's Delivery webhooks arrive over loopback; the chart waits for nothing but them.
      await h.deps.queue.idle();
      await h.deps.providers.postmarkSimulator?.simulator.whenIdle();
      await h.deps.queue.idle();

      const ad = await createAd(world, c, { status: "ACTIVE" });
      h.clock.advance(3 * DAY);
      world.sim.advance(3 * DAY);
      await runInsightsSnapshots(world, [c]);
      const adSets = await h.call<{ data: { id: string; name: string }[] }>("GET", "/ads/v1/adsets", { key: c.adsReporting });
      const adSetName = adSets.json.data.find((s) => s.id === ad.ad_set_id)?.name ?? "";
      expect(adSetName, describeResponse(adSets)).not.toBe("");

      const support = await makeOperator(h, "support");
      await page.goto(`${origin}/console/sign-in`);
      await page.getByLabel("E-mail").fill(support.email);
      await page.getByLabel("Password").fill(support.password);
      await page.keyboard.press("Enter");
      await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();

      // From the customer's messages to its charts.
      await page.goto(`${origin}/console/#/customers/${c.id}/messages`);
      await page.getByRole("link", { name: /^Charts: mail per hour or day/ }).click();
      await page.getByRole("img", { name: /^Mail per hour \(UTC\): sent \(accepted\), delivered, bounced/ }).waitFor();
      expect(await page.getByTestId("mail-totals").textContent()).toMatch(/^3 sent, 3 delivered \(100\.0 %\), 0 bounced/);
      const adsChart = page.getByRole("img", { name: new RegExp(`^Impressions per day and ad set, .*: ${adSetName}`) });
      await adsChart.waitFor();
      // Two uPlot charts, drawn from the bundled library; their numbers are in tables for reading.
      expect(await page.locator(".uplot canvas").count()).toBe(2);
      expect(await page.locator("details table th", { hasText: adSetName }).count()).toBe(1);
      expect(await seriousViolations(page)).toEqual([]);

      await page.getByLabel("Period").selectOption({ label: "Last 30 days, per day" });
      await page.getByRole("img", { name: /^Mail per day \(UTC\)/ }).waitFor();
      await page.getByLabel("Metric").selectOption("spend");
      await page.getByRole("img", { name: new RegExp(`^Spend per day and ad set \\(EUR\\), .*: ${adSetName}`) }).waitFor();
      expect(await page.locator(".uplot canvas").count()).toBe(2);

      // A send job's own chart, from its page.
      await page.goto(`${origin}/console/#/customers/${c.id}/send-jobs/${job.id}`);
      await page.getByRole("link", { name: "Charts of this job per hour or day" }).click();
      await page.getByRole("img", { name: /^This job's mail per hour \(UTC\)/ }).waitFor();
      expect(await page.getByTestId("mail-totals").textContent()).toMatch(/^3 sent, 3 delivered/);
      expect(await seriousViolations(page)).toEqual([]);
      expect(browser?.outside).toEqual([]);
    }, 120_000);
  },
);
