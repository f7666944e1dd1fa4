import { bootRuntime } from "../bootstrap";
import { cronJobs, findCronJob } from "./index";

/** `npm run cron -- <name>` runs one job once against the local database. */
async function main(): Promise<number> {
  const name = process.argv[2];
  const job = name ? findCronJob(name) : undefined;
  if (!job) {
    process.stderr.write(`Usage: npm run cron -- <name>\n${cronJobs.map((j) => `  ${j.name}  ${j.description}`).join("\n")}\n`);
    return 2;
  }
  const runtime = await bootRuntime();
  const result = await job.run(runtime.deps);
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
