import { expect, test } from "vitest";
import { LAG_MATRIX_TIMEOUT_MS, lagMatrix } from "../helpers/send-jobs-lag-matrix";

// Issue 27's reliability matrix on the batch path (`/email/batch`); the matrix: tests/helpers/send-jobs-lag-matrix.ts.
const run = lagMatrix("batch");

test(
  "batch path: search lag below/above the grace × slow provider × SIGKILL before/during/after the call, a server without other traffic, Postmark frozen 85 s / 5 min (scaled) then working through its backlog: every recipient received exactly once, none unknown, each decided within its bound",
  async () => {
    const outcome = await run();
    expect(outcome.rows).toHaveLength(outcome.cells);
    for (const row of outcome.rows)
      expect(row, JSON.stringify(row)).toMatchObject({
        recipients: outcome.recipientsPerCell,
        once: outcome.recipientsPerCell,
        unknown: 0,
        status: "completed",
      });
    expect(outcome.duplicates).toEqual({});
    expect(outcome.receivedViaBulk).toBe(0);
  },
  LAG_MATRIX_TIMEOUT_MS,
);
