import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { SendPath } from "../helpers/processes";
import { cellTable, LAG_ABOVE_MS, LAG_BELOW_MS, loadNow, runStallCells, type Combo, type StallOutcome } from "../helpers/send-jobs-lag-matrix";

/*
 * The reliability matrix of send jobs in doubt (tests/helpers/send-jobs-lag-matrix.ts), on both sending paths
 * side by side, at a tenth of production time (a test-only grace of 3 s stands for the 30 s floor: a freeze of
 * 8.5 s and of 30 s is Postmark frozen for 85 s and for 5 minutes, and the bound "grace + 2 minutes" is 15 s).
 * Rows: search lag below/above the grace × slow provider or not × SIGKILL before/during/after the call; a
 * server without other traffic (only the service's probes can show the search current); Postmark frozen,
 * then working through its backlog beside the new traffic.
 */
const SCALE = 10;
const RECIPIENTS = 20;
const COMBOS: Combo[] = [
  { lagMs: LAG_BELOW_MS, slow: false, traffic: true },
  { lagMs: LAG_ABOVE_MS, slow: false, traffic: true },
  { lagMs: LAG_BELOW_MS, slow: true, traffic: true },
  { lagMs: LAG_ABOVE_MS, slow: true, traffic: true },
  { lagMs: LAG_BELOW_MS, slow: false, traffic: false },
  { lagMs: LAG_BELOW_MS, slow: false, traffic: true, freezeMs: 85_000 },
  { lagMs: LAG_BELOW_MS, slow: false, traffic: true, freezeMs: 300_000 },
];
/** Kill points per unfrozen round, one cell per path each; a frozen round has one. */
const CELLS_PER_PATH = COMBOS.reduce((n, c) => n + (c.freezeMs ? 1 : 3), 0);

const children: ChildProcess[] = [];
const dataDir = mkdtempSync(join(tmpdir(), "send-jobs-lag-matrix-"));
let outcome: StallOutcome | null = null;

beforeAll(async () => {
  const started = Date.now();
  outcome = await runStallCells({
    scale: SCALE,
    combos: COMBOS,
    paths: ["batch", "bulk"],
    recipients: RECIPIENTS,
    children,
    dataDir,
    // Generous on a loaded 2-core machine: a late decision fails on its bound, not on this limit.
    waitLimitMs: (combo) => 45_000 + ((combo.freezeMs ?? 0) / SCALE) * 2,
    log: (line) => process.stdout.write(`${line}\n`),
  });
  process.stdout.write(`${cellTable(outcome.rows)}\n\nmatrix: ${Math.round((Date.now() - started) / 1000)} s, load ${loadNow().join(" ")}\n`);
}, 600_000);

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

function expectEveryCellOnce(path: SendPath) {
  if (!outcome) throw new Error("the matrix did not run");
  const rows = outcome.rows.filter((row) => row.path === path);
  expect(rows).toHaveLength(CELLS_PER_PATH);
  for (const row of rows) {
    expect(row, JSON.stringify(row)).toMatchObject({ recipients: RECIPIENTS, once: RECIPIENTS, twice: 0, unknown: 0, status: "completed" });
    expect(row.decidedMs, JSON.stringify(row)).toBeLessThanOrEqual(row.boundMs);
    // Each cell is what it says: every call of its round was still held by Postmark when the service died.
    const [held, jobs] = row.heldAtKill.split("/");
    expect(held, JSON.stringify(row)).toBe(jobs);
  }
  // Nothing of any job went to Postmark twice, on either path.
  expect(outcome.stats.duplicates_by_metadata_message_id).toEqual({});
  // Every job message of the Bulk API customer went through the Bulk API, none of the other's.
  expect(outcome.stats.received_via_bulk).toBe(CELLS_PER_PATH * RECIPIENTS);
}

test("batch path (`/email/batch`): search lag below/above the grace × slow provider × SIGKILL before/during/after the call, a server without other traffic, Postmark frozen 85 s / 5 min (scaled) then working through its backlog: every recipient received exactly once, none unknown, each decided within its bound", () => {
  expectEveryCellOnce("batch");
});

test("bulk path (the Bulk API): search lag below/above the grace × slow provider × SIGKILL before/during/after the call, a server without other traffic, Postmark frozen 85 s / 5 min (scaled) then working through its backlog: every recipient received exactly once, none unknown, each decided within its bound", () => {
  expectEveryCellOnce("bulk");
});
