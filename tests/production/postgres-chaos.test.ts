import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { bootRuntime } from "../../lib/bootstrap";
import { applyMigrations, openDatabase } from "../../lib/db/client";
import { createHarness, describeResponse, type Harness, type Mail, type ErrorEnvelope } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { DEMO_TRANSACTIONAL_TEMPLATE } from "../../lib/mail/seed";
import { INSIGHTS_SNAPSHOT_TOPIC } from "../../lib/ads/insights/snapshots";
import { createAdSet, createAdsWorld, createImageCreative, onboardedCustomer } from "../ads/support/ads-world";
import { sql } from "drizzle-orm";
import { addRecipients, createJob, createNewsletter, people } from "../helpers/send-jobs";

/*
 * Chaos on a real PostgreSQL server: the server restarted with
 * `pg_ctl restart -m fast` while a 20,000-recipient send job runs. The job completes with every recipient
 * received by the provider exactly once; requests during the outage answer 503 `service_unavailable` in the
 * envelope with Retry-After, within a bound (never a hang, never a 500); the same pool serves again
 * afterwards, no process restarted. And the cold start's schema gate: a database older than the code
 * answers 503 `schema_behind` until the release step migrated it.
 * Needs the server CI starts (.ci/run exports DATABASE_URL, PG_CTL, PG_DATA and, as root, PG_CTL_USER).
 */

const { DATABASE_URL, PG_CTL, PG_DATA, PG_CTL_USER } = process.env;
const skipReason = !DATABASE_URL
  ? "DATABASE_URL is not set (the chaos test restarts a real PostgreSQL server)"
  : !PG_CTL || !PG_DATA
    ? "PG_CTL and PG_DATA are not set (how to restart the server; .ci/run exports them)"
    : null;
if (skipReason) process.stdout.write(`postgres-chaos skipped: ${skipReason}\n`);

const RECIPIENTS = 20_000;
const SWEEP_SECRET = "chaos-test-cron-secret-0123456789abcdef";
/** A request during the outage must be answered within this (the pool's connection timeout is 5 s). */
const ANSWER_BOUND_MS = 10_000;

/** `pg_ctl restart -m fast -w`, as the server's owner; resolves when the server accepts connections again. */
function restartServer(): Promise<void> {
  const args = ["-D", PG_DATA as string, "restart", "-m", "fast", "-w"];
  const [command, argv] = PG_CTL_USER ? ["runuser", ["-u", PG_CTL_USER, "--", PG_CTL as string, ...args]] : [PG_CTL as string, args];
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`pg_ctl restart failed (${code}): ${stderr}`))));
  });
}

/** Requests one path in a loop until `until` settles: every answer's status, and whether one went unanswered past the bound. */
async function probeDuring(h: Harness, key: string, path: string, until: Promise<unknown>) {
  const answers: { status: number; retryAfter: string | null; code: string | null; ms: number }[] = [];
  let done = false;
  void until.finally(() => (done = true));
  while (!done) {
    const started = performance.now();
    const answered = await Promise.race([
      h.call<Partial<ErrorEnvelope> | null>("GET", path, { key }),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), ANSWER_BOUND_MS).unref()),
    ]);
    const ms = performance.now() - started;
    if (!answered) throw new Error(`GET ${path} did not answer within ${ANSWER_BOUND_MS} ms during the restart`);
    answers.push({ status: answered.status, retryAfter: answered.headers.get("retry-after"), code: answered.json?.error?.code ?? null, ms });
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return answers;
}

