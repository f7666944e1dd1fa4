import { benchDataDir } from "./data-dir";
import { performance } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { prepareContacts, type Contact } from "../lib/ads/audiences/contacts";
import { bootRuntime } from "../lib/bootstrap";
import { seedDemo } from "../lib/seed";

/**
 * Audience figures, embedded mode (PGlite under a temporary DATA_DIR, the Graph simulator in this process,
 * zero latency), through the app as a portal calls it:
 * - 10,000 full contacts (e-mail, phone, names, city, zip, country, birth date) normalised, hashed and
 *   uploaded by POST /v1/audiences/custom, end to end (the simulator's checks of every hash included);
 *   target ≤ 1 s on 2 cores. Also the normalise-and-hash step alone.
 * - 100,000 contacts over ten calls of POST /v1/audiences/{id}/contacts: heap after each call (after a
 *   full GC) must stay flat, nothing may accumulate per contact. The simulator's request log keeps every
 *   request byte for byte, so it is cleared between calls; its member set (a number per member) stays.
 * - GET /v1/targeting/geo answered from the cache: p50 / p95.
 */

const CONTACTS_PER_CALL = 10_000;

function contacts(count: number, from: number): Contact[] {
  return Array.from({ length: count }, (_, i) => {
    const n = from + i;
    return {
      email: ` Kunde.${n}@Beispiel-Shop.de `,
      phone: `+49 (0)171 ${String(1_000_000 + (n % 9_000_000))}`,
      first_name: n % 2 ? "Jürgen" : "Anna-Lena",
      last_name: `Müller${String.fromCharCode(97 + (n % 26))}`,
      city: n % 3 ? "München" : "Zürich",
      zip: String(10_000 + (n % 89_999)),
      country: n % 3 ? "DE" : "CH",
      date_of_birth: `19${50 + (n % 50)}-0${1 + (n % 9)}-1${n % 10}`,
    };
  });
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))] ?? Number.NaN;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function fullGc(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

export async function benchAdsAudiences(): Promise<void> {
  const gc = fullGc();
  const runtime = await bootRuntime({
    ...process.env,
    DATA_DIR: benchDataDir("bench-audiences-"),
    LOG_LEVEL: "warn",
    RATE_LIMIT_PER_MINUTE: "100000000",
  });
  const demo = await seedDemo(runtime.deps, runtime.app.adsDeps);
  const sim = runtime.deps.providers.graphSimulator?.simulator.controls;
  if (!demo.keys || !sim) throw new Error("bench needs a fresh demo customer on the embedded simulator");
  const key = demo.keys.adsFull;
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await runtime.app.root.request(`/ads/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
    return JSON.parse(text) as { data: Record<string, unknown> };
  };

  // Normalise and hash only, the step that sees raw values.
  const sample = contacts(CONTACTS_PER_CALL, 0);
  const hashing: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    prepareContacts(sample, new Date());
    hashing.push(performance.now() - started);
  }

  // End to end: a new custom audience with 10,000 contacts per call, five times.
  const endToEnd: number[] = [];
  for (let i = 0; i < 5; i++) {
    const body = { name: `Bench ${i}`, contacts: contacts(CONTACTS_PER_CALL, i * CONTACTS_PER_CALL) };
    const started = performance.now();
    const created = await call("POST", "/audiences/custom", body);
    endToEnd.push(performance.now() - started);
    const upload = created.data.upload as { sent: number };
    if (upload.sent !== CONTACTS_PER_CALL) throw new Error(`only ${upload.sent} contacts were sent`);
    sim.clearRequests();
  }

  // Memory: 100,000 contacts into one audience, ten calls.
  const audience = await call("POST", "/audiences/custom", { name: "Bench memory", contacts: [] });
  const heap: number[] = [];
  for (let i = 0; i < 10; i++) {
    await call("POST", `/audiences/${String(audience.data.id)}/contacts`, { contacts: contacts(CONTACTS_PER_CALL, 1_000_000 + i * CONTACTS_PER_CALL) });
    sim.clearRequests();
    gc();
    heap.push(process.memoryUsage().heapUsed);
  }
  const size = (await call("GET", `/audiences/${String(audience.data.id)}`)).data.approximate_size;

  // Targeting lookups from the cache.
  await call("GET", "/targeting/geo?q=m%C3%BCnchen&limit=10");
  const lookups: number[] = [];
  for (let i = 0; i < 500; i++) {
    const started = performance.now();
    await call("GET", "/targeting/geo?q=m%C3%BCnchen&limit=10");
    lookups.push(performance.now() - started);
  }
  await runtime.close();

  const line = (label: string, value: string) => process.stdout.write(`${label.padEnd(58)}${value}\n`);
  process.stdout.write("\n== Ads audiences and targeting (embedded, in process)\n");
  line("10,000 contacts normalised + hashed p50", `${percentile(hashing, 0.5).toFixed(0)} ms`);
  line(
    "10,000 contacts created + uploaded end to end p50 / max",
    `${percentile(endToEnd, 0.5).toFixed(0)} ms / ${Math.max(...endToEnd).toFixed(0)} ms   (target ≤ 1 s)`,
  );
  line("heap after 1 / 5 / 10 calls of 10,000 (after GC)", `${mb(heap[0] ?? 0)} / ${mb(heap[4] ?? 0)} / ${mb(heap[9] ?? 0)}   (audience size ${String(size)})`);
  line("targeting lookup from cache p50 / p95", `${percentile(lookups, 0.5).toFixed(2)} ms / ${percentile(lookups, 0.95).toFixed(2)} ms`);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchAdsAudiences();
