import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { SkipReporter } from "./tests/helpers/skip-reporter";

export default defineConfig({
  resolve: {
    // The Vercel entries (api/*.js) import the bundles `npm run build` makes of lib/functions/<name>.ts; tests
    // run them on the sources they are built from, so no build is needed before `npm test`.
    alias: [{ find: /^\.\.\/dist\/functions\/([a-z]+)\.js$/, replacement: `${fileURLToPath(new URL("./lib/functions/", import.meta.url))}$1.ts` }],
  },
  test: {
    include: ["tests/**/*.test.ts"],
    globalSetup: ["tests/helpers/global-setup.ts"],
    reporters: ["default", new SkipReporter()],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // One test file per core. Vitest's default keeps one core for its main process (on CI's 2 cores: one file at a
    // time), but that process is nearly idle here and a file spends much of its time waiting on processes, a
    // browser or timers, so a second file uses what the first leaves (issue 29.4). Each file still runs in a
    // process of its own on a database of its own (in-memory PGlite). Against one shared server (`DATABASE_URL`,
    // CI's PostgreSQL stage) files stay one at a time, as before: that stage was written for one file at a time.
    maxWorkers: process.env.DATABASE_URL ? 1 : availableParallelism(),
  },
});
