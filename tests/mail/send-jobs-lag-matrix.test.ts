import { lagMatrixTest } from "../helpers/send-jobs-lag-matrix";

// Issue 27's reliability matrix on the batch path (`/email/batch`); the matrix: tests/helpers/send-jobs-lag-matrix.ts.
lagMatrixTest("batch");
