import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { SkipReporter } from "./tests/helpers/skip-reporter";

/*
 * Two groups of test files (issue 29.4; README "`npm test`: where the time goes"):
 * - `alone`: the files that start processes of their own (`npm start`, the simulators process, the admin CLI,
 *   Chromium, the built functions) and whose outcome rests on timing margins between them (a reconciliation
 *   grace against the simulator's hold, a start-up bound). They run after the others, one at a time, as before.
 * - `harness`: everything else (each file's app on an in-memory PGlite of its own, a temporary DATA_DIR of its
 *   own: tests/helpers/harness.ts), two files side by side. On 2 cores one file at a time left a core idle
 *   while a file waited on a timer, a socket or the Vitest main process.
 * Against a server (`DATABASE_URL`: CI's PostgreSQL and Neon runs) every file shares one database whose cron
 * sweeps and recoveries see all customers' rows, so there every file runs alone.
 */
const ALONE = [
  "tests/foundation/data-dir.test.ts",
  "tests/foundation/process-life.test.ts",
  "tests/foundation/readme-walkthrough.test.ts",
  "tests/mail/send-jobs-crash*.test.ts",
  "tests/mail/send-jobs-lag-matrix*.test.ts",
  "tests/mail/send-jobs-startup.test.ts",
  "tests/production/postgres-chaos.test.ts",
  "tests/production/vercel-functions.smoke.test.ts",
  "tests/**/*.browser.test.ts",
];
const sideBySide = process.env.DATABASE_URL ? 1 : 2;

export default defineConfig({
  resolve: {
    // The Vercel entries (api/*.js) import the bundles `npm run build` makes of lib/functions/<name>.ts; tests
    // run them on the sources they are built from, so no build is needed before `npm test`.
    alias: [{ find: /^\.\.\/dist\/functions\/([a-z]+)\.js$/, replacement: `${fileURLToPath(new URL("./lib/functions/", import.meta.url))}$1.ts` }],
  },
  test: {
    globalSetup: ["tests/helpers/global-setup.ts"],
    reporters: ["default", new SkipReporter()],
    // Long flows (an onboarding, 55 ads) took 30 s+ on a loaded 2-core machine; a test that hangs still ends.
    testTimeout: 90_000,
    hookTimeout: 60_000,
    pool: "forks",
    projects: [
      { extends: true, test: { name: "alone", include: ALONE, maxWorkers: 1, sequence: { groupOrder: 1 } } },
      { extends: true, test: { name: "harness", include: ["tests/**/*.test.ts"], exclude: ALONE, maxWorkers: sideBySide, sequence: { groupOrder: 0 } } },
    ],
  },
});