/** DATABASE_URL with another database name. */
function databaseUrl(name: string): string {
  const url = new URL(DATABASE_URL as string);
  url.pathname = `/${name}`;
  return url.href;
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

describe.skipIf(skipReason !== null)(`PostgreSQL restarted under load${skipReason ? ` — skipped: ${skipReason}` : ""}`, () => {
  let h: Harness;
  const database = `chaos_${process.pid}_${Date.now()}`;

  // A database of its own: the sweep reconciles every customer's jobs, and the shared one holds jobs of
  // other test files whose secrets were sealed with their own harness's key.
  beforeAll(async () => {
    await adminQuery(`create database ${database}`);
    const url = databaseUrl(database);
    const release = await openDatabase({ url, migrate: true });
    await release.close();
    // One clock for the service and its Postmark simulator: the sweep below moves it, and what the simulator
    // receives meanwhile is stamped with it, so Postmark's search can be shown current past a call in doubt.
    // The simulator's search sees only the messages it tracks (10,000 by default): here all of the job's and more.
    h = await createHarness({
      env: { DATABASE_URL: url, CRON_SECRET: SWEEP_SECRET },
      sharedClock: true,
      postmarkSimulator: { maxTrackedMessages: 2 * RECIPIENTS },
    });
  });
  afterAll(async () => {
    await h?.close();
    await adminQuery(`drop database if exists ${database} with (force)`);
  });

  test(`a ${RECIPIENTS.toLocaleString("en")}-recipient send job survives a restart: completed, every recipient received once; requests during the outage are 503 with Retry-After`, async () => {
    const started = performance.now();
    const c = await readyMailCustomer(h, "Chaos");
    const template = await createNewsletter(h, c.mailFull);
    const job = await createJob(h, c.mailFull, { template_id: template });
    for (let offset = 0; offset < RECIPIENTS; offset += 5000) await addRecipients(h, c.mailFull, job.id, people(5000, "chaos.example", offset));
    const start = await h.call("POST", `/mail/v1/send-jobs/${job.id}/start`, { key: c.mailFull });
    expect(start.status, describeResponse(start)).toBe(200);
    const read = async () => (await h.call<Mail["getSendJob"]>("GET", `/mail/v1/send-jobs/${job.id}`, { key: c.mailReporting })).json.data;
    const templates = await h.call<Mail["listTemplates"]>("GET", "/mail/v1/templates?limit=100", { key: c.mailReporting });
    const orderTemplate = (templates.json.data as { id: string; name: string }[]).find((t) => t.name === DEMO_TRANSACTIONAL_TEMPLATE)?.id;
    if (!orderTemplate) throw new Error(`no "${DEMO_TRANSACTIONAL_TEMPLATE}" template: ${describeResponse(templates)}`);

    // In the middle of the job: some recipients accepted, most still pending.
    await vi.waitFor(async () => expect((await read()).recipients.accepted).toBeGreaterThan(1000), { timeout: 120_000, interval: 100 });
    const restartStarted = performance.now();
    const restart = restartServer();
    const answers = await probeDuring(h, c.mailReporting, `/mail/v1/send-jobs/${job.id}`, restart);
    await restart;
    const outageMs = performance.now() - restartStarted;

    const refused = answers.filter((a) => a.status !== 200);
    expect(
      refused.every((a) => a.status === 503 && a.code === "service_unavailable" && a.retryAfter !== null),
      JSON.stringify(refused.slice(0, 5)),
    ).toBe(true);
    expect(refused.length, "no request met the outage").toBeGreaterThan(0);

    // The same pool serves again (no process restarted), and the job completes. Batches whose provider call
    // was made but not recorded when the connection died stay \`sending\` until the sweep (cron, every minute in
    // production) finds them past the in-flight limit and reconciles them with Postmark; the shared clock is
    // moved a minute per sweep so the limits pass without waiting minutes. A batch Postmark does not have is
    // sent again only on evidence that its search is current past the call (lib/mail/send-jobs/reconcile.ts):
    // the customer's other traffic, here one order confirmation per sweep, received at the moved clock.
    let orders = 0;
    // When the job does not complete: what the database and the log hold, so a CI failure says why.
    const explain = async (error: unknown): Promise<never> => {
      const rows = async (text: string) => ((await h.db.execute(sql.raw(text))) as unknown as { rows: unknown[] }).rows;
      const state = {
        job: await rows(
          `select status, run, total, pending, accepted, unknown, failed, suppressed, last_progress_at, pause_reason from mail_send_jobs where id = '${job.id}'`,
        ),
        messages: await rows(`select status, attempts, count(*)::int from mail_messages where send_job_id = '${job.id}' group by 1, 2 order by 1, 2`),
        chunks: await rows(
          `select batch_id is not null as claimed, claimed_at, lease_until, json_array_length(recipients::json) as n from mail_send_job_chunks where send_job_id = '${job.id}' order by claimed_at nulls first limit 20`,
        ),
        orders,
        clock: h.clock.now().toISOString(),
        log: h.logLines.filter((line) => !line.includes('"level":"debug"')).slice(-40),
      };
      throw new Error(`${String(error)}\n${JSON.stringify(state, null, 1)}`);
    };
    const done = await vi
      .waitFor(
        async () => {
          h.clock.advance(60_000);
          const order = await h.call("POST", `/mail/v1/templates/${orderTemplate}/send`, {
            key: c.mailFull,
            body: { to: `order${orders}@shop.example`, params: { order_number: `C-${orders}`, order_url: `https://shop.example.com/o/C-${orders}` } },
          });
          expect(order.status, describeResponse(order)).toBe(200);
          orders++;
          const sweep = await h.call("GET", "/api/cron/send-jobs-sweep", { headers: { authorization: `Bearer ${SWEEP_SECRET}` } });
          expect(sweep.status, describeResponse(sweep)).toBe(200);
          const current = await read();
          expect(current.status).toBe("completed");
          return current;
        },
        { timeout: 180_000, interval: 2_000 },
      )
      .catch(explain);
    expect(done.recipients).toMatchObject({ total: RECIPIENTS, accepted: RECIPIENTS, unknown: 0, failed: 0, pending: 0 });
    const simulator = h.deps.providers.postmarkSimulator;
    if (!simulator) throw new Error("the harness runs the Postmark simulator");
    const stats = (await (await fetch(`${simulator.url}/__sim/stats`)).json()) as {
      received: number;
      duplicates_by_metadata_message_id: Record<string, number>;
    };
    expect(stats.duplicates_by_metadata_message_id).toEqual({});
    expect(stats.received).toBe(RECIPIENTS + orders);
    // Postmark's search (the simulator's, which sees the messages it tracks) covers the whole job.
    const tracked = (await (await fetch(`${simulator.url}/__sim/messages?metadata_key=send_job_id&metadata_value=${job.id}&limit=1`)).json()) as {
      total_count: number;
    };
    expect(tracked.total_count).toBe(RECIPIENTS);
    // What the reconciliation of the batches the restart left in doubt found (each logs once it is settled).
    const reconciled = h.logLines
      .map((line) => JSON.parse(line) as { message: string; accepted?: number; resent?: number })
      .filter((entry) => entry.message === "send-job batch reconciled with the provider");
    const sum = (field: "accepted" | "resent") => reconciled.reduce((total, entry) => total + (entry[field] ?? 0), 0);
    process.stdout.write(
      `postgres chaos: ${RECIPIENTS} recipients, ${reconciled.length} batches reconciled after the restart (${sum("accepted")} messages found at Postmark, ${sum("resent")} sent again on evidence), restart took ${Math.round(outageMs)} ms; during it ${answers.length} requests: ${answers.length - refused.length} × 200, ${refused.length} × 503 (slowest answer ${Math.round(Math.max(...answers.map((a) => a.ms)))} ms); received ${stats.received - orders} of the job (and ${orders} order confirmations), duplicates 0, unknown ${done.recipients.unknown}; ${Math.round((performance.now() - started) / 1000)} s in all\n`,
    );
  }, 900_000);

  test("an ads insights snapshot run interrupted by a restart is run again and completes: no row lost, none twice", async () => {
    const world = await createAdsWorld({ DATABASE_URL: databaseUrl(database) });
    try {
      const DAY = 86_400_000;
      world.h.clock.set("2026-03-10T09:00:00.000Z");
      world.sim.advance(world.h.clock.now().getTime() - world.sim.now().getTime());
      const own = await onboardedCustomer(world, "Chaos insights");
      const adSet = await createAdSet(world, own, { daily_budget_cents: 50_000 });
      const creative = await createImageCreative(world, own);
      for (const link of ["https://shop.example.com/a", "https://shop.example.com/b", "https://shop.example.com/c"]) {
        const r = await world.h.call("POST", "/ads/v1/ads", {
          key: own.adsFull,
          body: { ad_set_id: adSet.id, creative_id: creative.id, status: "ACTIVE", link },
        });
        expect(r.status, describeResponse(r)).toBe(201);
      }
      world.h.clock.advance(60 * DAY);
      world.sim.advance(60 * DAY);
      const worker = world.h.deps.queue.handler(INSIGHTS_SNAPSHOT_TOPIC);
      if (!worker) throw new Error("the snapshot worker is not registered");
      const counts = async () => {
        const result = await world.h.db.execute(
          sql`select count(*)::int as rows, count(distinct (date, ad_id, dimension, value1, value2))::int as distinct_rows from ads_insight_snapshots where customer_id = ${own.id}`,
        );
        return (result as unknown as { rows: { rows: number; distinct_rows: number }[] }).rows[0] as { rows: number; distinct_rows: number };
      };
      // The queue's redelivery, as QStash does it: a run that failed is run again until it succeeds.
      let attempts = 0;
      const deliver = async () => {
        for (;;) {
          attempts++;
          try {
            return await worker({ customer_id: own.id, rate_limit_delays: 0 }, { attempt: attempts });
          } catch (error) {
            if (attempts > 20) throw error;
            await new Promise((resolve) => setTimeout(resolve, 500));
          }
        }
      };
      const ingest = deliver();
      await new Promise((resolve) => setTimeout(resolve, 150));
      await restartServer();
      await ingest;
      const interrupted = await counts();
      expect(interrupted.rows).toBeGreaterThan(0);
      expect(interrupted.rows, "no row twice").toBe(interrupted.distinct_rows);
      // An undisturbed run finds nothing missing: the same rows.
      await worker({ customer_id: own.id, rate_limit_delays: 0 }, { attempt: 1 });
      expect(await counts()).toEqual(interrupted);
      process.stdout.write(
        `postgres chaos: insights ingest interrupted by a restart, ${attempts} deliveries, ${interrupted.rows} snapshot rows, none twice, none missing\n`,
      );
    } finally {
      await world.close();
    }
  }, 300_000);

  test("a cold start on a database older than the code answers 503 schema_behind with Retry-After until the release step ran", async () => {
    const name = `schema_gate_${process.pid}_${Date.now()}`;
    await adminQuery(`create database ${name}`);
    const url = new URL(databaseUrl(name));
    const dataDir = mkdtempSync(join(tmpdir(), "schema-gate-"));
    const runtime = await bootRuntime({ DATABASE_URL: url.href, DATA_DIR: dataDir, LOG_LEVEL: "silent" });
    try {
      const behind = await runtime.fetch(new Request("http://localhost/mail/v1/health"));
      const body = (await behind.json()) as { error: { code: string }; request_id: string };
      expect(behind.status).toBe(503);
      expect(body.error.code).toBe("schema_behind");
      expect(behind.headers.get("retry-after")).toBeTruthy();

      const release = await openDatabase({ url: url.href });
      await applyMigrations(release);
      await release.close();
      // The gate reads the version again after its Retry-After.
      await vi.waitFor(async () => expect((await runtime.fetch(new Request("http://localhost/mail/v1/health"))).status).not.toBe(503), {
        timeout: 30_000,
        interval: 500,
      });
    } finally {
      await runtime.close();
      rmSync(dataDir, { recursive: true, force: true });
      await adminQuery(`drop database if exists ${name} with (force)`);
    }
  }, 120_000);
});
