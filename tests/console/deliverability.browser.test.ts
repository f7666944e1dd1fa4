import { serve, type ServerType } from "@hono/node-server";
import { eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { mailSendJobs } from "../../lib/db/schema";
import { SIMULATOR_ACCOUNT_TOKEN } from "../../lib/mail/provider/simulator/account";
import { simulatorTestAddress } from "../../lib/mail/provider/simulator/test-addresses";
import { CHROMIUM, chromiumPresent, launchOfflineChromium, seriousViolations, type OfflineBrowser } from "../helpers/chromium";
import { createHarness, describeResponse, type Admin, type Harness, type Mail } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { makeOperator, type TestOperator } from "../helpers/operators";
import { freePort } from "../helpers/processes";
import { addRecipients, createJob, createNewsletter, holdBatches } from "../helpers/send-jobs";

/**
 * A customer's deliverability page in Debian's Chromium over loopback, against the Postmark simulator's
 * Account API and a job the reputation guard paused through real events (the simulator posts them to the
 * receiver over loopback):
 * - support sees the senders and domains as Postmark reports them, the DNS records to publish with their
 *   copy buttons, the 30-day figures with the thresholds drawn, and the paused job's reason in words; it may
 *   "check again" (the API opens that to support) but the token, the thresholds and Resume are disabled;
 * - admin stores the account token (write-only), checks again after the records are published (the domain
 *   turns verified), resumes the paused job and reads the audit entry of the resume;
 * - the job's own page says why it is paused in words, with Resume (enabled for admin, disabled for support).
 * Nothing leaves our origin; every page passes axe-core without serious or critical violations.
 */

let h: Harness;
let server: ServerType;
let origin: string;
let page: Page;
let browser: OfflineBrowser | undefined;
let c: Awaited<ReturnType<typeof readyMailCustomer>>;
let domain = "";
let jobId = "";
const operators = {} as Record<"admin" | "support", TestOperator>;

async function signIn(operator: TestOperator): Promise<void> {
  await browser?.context.clearCookies();
  await page.goto(`${origin}/console/sign-in`);
  await page.getByLabel("E-mail").fill(operator.email);
  await page.getByLabel("Password").fill(operator.password);
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
}

async function simulatorPut(path: string, body: unknown): Promise<void> {
  const r = await c.simulator.fetch(
    new Request(`http://sim${path}`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  );
  expect(r.status).toBe(200);
}

const openPage = async () => {
  await page.goto(`${origin}/console/#/customers/${c.id}/deliverability`);
  // The same address again draws nothing new without a reload.
  await page.reload();
  await page.getByRole("heading", { name: "Senders and domains at Postmark", level: 2 }).waitFor();
};
const domainSection = () => page.getByRole("region", { name: `Domain ${domain}` });

/** The paused job's own page: its reason in words and its Resume button. */
async function jobPage() {
  await page.goto(`${origin}/console/#/customers/${c.id}/send-jobs/${jobId}`);
  await page.reload();
  await expect.poll(() => page.getByTestId("job-status").textContent()).toMatch(/^Status: paused \(paused: /);
  return { reason: page.getByTestId("job-pause-reason"), resume: page.getByRole("button", { name: "Resume this job" }) };
}

(chromiumPresent ? describe : describe.skip)(
  chromiumPresent ? "the console's deliverability page" : `deliverability page — skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`,
  () => {
    beforeAll(async () => {
      const port = await freePort();
      origin = `http://127.0.0.1:${port}`;
      h = await createHarness({ env: { PUBLIC_BASE_URL: origin }, postmarkWebhooks: true });
      server = await new Promise<ServerType>((resolve) => {
        const s = serve({ fetch: h.root.fetch, port, hostname: "127.0.0.1" }, () => resolve(s));
      });
      for (const role of ["admin", "support"] as const) operators[role] = await makeOperator(h, role);
      c = await readyMailCustomer(h, "Deliverability page");

      // A job of 600 with a fifth hard-bouncing: its first batch (500) trips the guard through the
      // simulator's events; the second batch is held and never sent while paused.
      const batches = holdBatches(h);
      try {
        const job = await createJob(h, c.mailFull, { template_id: await createNewsletter(h, c.mailFull) });
        jobId = job.id;
        const recipients = Array.from({ length: 600 }, (_, i) =>
          i % 5 === 0 ? { email: simulatorTestAddress("HardBounce", `page${i}-${c.id.slice(0, 8)}`) } : { email: `page${i}@example.com` },
        );
        await addRecipients(h, c.mailFull, job.id, recipients);
        expect((await h.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: c.mailFull })).status).toBe(200);
        await h.deps.queue.idle();
        const first = batches.held.shift();
        if (!first) throw new Error("no batch published");
        await batches.run(first);
        await c.simulator.whenIdle();
        await h.deps.queue.idle();
        const paused = await h.call<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${job.id}`, { key: c.mailReporting });
        expect(paused.json.data, describeResponse(paused)).toMatchObject({ status: "paused", pause_reason: "bounce_rate" });
      } finally {
        batches.release();
      }

      const provider = await h.admin<Admin["getCustomerMailProvider"]>("GET", `/v1/customers/${c.id}/mail/provider`);
      domain = provider.json.data.default_newsletter_from?.email.split("@")[1] ?? "";
      expect(domain).not.toBe("");
      await simulatorPut("/__sim/account/domains", { name: domain, dkim_published: false, return_path_published: false });

      browser = await launchOfflineChromium({ origin, profilePrefix: "deliverability-chromium-", viewport: { width: 1400, height: 900 } });
      await browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
      page = browser.context.pages()[0] ?? (await browser.context.newPage());
      page.setDefaultTimeout(15_000);
      page.on("dialog", (dialog) => void dialog.accept());
    }, 180_000);

    afterAll(async () => {
      await browser?.close();
      await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
      await h?.close();
    });

    test("admin: stores the account token write-only, sees what to publish (copy), checks again after publishing, resumes the paused job (audited)", async () => {
      await signIn(operators.admin);
      await page.goto(`${origin}/console/#/customers/${c.id}`);
      await page.getByRole("navigation", { name: "Customer sections" }).getByRole("link", { name: "Deliverability" }).click();
      await page.getByRole("heading", { name: "Senders and domains at Postmark", level: 2 }).waitFor();
      expect(await page.locator("main").textContent()).toContain("No Postmark account token");
      expect(await seriousViolations(page)).toEqual([]);

      const token = page.getByRole("textbox", { name: "Postmark account token" });
      expect(await token.getAttribute("type")).toBe("password");
      await token.fill(SIMULATOR_ACCOUNT_TOKEN);
      await page.getByRole("button", { name: "Save account token" }).click();
      await page.getByText(/✓ Saved and checked with Postmark/).waitFor();
      expect(await token.inputValue()).toBe("");
      await openPage();
      expect(await page.getByTestId("account-token-state").textContent()).toContain("One is stored");
      expect(await page.locator("main").textContent()).not.toContain(SIMULATOR_ACCOUNT_TOKEN);
      expect(await page.getByTestId("last-checked").textContent()).toMatch(/^Last checked with Postmark: .+\d/);

      // Postmark has the domain unverified: the records to publish, with copy buttons.
      const section = domainSection();
      expect(await section.textContent()).toContain("DKIM: ✗ not verified");
      expect(await section.textContent()).toContain("Return-Path: ✗ not verified (warning)");
      const records = section.getByRole("table");
      expect(await records.locator("tbody tr").count()).toBe(3);
      const dkimRow = records.locator("tbody tr").first();
      expect(await dkimRow.locator("td").nth(2).textContent()).toBe("TXT");
      const dkimValue = (await dkimRow.locator("code.dns-value").textContent()) ?? "";
      expect(dkimValue).toMatch(/^k=rsa;p=/);
      await page.getByRole("button", { name: `Copy the value of the dkim record of ${domain}` }).click();
      await page.getByText(`Copied the value of the dkim record of ${domain}.`).waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(dkimValue);
      expect(await records.locator("tbody tr").nth(2).textContent()).toContain(`_dmarc.${domain}`);
      expect(await seriousViolations(page)).toEqual([]);

      // The operator publishes the records; "check again" asks Postmark to verify them.
      await simulatorPut("/__sim/account/domains", { name: domain, dkim_published: true, return_path_published: true });
      await page.getByRole("button", { name: "Check again" }).click();
      await page.getByText(/✓ Checked with Postmark at/).waitFor();
      await expect.poll(() => domainSection().textContent()).toContain("DKIM: ✓ verified");
      expect(await domainSection().textContent()).toContain("Return-Path: ✓ verified");
      // Only the DMARC recommendation is left to publish.
      expect(await domainSection().getByRole("table").locator("tbody tr").count()).toBe(1);

      // Reputation: the figures, both thresholds drawn.
      const figures = page.getByRole("table", { name: "Reputation figures of the last 30 days" });
      const newsletters = (await figures.locator("tbody tr").first().textContent()) ?? "";
      expect(newsletters).toContain("Newsletters");
      expect(newsletters).toContain("20 %");
      expect(await page.locator("line[data-threshold]").evaluateAll((lines) => lines.map((l) => l.getAttribute("data-threshold")))).toEqual(["0.05", "0.001"]);
      expect(await page.getByRole("img", { name: /^Hard-bounce rate: Newsletters 20 %, Transactional 0 %; threshold 5 %/ }).count()).toBe(1);

      // The job's own page: why in words, Resume open to admin.
      const own = await jobPage();
      expect(await page.getByTestId("job-status").textContent()).toBe("Status: paused (paused: bounce rate too high)");
      await expect
        .poll(() => own.reason.textContent())
        .toBe(
          "The reputation guard paused it: its hard-bounce rate passed the threshold of 5 % after the minimum sample of 500 outcomes. Only an admin resumes it.",
        );
      expect(await own.resume.isDisabled()).toBe(false);
      expect(await seriousViolations(page)).toEqual([]);
      await openPage();

      // The paused job, why in words, and Resume.
      expect(await page.getByTestId(`pause-reason-${jobId}`).textContent()).toBe(
        "The reputation guard paused it: its hard-bounce rate passed the threshold of 5 % after the minimum sample of 500 outcomes. Only an admin resumes it.",
      );
      await page.getByRole("button", { name: `Resume job ${jobId.slice(0, 8)}` }).click();
      await page.getByText(/✓ Job .+ resumed: running/).waitFor();
      const job = await h.admin<Admin["getCustomerSendJob"]>("GET", `/v1/customers/${c.id}/mail/send-jobs/${jobId}`);
      expect(job.json.data.status).not.toBe("paused");
      expect(await seriousViolations(page)).toEqual([]);

      await page.goto(`${origin}/console/#/audit-log?operator_id=${operators.admin.id}&operation=resumeCustomerSendJob`);
      await expect.poll(() => page.getByRole("table").textContent()).toContain("Resume customer send job");
      expect(browser?.outside).toEqual([]);
    });

    test("support: sees everything, may check again, cannot store the token, change thresholds or resume", async () => {
      // The job paused by the guard again (its state set directly: what is judged here is the page).
      await h.db.update(mailSendJobs).set({ status: "paused", pauseReason: "complaint_rate" }).where(eq(mailSendJobs.id, jobId));
      await signIn(operators.support);
      await openPage();
      expect(await seriousViolations(page)).toEqual([]);
      expect(await page.getByTestId(`pause-reason-${jobId}`).textContent()).toContain("spam-complaint rate passed the threshold of 0.1 %");
      const resume = page.getByRole("button", { name: `Resume job ${jobId.slice(0, 8)}` });
      expect(await resume.isDisabled()).toBe(true);
      expect(await resume.getAttribute("title")).toBe("Needs the admin role; you are signed in as support.");
      expect(await page.getByRole("textbox", { name: "Postmark account token" }).isDisabled()).toBe(true);
      expect(await page.getByRole("button", { name: "Save thresholds" }).isDisabled()).toBe(true);
      // Copying is a read.
      expect(await page.getByRole("button", { name: `Copy the value of the dmarc record of ${domain}` }).isDisabled()).toBe(false);
      const again = page.getByRole("button", { name: "Check again" });
      expect(await again.isDisabled()).toBe(false);
      await again.click();
      await page.getByText(/✓ Checked with Postmark at/).waitFor();
      // The API refuses what the page disables.
      const refused = await page.evaluate(
        async ([customerId, job]) => {
          const csrf = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? "";
          const r = await fetch(`/console/api/customers/${customerId}/mail/send-jobs/${job}/resume`, { method: "POST", headers: { "x-csrf-token": csrf } });
          return r.status;
        },
        [c.id, jobId],
      );
      expect(refused).toBe(403);

      // The job's own page: why in words, Resume disabled, naming the role it needs.
      const own = await jobPage();
      expect(await page.getByTestId("job-status").textContent()).toBe("Status: paused (paused: complaint rate too high)");
      await expect.poll(() => own.reason.textContent()).toContain("spam-complaint rate passed the threshold of 0.1 % after the minimum sample of 500 outcomes");
      expect(await own.resume.isDisabled()).toBe(true);
      expect(await own.resume.getAttribute("title")).toBe("Needs the admin role; you are signed in as support.");
      expect(await seriousViolations(page)).toEqual([]);
      expect(browser?.outside).toEqual([]);
    });
  },
);
