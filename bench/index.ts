import { benchHealth } from "./health";

/** `npm run bench`: every figure the design targets name, printed in one run on this machine. */
await benchHealth();
