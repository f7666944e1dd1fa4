import { crashTest } from "../helpers/send-jobs-crash";

// The kill-and-restart test on the Bulk API path (`/email/bulk`); the scenario: tests/helpers/send-jobs-crash.ts.
crashTest("bulk");
