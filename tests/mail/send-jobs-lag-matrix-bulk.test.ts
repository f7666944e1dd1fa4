import { lagMatrixTest } from "../helpers/send-jobs-lag-matrix";

// Issue 27's reliability matrix on the Bulk API path (`/email/bulk`); the matrix: tests/helpers/send-jobs-lag-matrix.ts.
lagMatrixTest("bulk");
