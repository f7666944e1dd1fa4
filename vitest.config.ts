import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { SkipReporter } from "./tests/helpers/skip-reporter.ts";
import { WORKER_DATABASES } from "./tests/helpers/worker-databases.ts";

/*
 * Four groups of test files (README "`npm test`: where the time goes"), in three rounds:
 * - round 0, three files at a time from two groups: `harness`, every file on an app of its own (an in-memory
 *   PGlite and a temporary DATA_DIR of its own: tests/helpers/harness.ts), in workers that are not reset
 *   between files (`isolate: false`: the modules load once per worker, not once per file; the files share no
 *   state but the process's counters, which they read as differences); and `beside`, the files that start
 *   processes of their own (`npm start`, the admin CLI, Chromium, the built functions) without tight timing
 *   margins between them.
 * - round 1: `isolated`, the files that stub modules, globals, the clock or the environment, or register the
 *   process's tracer, each in a fresh module graph (Vitest's default), two at a time.
 * - round 2: `alone`, the files whose outcome rests on timing margins between processes (a reconciliation
 *   grace of 3 s against the simulator's hold of 2.5 s, a SIGTERM's drain): one at a time with nothing else.
 * Against a server (`DATABASE_URL`: CI's PostgreSQL and Neon runs) a database's cron sweeps and recoveries see
 * all customers' rows, each on its file's own clock, so files on one database take turns: on a plain PostgreSQL
 * server each worker has a copy of its own (tests/helpers/worker-database.ts) and the groups run two files at a
 * time, one per database; through the Neon proxy, one database, one file at a time.
 */
const ALONE = ["tests/foundation/process-life.test.ts", "tests/mail/send-jobs-lag-matrix*.test.ts"];
const BESIDE = [
  "tests/foundation/data-dir.test.ts",
  "tests/foundation/readme-walkthrough.test.ts",
  // The kill comes while the simulator holds the calls (4 s), however busy the machine (tests/helpers/send-jobs-crash.ts).
  "tests/mail/send-jobs-crash*.test.ts",
  "tests/mail/send-jobs-startup.test.ts",
  // Starts the MCP command-line server as a child process (stdio).
  "tests/mcp/mcp.http.test.ts",
  "tests/production/postgres-chaos.test.ts",
  "tests/production/vercel-functions.smoke.test.ts",
  "tests/**/*.browser.test.ts",
];
const ISOLATED = [
  "tests/core/outbound-safe-fetch.test.ts",
  "tests/foundation/openapi-and-routing.http.test.ts",
  "tests/foundation/rate-limit.http.test.ts",
  "tests/foundation/tracing.http.test.ts",
  "tests/foundation/tracing-sampler.test.ts",
  "tests/mail/assets-blob-vercel.test.ts",
  "tests/mail/assets-vercel.http.test.ts",
  "tests/mail/send-jobs-tracing.test.ts",
  "tests/mail/templates-send.http.test.ts",
];
/** The groups by their file patterns; tests/foundation/test-groups.test.ts checks what belongs in which. */
export const TEST_GROUPS = { alone: ALONE, beside: BESIDE, isolated: ISOLATED };
const server = Boolean(process.env.DATABASE_URL);
const serverWorkers = process.env.NEON_LOCAL_PROXY ? 1 : WORKER_DATABASES;
const sideBySide = server ? serverWorkers : 2;
/*
 * Vitest gives a round one worker count for all its projects (and puts a project of one isolated worker at
 * round 0 into a sequential round after all others), so round 0 runs three files at a time, from both groups:
 * a `beside` file mostly waits on its processes while two harness files use the cores.
 */
const roundZero = server ? serverWorkers : 3;

export default defineConfig({
  resolve: {
    // The Vercel entries (api/*.js) import the bundles `npm run build` makes of lib/functions/<name>.ts; tests
    // run them on the sources they are built from, so no build is needed before `npm test`.
    // The client package is read from its sources (the `source` condition TypeScript uses), so no build is needed either.
    alias: [
      { find: /^\.\.\/dist\/functions\/([a-z]+)\.js$/, replacement: `${fileURLToPath(new URL("./lib/functions/", import.meta.url))}$1.ts` },
      { find: /^@mail-ads\/client$/, replacement: fileURLToPath(new URL("./packages/client/src/index.ts", import.meta.url)) },
      { find: /^@mail-ads\/client\/admin$/, replacement: fileURLToPath(new URL("./packages/client/src/admin.ts", import.meta.url)) },
    ],
  },
  test: {
    globalSetup: ["tests/helpers/global-setup.ts"],
    setupFiles: ["tests/helpers/worker-database.ts"],
    reporters: ["default", new SkipReporter()],
    // Long flows (an onboarding, 55 ads) took 30 s+ on a loaded 2-core machine; a test that hangs still ends.
    testTimeout: 90_000,
    hookTimeout: 60_000,
    // expect.poll waits for something the server or the browser does next (a preview rendered, a row redrawn):
    // its 1 s default is shorter than one step on a loaded 2-core machine. Waiting longer only delays a failure.
    expect: { poll: { timeout: 10_000 } },
    pool: "forks",
    projects: [
      {
        extends: true,
        test: {
          name: "harness",
          include: ["tests/**/*.test.ts"],
          exclude: [...ALONE, ...BESIDE, ...ISOLATED],
          isolate: false,
          maxWorkers: roundZero,
          sequence: { groupOrder: 0 },
        },
      },
      // With a server the files take turns, so `beside` waits for `harness` instead of running with it.
      { extends: true, test: { name: "beside", include: BESIDE, maxWorkers: roundZero, sequence: { groupOrder: server ? 1 : 0 } } },
      { extends: true, test: { name: "isolated", include: ISOLATED, maxWorkers: sideBySide, sequence: { groupOrder: 2 } } },
      { extends: true, test: { name: "alone", include: ALONE, maxWorkers: 1, sequence: { groupOrder: 3 } } },
    ],
  },
});
