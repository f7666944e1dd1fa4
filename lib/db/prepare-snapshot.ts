import { prepareSnapshot } from "./pglite-snapshot";

/**
 * `npm install`'s postinstall: makes the embedded PGlite's migrated snapshot, so the first `npm start` and
 * every test harness start from it (lib/db/pglite-snapshot.ts). Skipped on Vercel (functions use a server);
 * a failure only costs the first start its speed, so it never fails the install.
 */
if (process.env.VERCEL) {
  process.stdout.write("PGlite snapshot: skipped on Vercel\n");
} else {
  const started = performance.now();
  await prepareSnapshot().then(
    ({ path, made }) => process.stdout.write(`PGlite snapshot ${made ? `made in ${Math.round(performance.now() - started)} ms` : "present"}: ${path}\n`),
    (error: unknown) => process.stdout.write(`PGlite snapshot not made (the first start makes it): ${String(error)}\n`),
  );
}
