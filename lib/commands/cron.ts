import { bootRuntime } from "../bootstrap";
import { restoreDemoAccounts } from "../seed";
import { cronJobs, findCronJob } from "../cron/index";

/** `npm run cron -- <name>` runs one job once against the local database. */
async function main(): Promise<number> {
  const name = process.argv[2];
  const job = name ? findCronJob(name) : undefined;
  if (!job) {
    process.stderr.write(`Usage: npm run cron -- <name>\n${cronJobs.map((j) => `  ${j.name}  ${j.description}`).join("\n")}\n`);
    return 2;
  }
  const runtime = await bootRuntime();
  // Embedded mode: the simulators start empty in this process; the Demo's ad account is registered again.
  await restoreDemoAccounts(runtime.deps, runtime.app.adsDeps);
  const result = await job.run(runtime.app.cronDeps);
  // Work the job queued (the in-process queue) finishes before the process ends.
  await runtime.deps.queue.idle();
  process.stdout.write(`${JSON.stringify({ job: job.name, result })}\n`);
  await runtime.close();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
