import { benchDataDir } from "./data-dir";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { Agent, get, request } from "node:http";
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { eq, sql } from "drizzle-orm";
import { bootRuntime, type Runtime } from "../lib/bootstrap";
import { mailProviderConfigs, mailSendJobs, type SendJobRender } from "../lib/db/schema";
import { demoBlocks } from "../lib/mail/blocks/library";
import { createBatchWriter, jsonStringBody } from "../lib/mail/send-jobs/batch-payload";
import { timeOrderedUuid } from "../lib/mail/send-jobs/ids";
import { LANES } from "../lib/mail/send-jobs/transitions";
import { escapeText } from "../lib/mail/render/escape";
import { createPersonaliser } from "../lib/mail/render";
import { sha256Hex } from "../lib/core/secrets";
import { seedDemo } from "../lib/seed";

/**
 * DESIGN §6 send-job target: 100,000 recipients ingested through the API (20 calls of 5,000) and sent to
 * completion, embedded mode (PGlite under a temporary DATA_DIR, in-process queue), against the Postmark
 * simulator in its own process (webhooks off, zero latency). Then the floor on the same database: the same
 * rows inserted, claimed and recorded with raw SQL, plus the same provider payload bytes assembled and
 * POSTed to a sink on loopback: once serially (every step one after the other) and once overlapped the way
 * the engine overlaps them (LANES batches in flight, each claim → assemble → POST → record). Our total is
 * reported as a ratio of the overlapped floor, the honest one, and of the serial one.
 * The same job runs twice, on both sending paths: `/email/batch`, then Postmark's Bulk API
 * (`bulk_api_enabled`), each with the bytes on the wire (request bodies as the simulator received them),
 * the service's CPU and the time until every message was handed over.
 */

const RECIPIENTS = Number(process.env.BENCH_RECIPIENTS ?? 100_000);
const PER_CALL = 5_000;
const BATCH = 500;

type Child = { process: ChildProcess; line: string };

/** Starts a child process and waits for the stdout line starting with `marker`. */
function startChild(command: string, args: string[], marker: string): Promise<Child> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"] });
    let buffered = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      const line = buffered.split("\n").find((l) => l.startsWith(marker));
      if (line) resolve({ process: child, line: line.slice(marker.length).trim() });
    });
    child.once("exit", (code) => reject(new Error(`${command} ${args.join(" ")} exited with ${code} before printing ${marker}`)));
  });
}

// keepAliveTimeout 0: the sink never closes an idle connection (between the two floors the client's sockets
// idle for seconds; a socket the server closed meanwhile failed the next POST with EPIPE).
const SINK = `const server = require("node:http").createServer((req, res) => { req.resume(); req.on("end", () => { res.writeHead(200, { "content-type": "application/json" }); res.end("[]"); }); }); server.keepAliveTimeout = 0; server.listen(0, "127.0.0.1", function () { console.log("SINK " + this.address().port); });`;

function stack() {
  const id = (slug: string) => demoBlocks.find((b) => b.slug === slug)?.id ?? "";
  const examples = (slug: string) => Object.fromEntries((demoBlocks.find((b) => b.slug === slug)?.params ?? []).map((p) => [p.name, p.example]));
  // Thirteen blocks of the demo library: about 33 KB of HTML (after the compiler drops MJML's indentation),
  // the size the issue's figures assume.
  const slugs = ["header-logo", "heading", "text", "image", "button", "two-columns", "divider", "heading", "text", "image", "button", "two-columns", "text"];
  return slugs.map((slug, i) => ({
    block_id: id(slug),
    values: {
      ...examples(slug),
      ...(slug === "heading" && i === 1 ? { title: "Hello {{first_name}}, here is the news" } : {}),
      ...(slug === "text" && i === 2 ? { body: "Dear {{first_name}}, lorem ipsum dolor sit amet, consectetur adipiscing elit." } : {}),
    },
  }));
}

