import type { ChildProcess } from "node:child_process";
import { benchDataDir } from "./data-dir";
import { cellTable, LAG_BELOW_MS, loadNow, runStallCells, type CellRow, type Combo } from "../tests/helpers/send-jobs-lag-matrix";

/**
 * Exactly once when Postmark stalls, at production time (`npm run bench:stall`; not part of `npm run bench`
 * or `npm test`): the service at the production grace of 30 s (no test setting) against the Postmark
 * simulator, a send job on the batch path and one on the Bulk API path side by side, each on a customer and
 * server of its own, the service SIGKILLed while Postmark is frozen, then started again; Postmark then works
 * through its backlog beside the new traffic. Rounds (`--cells`, comma-separated, default all):
 *   quiet  a server without other traffic, the service killed while Postmark holds the call (slow, 15 s);
 *   85     Postmark frozen for 85 s;
 *   600    Postmark frozen for 10 minutes.
 * The same cells as the lag matrix test (tests/helpers/send-jobs-lag-matrix.ts), unscaled. A round aborts
 * the run with what it last saw after freeze + grace + 3 minutes. Prints a table per cell and the totals,
 * with the load average (the machine may be shared). STALL_LOG_LEVEL=info CRASH_DEBUG=1 prints the service's log.
 */

const GRACE_MS = 30_000;
const RECIPIENTS = Number(process.env.STALL_RECIPIENTS ?? 1000);
const ROUNDS = new Map<string, Combo>([
  ["quiet", { lagMs: LAG_BELOW_MS, slow: false, traffic: false, kills: ["during"] }],
  ["85", { lagMs: LAG_BELOW_MS, slow: false, traffic: true, freezeMs: 85_000 }],
  ["600", { lagMs: LAG_BELOW_MS, slow: false, traffic: true, freezeMs: 600_000 }],
]);

function chosenRounds(): Combo[] {
  const at = process.argv.indexOf("--cells");
  const names = at >= 0 ? (process.argv[at + 1] ?? "").split(",").filter(Boolean) : [...ROUNDS.keys()];
  return names.map((name) => {
    const combo = ROUNDS.get(name);
    if (!combo) throw new Error(`unknown round "${name}" (known: ${[...ROUNDS.keys()].join(", ")})`);
    return combo;
  });
}

function totals(rows: CellRow[]): string {
  const sum = (pick: (r: CellRow) => number) => rows.reduce((n, r) => n + pick(r), 0);
  const late = rows.filter((r) => r.decidedMs > r.boundMs).length;
  return `totals: ${rows.length} cells, ${sum((r) => r.recipients)} recipients, received once ${sum((r) => r.once)}, twice ${sum((r) => r.twice)}, unknown ${sum((r) => r.unknown)}, past their bound ${late}`;
}

const children: ChildProcess[] = [];
const killChildren = () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
};
process.once("SIGINT", () => {
  killChildren();
  process.exit(130);
});

const combos = chosenRounds();
const started = Date.now();
console.log(`stall bench: grace 30 s (production), ${RECIPIENTS} recipients per job, rounds: ${combos.length}, load ${loadNow().join(" ")}`);
try {
  const outcome = await runStallCells({
    scale: 1,
    combos,
    paths: ["batch", "bulk"],
    recipients: RECIPIENTS,
    children,
    dataDir: benchDataDir("bench-stall-"),
    waitLimitMs: () => GRACE_MS + 180_000,
    log: (line) => console.log(line),
    // The service's log level (default warn); its log is printed with CRASH_DEBUG=1.
    serviceEnv: process.env.STALL_LOG_LEVEL ? { LOG_LEVEL: process.env.STALL_LOG_LEVEL } : {},
  });
  console.log(`\n${cellTable(outcome.rows, "s")}\n\n${totals(outcome.rows)}`);
  console.log(
    `provider: duplicates by message id ${Object.keys(outcome.stats.duplicates_by_metadata_message_id).length}, received via the Bulk API ${outcome.stats.received_via_bulk}`,
  );
  console.log(`took ${Math.round((Date.now() - started) / 1000)} s, load ${outcome.load.join(" ")}`);
  killChildren();
  const failed = outcome.rows.some((r) => r.twice > 0 || r.unknown > 0 || r.once !== r.recipients || r.decidedMs > r.boundMs);
  process.exit(failed ? 1 : 0);
} catch (error) {
  console.error(
    `stall bench aborted after ${Math.round((Date.now() - started) / 1000)} s (load ${loadNow().join(" ")}): ${error instanceof Error ? error.message : String(error)}`,
  );
  killChildren();
  process.exit(1);
}
