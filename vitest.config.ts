import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { SkipReporter } from "./tests/helpers/skip-reporter";

export default defineConfig({
  resolve: {
    // The Vercel entries (api/*.js) import the bundle `npm run build` makes of lib/vercel.ts; tests run them
    // on the source it is built from, so no build is needed before `npm test`.
    alias: [{ find: /^\.\.\/dist\/functions\/vercel\.js$/, replacement: fileURLToPath(new URL("./lib/vercel.ts", import.meta.url)) }],
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