async function api(runtime: Runtime, method: string, path: string, key: string, body?: string): Promise<{ data: { id: string } }> {
  const response = await runtime.app.root.request(path, { method, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body });
  const json = (await response.json()) as { data: { id: string } };
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json).slice(0, 500)}`);
  return json;
}

function sampleRss(): { peak: () => number; stop: () => void } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  return { peak: () => Math.max(peak, process.memoryUsage().rss), stop: () => clearInterval(timer) };
}

/** CPU time (user + system, ms) of another process, from /proc on Linux; null elsewhere. */
export function processCpuMs(pid: number | undefined): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    // utime and stime, in clock ticks of 10 ms (CLK_TCK is 100 on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** Registers the customer's Postmark server (its token and two streams) with the simulators' process at `postmarkUrl`. */
export async function registerSimulatorServer(runtime: Runtime, customerId: string, postmarkUrl: string): Promise<void> {
  const [config] = await runtime.deps.db.select().from(mailProviderConfigs).where(eq(mailProviderConfigs.customerId, customerId));
  if (!config?.serverTokenSealed) throw new Error("the bench customer has no server token");
  const answer = await fetch(`${postmarkUrl}/__sim/servers`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      token: runtime.deps.secrets.open(config.serverTokenSealed),
      streams: [
        { id: config.transactionalStream ?? "outbound", type: "Transactional" },
        { id: config.broadcastStream ?? "broadcast", type: "Broadcasts" },
      ],
    }),
  });
  if (!answer.ok) throw new Error(`the simulator refused the server: HTTP ${answer.status}`);
}

/** The simulators in a process of their own, as `npm run simulators` starts them (lib/simulators.ts), without webhooks and keeping only 50 messages' bodies. */
export function startBenchSimulators(): Promise<Child> {
  return startChild(
    process.execPath,
    [
      "--max-semi-space-size=64",
      "--import",
      "tsx",
      "lib/simulators.ts",
      "--postmark-port",
      "0",
      "--graph-port",
      "0",
      "--no-webhooks",
      "--max-stored-messages",
      "50",
    ],
    "SIMULATORS ",
  );
}

export async function benchSendJobs(): Promise<void> {
  const simulators = await startBenchSimulators();
  const sink = await startChild(process.execPath, ["-e", SINK], "SINK ");
  const urls = JSON.parse(simulators.line) as { postmark: string; graph: string };
  const runtime = await bootRuntime({
    ...process.env,
    DATA_DIR: benchDataDir("bench-send-jobs-"),
    POSTMARK_API_URL: urls.postmark,
    GRAPH_API_URL: urls.graph,
    RATE_LIMIT_PER_MINUTE: "100000000",
    LOG_LEVEL: "warn",
  });
  try {
    const { db } = runtime.deps;
    const demo = await seedDemo(runtime.deps, runtime.app.adsDeps);
    if (!demo.keys) throw new Error("bench needs a fresh demo customer");
    const key = demo.keys.mailFull;
    await registerSimulatorServer(runtime, demo.customerId, urls.postmark);
    await runtime.app.root.request(`/admin/v1/customers/${demo.customerId}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${runtime.deps.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ mail: { monthly_limit: 10 * RECIPIENTS, max_per_job: 2 * RECIPIENTS } }),
    });
    const template = await api(
      runtime,
      "POST",
      "/mail/v1/templates",
      key,
      JSON.stringify({ name: "Bench", subject: "News for {{first_name}}", blocks: stack() }),
    );
    const bodies = Array.from({ length: RECIPIENTS / PER_CALL }, (_, call) =>
      JSON.stringify({
        recipients: Array.from({ length: PER_CALL }, (_, i) => ({
          email: `reader${call * PER_CALL + i}@example.com`,
          data: { first_name: `Reader ${call * PER_CALL + i}` },
        })),
      }),
    );
    // A fresh connection per read: between two reads the simulator closes an idle keep-alive socket, and
    // a fetch that reused it failed with "other side closed".
    const simulatorStats = async () =>
      JSON.parse(await getText(`${urls.postmark}/__sim/stats`)) as {
        received: number;
        received_via_bulk: number;
        request_bytes: number;
        duplicates_by_metadata_message_id: Record<string, number>;
      };

    /** One job of RECIPIENTS on `path`: ingested through the API, started, sent to completion (every message handed over). */
    const sendJob = async (path: "batch" | "bulk") => {
      const switched = await runtime.app.root.request(`/admin/v1/customers/${demo.customerId}/mail/provider`, {
        method: "PATCH",
        headers: { authorization: `Bearer ${runtime.deps.adminToken}`, "content-type": "application/json" },
        body: JSON.stringify({ bulk_api_enabled: path === "bulk" }),
      });
      if (switched.status !== 200) throw new Error(`switching to the ${path} path: ${switched.status}`);
      const job = await api(runtime, "POST", "/mail/v1/send-jobs", key, JSON.stringify({ template_id: template.data.id }));
      const jobId: string = job.data.id;
      const rssBefore = process.memoryUsage().rss;
      const rss = sampleRss();
      let started = performance.now();
      for (const body of bodies) await api(runtime, "POST", `/mail/v1/send-jobs/${jobId}/recipients`, key, body);
      const ingestMs = performance.now() - started;
      const statsBefore = await simulatorStats();
      const simulatorCpuBefore = processCpuMs(simulators.process.pid);
      const serviceCpuBefore = process.cpuUsage();
      const eluBefore = performance.eventLoopUtilization();
      started = performance.now();
      await api(runtime, "POST", `/mail/v1/send-jobs/${jobId}/start`, key);
      await runtime.deps.queue.idle();
      const sendMs = performance.now() - started;
      const serviceCpu = process.cpuUsage(serviceCpuBefore);
      const mainThreadBusy = performance.eventLoopUtilization(eluBefore).active;
      const simulatorCpuAfter = processCpuMs(simulators.process.pid);
      rss.stop();
      const [done] = await db.select().from(mailSendJobs).where(eq(mailSendJobs.id, jobId));
      if (done?.status !== "completed" || done.accepted !== RECIPIENTS) throw new Error(`bench job ended ${done?.status} with ${done?.accepted} accepted`);
      const stats = await simulatorStats();
      const viaBulk = stats.received_via_bulk - statsBefore.received_via_bulk;
      if (viaBulk !== (path === "bulk" ? RECIPIENTS : 0)) throw new Error(`the ${path} job sent ${viaBulk} messages through /email/bulk`);
      return {
        done,
        ingestMs,
        sendMs,
        serviceCpuMs: (serviceCpu.user + serviceCpu.system) / 1000,
        mainThreadBusy,
        simulatorCpuMs: simulatorCpuBefore === null || simulatorCpuAfter === null ? null : simulatorCpuAfter - simulatorCpuBefore,
        received: stats.received - statsBefore.received,
        bytes: stats.request_bytes - statsBefore.request_bytes,
        duplicates: Object.keys(stats.duplicates_by_metadata_message_id).length,
        rssBefore,
        rssPeak: rss.peak(),
      };
    };

    const batch = await sendJob("batch");
    const bulk = await sendJob("bulk");
    const { done } = batch;
    const ours = batch.ingestMs + batch.sendMs;

    const sinkUrl = `http://127.0.0.1:${sink.line}/email/batch`;
    const floor = await measureFloor(runtime, sinkUrl, done.compiled, demo.customerId, done.templateId, 1);
    const overlapped = await measureFloor(runtime, sinkUrl, done.compiled, demo.customerId, done.templateId, LANES);

    const htmlKb = done.compiled ? Buffer.byteLength(createPersonaliser(done.compiled.html)({ first_name: "Reader" })) / 1024 : 0;
    console.log(
      `## Send job: ${RECIPIENTS.toLocaleString("en")} recipients (${RECIPIENTS / PER_CALL} calls of ${PER_CALL.toLocaleString("en")}), ${htmlKb.toFixed(1)} KB newsletter, ${runtime.database.driver === "pglite" ? "embedded mode (PGlite under DATA_DIR" : `${runtime.database.driver} at DATABASE_URL (`}, in-process queue), Postmark simulator in its own process (zero latency, webhooks off); the same job on both sending paths`,
    );
    for (const [path, run] of [
      ["/email/batch", batch],
      ["/email/bulk", bulk],
    ] as const) {
      const simulatorCpu = run.simulatorCpuMs === null ? "n/a" : seconds(run.simulatorCpuMs);
      console.log(
        `${path}: ingest ${seconds(run.ingestMs)} (${Math.round(RECIPIENTS / (run.ingestMs / 1000)).toLocaleString("en")}/s); handed over in ${seconds(run.sendMs)} (${Math.round(RECIPIENTS / (run.sendMs / 1000)).toLocaleString("en")} messages/s, ${run.done.batchesCompleted} batches, received ${run.received.toLocaleString("en")}, duplicates ${run.duplicates}); ${mb(run.bytes)} on the wire; CPU service ${seconds(run.serviceCpuMs)} (all threads; main thread busy ${seconds(run.mainThreadBusy)}), Postmark simulator ${simulatorCpu}; total ${seconds(run.ingestMs + run.sendMs)}; peak RSS ${mb(run.rssPeak)} (${mb(run.rssBefore)} before ingest)`,
      );
    }
    console.log(
      `bulk vs batch: ${(batch.bytes / bulk.bytes).toFixed(0)}× fewer bytes on the wire (${mb(bulk.bytes)}, target ≤ 100 MB), ${(batch.serviceCpuMs / bulk.serviceCpuMs).toFixed(1)}× less service CPU (${seconds(bulk.serviceCpuMs)}, target ≤ 5 s), handed over ${(batch.sendMs / bulk.sendMs).toFixed(1)}× faster`,
    );
    console.log(`total (batch path): ${seconds(ours)} (target < 20 s)`);
    console.log(
      `serial floor: ${seconds(floor.total)} = raw SQL ${seconds(floor.sql)} (insert ${seconds(floor.insert)}, claim ${seconds(floor.claim)}, record ${seconds(floor.record)}) + payload assembly ${seconds(floor.assemble)} + POST to a loopback sink ${seconds(floor.post)}; ${mb(floor.bytes)} of provider JSON`,
    );
    console.log(
      `overlapped floor: ${seconds(overlapped.total)} = insert ${seconds(overlapped.insert)} + ${LANES} lanes of claim, assembly, POST and record at once ${seconds(overlapped.total - overlapped.insert)} (the engine's ${LANES} lanes per job)`,
    );
    const best = Math.min(overlapped.total, floor.total);
    console.log(
      `ratio (batch path): ${(ours / overlapped.total).toFixed(2)}× the overlapped floor, ${(ours / floor.total).toFixed(2)}× the serial floor; ${(ours / best).toFixed(2)}× the faster of the two (target ≤ 1.5×)`,
    );
  } finally {
    simulators.process.kill("SIGTERM");
    sink.process.kill("SIGTERM");
    await runtime.close();
  }
}

