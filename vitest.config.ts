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
  },
});
