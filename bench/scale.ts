import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { and, eq, sql } from "drizzle-orm";
import { createCustomer } from "../lib/admin/customers";
import { bootRuntime, type Runtime } from "../lib/bootstrap";
import { issueApiKey } from "../lib/core/api-keys";
import { mailSendJobs, mailTemplates } from "../lib/db/schema";
import { demoBlocks } from "../lib/mail/blocks/library";
import { DEMO_TRANSACTIONAL_TEMPLATE, registerSimulatorServers, seedDemoMail } from "../lib/mail/seed";

/**
 * `npm run bench:scale` (issue 33 part 2): three customers each start a job of SCALE_RECIPIENTS (200,000 by
 * default) at the same moment while a fourth sends transactional mail at 20 per second. Printed: each job's
 * send rate per 10-second window (after the first) against ±25 % of the three's mean, and the transactional
 * p99 before the jobs (idle) and during them. Embedded mode (PGlite under a temporary DATA_DIR, in-process
 * queue, embedded Postmark simulator). `SCALE_RECIPIENTS=5000 npm run bench:scale` for a short run.
 */

const RECIPIENTS = Number(process.env.SCALE_RECIPIENTS ?? 200_000);
const CUSTOMERS = 3;
const PER_CALL = 5_000;
const WINDOW_MS = Number(process.env.SCALE_WINDOW_SECONDS ?? 10) * 1000;
const TRANSACTIONAL_PER_SECOND = 20;
const IDLE_SENDS = 100;

type Sender = { id: string; key: string };

