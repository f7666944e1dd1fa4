import { crashTest } from "../helpers/send-jobs-crash";

// The kill-and-restart test on the batch path (`/email/batch`); the scenario: tests/helpers/send-jobs-crash.ts.
crashTest("batch");
