/*
 * Against a PostgreSQL server (`DATABASE_URL`, CI's second run) the test files run two at a time, each worker
 * on a database of its own: global-setup.ts migrates the named database once and copies it (`CREATE DATABASE …
 * TEMPLATE`) into one per worker. A worker's files take turns on its database, as all files once took turns on
 * one, so a file's cron sweep or recovery (which sees every customer's rows, on that file's own clock) never
 * touches rows another file is using at the same moment. Every reader of `DATABASE_URL` in the file (the
 * harness, a test's own connection, a child process it starts) sees the worker's database.
 */
import { workerDatabaseUrl } from "./worker-databases";

const base = process.env.WORKER_DATABASE_BASE_URL;
if (base) process.env.DATABASE_URL = workerDatabaseUrl(base, Number(process.env.VITEST_POOL_ID ?? "1"));
