import { expect, test } from "vitest";
import { CRASH_TEST_TIMEOUT_MS, crashScenario } from "../helpers/send-jobs-crash";

// The kill-and-restart test on the Bulk API path (`/email/bulk`); the scenario: tests/helpers/send-jobs-crash.ts.
const run = crashScenario("bulk");

test(
  "bulk path: SIGKILL with provider calls in flight, at three points of the call, and restart: every recipient received exactly once, none unknown, usage equals the provider's count",
  async () => {
    const outcome = await run();
    expect(outcome.recipients).toMatchObject({ total: outcome.total, accepted: outcome.total, unknown: 0, failed: 0, pending: 0 });
    expect(outcome.duplicates).toEqual({});
    // The job's messages and the transactional traffic, each once; usage counts exactly what the provider received.
    expect(outcome.received).toBe(outcome.total + outcome.transactional);
    expect(outcome.usageSent).toBe(outcome.received);
    expect(outcome.receivedViaBulk).toBe(outcome.total);
  },
  CRASH_TEST_TIMEOUT_MS,
);
