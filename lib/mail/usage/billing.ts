import { and, asc, eq, gte, isNull, lt, sql } from "drizzle-orm";
import type { CoreDeps } from "../../core/context";
import { createSafeFetch, OutboundError, type SafeFetch } from "../../core/outbound/safe-fetch";
import { signWebhook, WEBHOOK_SIGNATURE_HEADER } from "../../core/webhook-signature";
import { mailBillingReports, mailMessageExtraCopies, mailMessages } from "../../db/schema";

/**
 * The daily report to the external billing system (spec: "the service reports the daily count of accepted
 * e-mails"). For each customer with accepted live mail on a UTC day, one POST to `BILLING_URL`:
 *
 *   { "type": "mail.accepted.daily", "customer_id", "day": "YYYY-MM-DD", "accepted", "idempotency_key" }
 *
 * signed like our webhooks (`X-Service-Signature: t=…,v1=HMAC-SHA256("<t>.<body>")` with `BILLING_SECRET`)
 * and carrying `Idempotency-Key`. The body is frozen in `mail_billing_reports` when the day is first
 * reported, so a re-run (the cron twice, a retry after an error) posts the same body under the same key.
 * Unposted reports of earlier days are retried on every run. Days without accepted mail are not posted
 * (the billing system reads a missing day as zero). Sandbox mail never counts.
 */
const BILLING_EVENT = "mail.accepted.daily";

export type BillingRunResult = { day: string; reports: number; posted: number; failed: number; skipped?: string };

function previousUtcDay(now: Date): { day: string; start: Date; end: Date } {
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const start = new Date(end.getTime() - 86_400_000);
  return { day: start.toISOString().slice(0, 10), start, end };
}

export async function reportDailyUsage(deps: CoreDeps, options: { fetch?: SafeFetch } = {}): Promise<BillingRunResult> {
  const { db, config } = deps;
  const now = deps.clock.now();
  const { day, start, end } = previousUtcDay(now);
  if (!config.BILLING_URL || !config.BILLING_SECRET) {
    return { day, reports: 0, posted: 0, failed: 0, skipped: "BILLING_URL or BILLING_SECRET is not set" };
  }

  const messages = await db
    .select({ customerId: mailMessages.customerId, accepted: sql<number>`count(*)::int` })
    .from(mailMessages)
    .where(and(eq(mailMessages.mode, "live"), gte(mailMessages.acceptedAt, start), lt(mailMessages.acceptedAt, end)))
    .groupBy(mailMessages.customerId);
  // Second copies Postmark received of a message are billed as Postmark counts them (../send-jobs/late-truth.ts).
  const copies = await db
    .select({ customerId: mailMessageExtraCopies.customerId, accepted: sql<number>`count(*)::int` })
    .from(mailMessageExtraCopies)
    .where(and(eq(mailMessageExtraCopies.mode, "live"), gte(mailMessageExtraCopies.acceptedAt, start), lt(mailMessageExtraCopies.acceptedAt, end)))
    .groupBy(mailMessageExtraCopies.customerId);
  const byCustomer = new Map(messages.map((row) => [row.customerId, row.accepted]));
  for (const row of copies) byCustomer.set(row.customerId, (byCustomer.get(row.customerId) ?? 0) + row.accepted);
  const counts = [...byCustomer].map(([customerId, accepted]) => ({ customerId, accepted }));
  if (counts.length > 0) {
    await db
      .insert(mailBillingReports)
      .values(
        counts.map((row) => {
          const idempotencyKey = `mail-accepted-${row.customerId}-${day}`;
          const body = JSON.stringify({ type: BILLING_EVENT, customer_id: row.customerId, day, accepted: row.accepted, idempotency_key: idempotencyKey });
          return { customerId: row.customerId, day, accepted: row.accepted, body, idempotencyKey, createdAt: now };
        }),
      )
      .onConflictDoNothing();
  }

  const safeFetch = options.fetch ?? createSafeFetch({ allowLoopbackForTests: config.ALLOW_LOOPBACK_OUTBOUND, trustedCa: config.OUTBOUND_TRUSTED_CA });
  const unposted = await db
    .select()
    .from(mailBillingReports)
    .where(isNull(mailBillingReports.postedAt))
    .orderBy(asc(mailBillingReports.day), asc(mailBillingReports.customerId));
  let posted = 0;
  for (const report of unposted) {
    let problem: string | null = null;
    try {
      const response = await safeFetch(config.BILLING_URL, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "idempotency-key": report.idempotencyKey,
          [WEBHOOK_SIGNATURE_HEADER]: signWebhook(config.BILLING_SECRET, report.body, deps.clock.now().getTime() / 1000),
        },
        body: report.body,
        timeoutMs: 15_000,
      });
      if (response.status < 200 || response.status >= 300) problem = `billing endpoint answered ${response.status}`;
    } catch (error) {
      problem = error instanceof OutboundError ? `${error.reason}: ${error.message}` : String(error);
    }
    const where = and(eq(mailBillingReports.customerId, report.customerId), eq(mailBillingReports.day, report.day));
    if (problem === null) {
      await db
        .update(mailBillingReports)
        .set({ postedAt: deps.clock.now(), attempts: sql`${mailBillingReports.attempts} + 1`, lastError: null })
        .where(where);
      posted++;
    } else {
      deps.logger.warn("billing report not accepted; retried on the next run", { customer_id: report.customerId, day: report.day, error: problem });
      await db
        .update(mailBillingReports)
        .set({ attempts: sql`${mailBillingReports.attempts} + 1`, lastError: problem })
        .where(where);
    }
  }
  return { day, reports: counts.length, posted, failed: unposted.length - posted };
}