async function call(runtime: Runtime, method: string, path: string, key: string, body?: unknown) {
  const response = await runtime.app.root.request(path, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await response.json()) as { data: Record<string, unknown> };
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json).slice(0, 300)}`);
  return json.data;
}

async function sender(runtime: Runtime, name: string): Promise<Sender> {
  const customer = await createCustomer(
    runtime.deps.db,
    { name, mail: { mode: "live", monthly_limit: 10 * RECIPIENTS, max_per_job: RECIPIENTS } },
    runtime.deps.clock.now(),
  );
  await seedDemoMail(runtime.deps, customer.id);
  await registerSimulatorServers(runtime.deps, customer.id);
  const { key } = await issueApiKey(runtime.deps.db, { customerId: customer.id, service: "mail", scope: "full" });
  return { id: customer.id, key };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;
};

/** Event-loop delay and a one-row query's latency, sampled every 50 ms; `take()` answers and restarts both. */
function waitProbes(db: Runtime["deps"]["db"]) {
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  let queries: number[] = [];
  let running = true;
  const sampler = (async () => {
    while (running) {
      const at = performance.now();
      await db.execute(sql`select 1`);
      queries.push(performance.now() - at);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    take() {
      const taken = {
        loopP99: loop.percentile(99) / 1e6,
        loopMax: loop.max / 1e6,
        queryP99: percentile(queries, 0.99),
        queryMax: Math.max(...queries),
        queries: queries.length,
      };
      loop.reset();
      queries = [];
      return taken;
    },
    stop() {
      running = false;
      loop.disable();
      return sampler;
    },
  };
}

export async function benchScale(): Promise<void> {
  const runtime = await bootRuntime({
    ...process.env,
    DATABASE_URL: "",
    DATA_DIR: mkdtempSync(join(tmpdir(), "bench-scale-")),
    RATE_LIMIT_PER_MINUTE: "100000000",
    LOG_LEVEL: "warn",
  });
  try {
    const { db } = runtime.deps;
    const block = (slug: string) => demoBlocks.find((b) => b.slug === slug)?.id ?? "";
    const senders = await Promise.all(Array.from({ length: CUSTOMERS }, (_, i) => sender(runtime, `Scale ${i + 1}`)));
    const shop = await sender(runtime, "Scale shop");
    const [order] = await db
      .select({ id: mailTemplates.id })
      .from(mailTemplates)
      .where(and(eq(mailTemplates.customerId, shop.id), eq(mailTemplates.name, DEMO_TRANSACTIONAL_TEMPLATE)));
    const transactional = async () => {
      const started = performance.now();
      await call(runtime, "POST", `/mail/v1/templates/${order?.id}/send`, shop.key, {
        to: "buyer@example.com",
        params: { order_number: "A-1", order_url: "https://shop.example.com/o/A-1" },
      });
      return performance.now() - started;
    };
    const jobs: string[] = [];
    for (const s of senders) {
      const template = await call(runtime, "POST", "/mail/v1/templates", s.key, {
        name: "Scale",
        subject: "News for {{first_name}}",
        blocks: [
          { block_id: block("heading"), values: { title: "Hello {{first_name}}" } },
          { block_id: block("text"), values: { body: "Spring is here." } },
        ],
      });
      const job = await call(runtime, "POST", "/mail/v1/send-jobs", s.key, { template_id: template.id });
      for (let from = 0; from < RECIPIENTS; from += PER_CALL) {
        const recipients = Array.from({ length: Math.min(PER_CALL, RECIPIENTS - from) }, (_, i) => ({
          email: `reader${from + i}@${s.id.slice(0, 8)}.example.com`,
          data: { first_name: `Reader ${from + i}` },
        }));
        await call(runtime, "POST", `/mail/v1/send-jobs/${job.id}/recipients`, s.key, { recipients });
      }
      jobs.push(job.id as string);
    }

    // Where a transactional request waits: the event loop (a timer's lateness) and the database (a
    // one-row query's round trip, PGlite's one connection included), sampled idle and during the jobs.
    const probes = waitProbes(db);
    const idle: number[] = [];
    for (let i = 0; i < IDLE_SENDS; i++) idle.push(await transactional());
    const idleWaits = probes.take();

    // Start the three at once, then sample each job's accepted count at every window's end, while the
    // transactional sender keeps its steady 20 per second.
    await Promise.all(senders.map((s, i) => call(runtime, "POST", `/mail/v1/send-jobs/${jobs[i]}/start`, s.key)));
    const started = performance.now();
    const during: number[] = [];
    let sending = true;
    const ticker = (async () => {
      for (let n = 0; sending; n++) {
        const due = started + (n * 1000) / TRANSACTIONAL_PER_SECOND;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        if (sending) during.push(await transactional());
      }
    })();
    const windows: number[][] = [];
    let previous = jobs.map(() => 0);
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
      const rows = await db
        .select({ id: mailSendJobs.id, accepted: mailSendJobs.accepted, status: mailSendJobs.status })
        .from(mailSendJobs)
        .where(sql`${mailSendJobs.id} in ${jobs}`);
      const accepted = jobs.map((id) => rows.find((r) => r.id === id)?.accepted ?? 0);
      windows.push(accepted.map((n, i) => (n - (previous[i] ?? 0)) / (WINDOW_MS / 1000)));
      previous = accepted;
      if (rows.every((r) => r.status === "completed") || performance.now() - started > 60 * 60_000) break;
    }
    sending = false;
    await ticker;
    const total = performance.now() - started;
    const duringWaits = probes.take();
    await probes.stop();

    console.log(
      `## Fair sharing: ${CUSTOMERS} customers × ${RECIPIENTS.toLocaleString("en")} recipients started at once, a fourth sending ${TRANSACTIONAL_PER_SECOND} transactional mails/s (embedded mode, in-process queue)`,
    );
    console.log(
      `all three jobs sent in ${(total / 1000).toFixed(1)} s (${Math.round((CUSTOMERS * RECIPIENTS) / (total / 1000)).toLocaleString("en")} messages/s)`,
    );
    let fair = 0;
    let judged = 0;
    windows.forEach((rates, w) => {
      const mean = rates.reduce((a, b) => a + b, 0) / rates.length;
      // The first window (start-up) and the last (jobs finishing at different moments inside it) are not judged.
      const counted = w > 0 && w < windows.length - 1;
      const within = rates.every((r) => Math.abs(r - mean) <= 0.25 * mean);
      if (counted) {
        judged++;
        if (within) fair++;
      }
      console.log(
        `window ${w + 1} (${(w * WINDOW_MS) / 1000}–${((w + 1) * WINDOW_MS) / 1000} s): ${rates.map((r) => `${Math.round(r)}/s`).join(", ")}; mean ${Math.round(mean)}/s${counted ? (within ? " — within ±25 %" : " — OUTSIDE ±25 %") : " (not judged)"}`,
      );
    });
    console.log(`fairness: ${fair} of ${judged} judged windows within ±25 % of the mean (target: all)`);
    const idleP99 = percentile(idle, 0.99);
    const duringP99 = percentile(during, 0.99);
    console.log(
      `transactional p99: idle ${idleP99.toFixed(1)} ms (${idle.length} sends), during the jobs ${duringP99.toFixed(1)} ms (${during.length} sends); ${(duringP99 / idleP99).toFixed(2)}× idle (target ≤ 2× and ≤ 1 s)`,
    );
    for (const [name, waits] of [
      ["idle", idleWaits],
      ["during the jobs", duringWaits],
    ] as const) {
      console.log(
        `waits ${name}: event loop p99 ${waits.loopP99.toFixed(1)} ms (max ${waits.loopMax.toFixed(1)}), one-row query p99 ${waits.queryP99.toFixed(1)} ms (max ${waits.queryMax.toFixed(1)}, ${waits.queries} probes)`,
      );
    }
  } finally {
    await runtime.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchScale();
