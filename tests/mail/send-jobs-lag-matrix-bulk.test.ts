import { expect, test } from "vitest";
import { LAG_MATRIX_TIMEOUT_MS, lagMatrix } from "../helpers/send-jobs-lag-matrix";

// Issue 27's reliability matrix on the Bulk API path (`/email/bulk`); the matrix: tests/helpers/send-jobs-lag-matrix.ts.
// With LAG_MATRIX_BULK_ALL_ROWS=1 it adds the rows of a server without other traffic and of Postmark frozen
// 85 s / 5 min (scaled), which the batch path runs always (the same reconciliation code; about a minute more).
const run = lagMatrix("bulk");

test(
  "bulk path: search lag below/above the grace × slow provider × SIGKILL before/during/after the call (and, with LAG_MATRIX_BULK_ALL_ROWS=1, no other traffic and Postmark frozen then working through its backlog): every recipient received exactly once, none unknown",
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
    expect(outcome.receivedViaBulk).toBe(outcome.cells * outcome.recipientsPerCell);
  },
  LAG_MATRIX_TIMEOUT_MS,
);