/**
 * The floor, on the same database: a scratch job whose rows are written with the statements the engine's
 * bulk paths reduce to, and the same provider bytes built from the same template split once into
 * JSON-escaped chunks around the one placeholder, POSTed one batch after the other.
 */
async function measureFloor(runtime: Runtime, sinkUrl: string, render: SendJobRender | null, customerId: string, templateId: string, lanes: number) {
  if (!render) throw new Error("the bench job has no render");
  const { db } = runtime.deps;
  const [job] = await db
    .insert(mailSendJobs)
    .values({ id: timeOrderedUuid(), customerId, mode: "live", templateId, from: { email: "news@demo.example.com", name: "Demo GmbH" } })
    .returning();
  if (!job) throw new Error("floor job insert failed");
  const names = Array.from({ length: RECIPIENTS }, (_, i) => `Reader ${i}`);
  const emails = names.map((_, i) => `reader${i}@example.com`);
  const ids = names.map(() => timeOrderedUuid());
  const hashes = emails.map((email) => sha256Hex(email));
  const segments = Array.from({ length: RECIPIENTS / PER_CALL }, () => randomBytes(32 * PER_CALL).toString("base64"));

  const chunkText = (from: number, to: number) =>
    JSON.stringify(ids.slice(from, to).map((id, k) => [id, emails[from + k], null, { first_name: names[from + k] }]));
  let started = performance.now();
  for (let from = 0; from < RECIPIENTS; from += PER_CALL) {
    const to = from + PER_CALL;
    const chunks: string[] = [];
    for (let at = from; at < to; at += BATCH) chunks.push(chunkText(at, at + BATCH));
    // The duplicate set: one segment of 32 random (incompressible, like hashes) bytes per recipient of the call.
    const segment = segments[from / PER_CALL] ?? "";
    await db.transaction(async (tx) => {
      await tx.execute(sql`insert into mail_messages (id, customer_id, kind, mode, status, template_id, send_job_id, subject, recipient_hash, created_at)
        select unnest(${sql.param(ids.slice(from, to))}::uuid[]), ${customerId}, 'newsletter', 'live', 'pending', ${templateId}, ${job.id}, 'News', decode(unnest(${sql.param(hashes.slice(from, to))}::text[]), 'hex'), now()`);
      await tx.execute(sql`insert into mail_send_job_chunks (send_job_id, recipients) select ${job.id}, unnest(${sql.param(chunks)}::text[])`);
      await tx.execute(
        sql`insert into mail_send_job_address_sets (send_job_id, seq, entries, count) values (${job.id}, ${from / PER_CALL}, ${segment}, ${PER_CALL})`,
      );
    });
  }
  const insert = performance.now() - started;

  // The same bytes as the engine's batch writer produces, from the template split once at its one
  // placeholder into JSON-escaped, UTF-8-encoded chunks; checked against the writer for one recipient.
  const marker = "\u0001slot\u0001";
  // One batch id for every floor batch: the floor does not reconcile, the bytes per message are the same.
  const FLOOR_BATCH_ID = "00000000-0000-4000-8000-000000000000";
  const chunks = jsonStringBody(createPersonaliser(render.html)({ first_name: marker }))
    .split(jsonStringBody(marker))
    .map((chunk) => Buffer.from(chunk));
  const head = Buffer.from(`{"From":"Demo GmbH <news@demo.example.com>","To":`);
  const subjectField = Buffer.from(`,"Subject":`);
  const htmlField = Buffer.from(`,"HtmlBody":"`);
  const tail = Buffer.from(
    `","MessageStream":"broadcast","TrackOpens":true,"TrackLinks":"HtmlOnly","Metadata":{"send_job_id":"${job.id}","batch_id":"${FLOOR_BATCH_ID}","message_id":"`,
  );
  const close = Buffer.from(`"}}`);
  const perMessage = head.length + tail.length + chunks.reduce((n, c) => n + c.length, 0) + 1024;
  const floorBody = (from: number, to: number): Buffer => {
    const out = Buffer.allocUnsafe(perMessage * (to - from) + 2);
    let at = out.write("[");
    for (let i = from; i < to; i++) {
      if (i > from) at += out.write(",", at);
      at += head.copy(out, at);
      at += out.write(JSON.stringify(emails[i]), at);
      at += subjectField.copy(out, at);
      at += out.write(JSON.stringify(`News for ${names[i]}`), at);
      at += htmlField.copy(out, at);
      const name = jsonStringBody(escapeText(names[i] ?? ""));
      chunks.forEach((chunk, k) => {
        if (k > 0) at += out.write(name, at);
        at += chunk.copy(out, at);
      });
      at += tail.copy(out, at);
      at += out.write(ids[i] ?? "", at);
      at += close.copy(out, at);
    }
    at += out.write("]", at);
    return out.subarray(0, at);
  };
  const writer = createBatchWriter({
    compiled: render.html,
    subject: "News for {{first_name}}",
    defaults: {},
    from: { email: "news@demo.example.com", name: "Demo GmbH" },
    replyTo: null,
    stream: "broadcast",
    sendJobId: job.id,
  });
  if (
    !writer
      .write([{ messageId: ids[7] ?? "", email: emails[7] ?? "", name: null, data: { first_name: names[7] } }], FLOOR_BATCH_ID)
      .body.equals(floorBody(7, 8))
  ) {
    throw new Error("the floor's payload differs from the engine's");
  }

  let claim = 0;
  let record = 0;
  let assemble = 0;
  let post = 0;
  let bytes = 0;
  // One batch: claim, assemble, POST, record. `lanes` of them run at once, like the engine's LANES per job:
  // each lane takes the next batch when its previous one is recorded. Serial (one lane), the step times add
  // up to the wall time; overlapped, only the wall time is the floor (the step times overlap).
  const oneBatch = async (from: number) => {
    const batchIds = ids.slice(from, from + BATCH);
    let at = performance.now();
    const claimed = await db.transaction(async (tx) => {
      // The row is marked with the batch id (kept until the results are recorded), as the engine does.
      const rows = await tx.execute(
        sql`update mail_send_job_chunks set batch_id = ${timeOrderedUuid()}, claimed_at = now() where send_job_id = ${job.id} and seq = (select seq from mail_send_job_chunks where send_job_id = ${job.id} and batch_id is null order by seq limit 1 for update skip locked) returning seq, recipients`,
      );
      await tx.execute(sql`update mail_messages set status = 'sending' where id = any(${sql.param(batchIds)}::uuid[])`);
      // PGlite answers `{ rows }`, the PostgreSQL drivers an array.
      const list = Array.isArray(rows) ? (rows as { seq: number }[]) : (rows as unknown as { rows: { seq: number }[] }).rows;
      if (list[0] === undefined) throw new Error("the floor found no row to claim");
      return list[0].seq;
    });
    claim += performance.now() - at;

    at = performance.now();
    const body = floorBody(from, from + BATCH);
    assemble += performance.now() - at;
    bytes += body.length;
    at = performance.now();
    await postToSink(sinkUrl, body);
    post += performance.now() - at;

    at = performance.now();
    await db.transaction(async (tx) => {
      await tx.execute(sql`update mail_messages m set status = v.status, provider_message_id = v.pid, subject = v.subject, accepted_at = now()
        from unnest(${sql.param(batchIds)}::uuid[], ${sql.param(batchIds.map(() => "accepted"))}::text[], ${sql.param(batchIds)}::text[], ${sql.param(batchIds.map((_, i) => `News for ${names[from + i]}`))}::text[]) as v(id, status, pid, subject)
        where m.id = v.id and m.status = 'sending'`);
      await tx.execute(sql`insert into mail_message_events (id, message_id, customer_id, type, occurred_at, identity, details)
        select unnest(${sql.param(batchIds.map(() => timeOrderedUuid()))}::uuid[]), unnest(${sql.param(batchIds)}::uuid[]), ${customerId}, 'accepted', now(), 'send:accepted', '{}'::jsonb`);
      await tx.execute(sql`update mail_send_jobs set accepted = accepted + ${batchIds.length}, pending = pending - ${batchIds.length} where id = ${job.id}`);
      await tx.execute(sql`delete from mail_send_job_chunks where send_job_id = ${job.id} and seq = ${claimed}`);
    });
    record += performance.now() - at;
  };
  let next = 0;
  started = performance.now();
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < RECIPIENTS) {
        const from = next;
        next += BATCH;
        await oneBatch(from);
      }
    }),
  );
  const sending = performance.now() - started;
  const sqlMs = insert + claim + record;
  return { insert, claim, record, sql: sqlMs, assemble, post, bytes, total: insert + sending };
}

/** A GET on a connection of its own (no keep-alive), answered as text. */
function getText(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.on("end", () => resolve(text));
    }).on("error", reject);
  });
}

/** The floor's POST: node's http client with keep-alive, one buffer per batch, answer read to the end. */
const sinkAgent = new Agent({ keepAlive: true });
function postToSink(url: string, body: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", agent: sinkAgent, headers: { "content-type": "application/json", "content-length": body.length } }, (res) => {
      res.resume();
      res.on("end", () => resolve());
    });
    req.on("error", reject);
    req.end(body);
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await benchSendJobs();
