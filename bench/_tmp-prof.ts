import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bootRuntime } from "../lib/bootstrap";
import { createAdsDeps } from "../lib/ads/deps";
import { connectAdAccount } from "../lib/ads/onboarding/service";
import { seedDemo } from "../lib/seed";
const runtime = await bootRuntime({ ...process.env, DATA_DIR: mkdtempSync(join(tmpdir(), "prof-")), LOG_LEVEL: "warn" });
const demo = await seedDemo(runtime.deps);
const deps = createAdsDeps(runtime.deps);
const account = await connectAdAccount(deps, demo.customerId);
for (const b of [[], ["age", "gender"], ["age", "gender"], ["age","gender"]]) {
  const t = performance.now();
  const rows = await account.session.getDailyAdInsights(account.adAccountId, { since: "2026-10-15", until: "2026-10-24", breakdowns: b });
  console.log(b.join(","), rows.length, (performance.now() - t).toFixed(0), "ms");
}
await runtime.close();
