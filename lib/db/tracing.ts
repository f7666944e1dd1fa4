import { inSpan, SpanKind } from "../base/tracing";
import type { Database } from "./database";

/**
 * A client span per statement and per transaction on the database handle (OpenTelemetry database
 * conventions): the statement text as drizzle sent it, never its parameters. Statements inside a transaction
 * run on the transaction's own session and are covered by its span, which keeps a 500-row batch write one
 * span, not hundreds. Hooked on the handle's drizzle session (every builder, `execute` and relational query
 * prepares its statement there), so no call site changes.
 */
type PreparedQuery = { execute(...args: unknown[]): Promise<unknown>; all?(...args: unknown[]): Promise<unknown> };
type Session = { prepareQuery(query: { sql: string }, ...rest: unknown[]): PreparedQuery };

const QUERY_TEXT_LIMIT = 1000;

export function traceDatabase(db: Database, system: "pglite" | "pg" | "neon"): Database {
  const session = (db as unknown as { session?: Session }).session;
  if (!session || typeof session.prepareQuery !== "function") return db;
  const prepare = session.prepareQuery.bind(session);
  session.prepareQuery = (query, ...rest) => {
    const prepared = prepare(query, ...rest);
    const attributes = statementAttributes(query.sql, system);
    const execute = prepared.execute.bind(prepared);
    prepared.execute = (...args) => inSpan(attributes["db.operation.name"], { kind: SpanKind.CLIENT, attributes }, () => execute(...args));
    if (prepared.all) {
      const all = prepared.all.bind(prepared);
      prepared.all = (...args) => inSpan(attributes["db.operation.name"], { kind: SpanKind.CLIENT, attributes }, () => all(...args));
    }
    return prepared;
  };
  const transaction = db.transaction.bind(db);
  db.transaction = ((run, config) =>
    inSpan("TRANSACTION", { kind: SpanKind.CLIENT, attributes: { "db.system.name": "postgresql", "app.db.driver": system } }, () =>
      transaction(run, config),
    )) as Database["transaction"];
  return db;
}

function statementAttributes(text: string, system: string) {
  const operation = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? "QUERY";
  return {
    "db.system.name": "postgresql",
    "app.db.driver": system,
    "db.operation.name": operation,
    "db.query.text": text.length > QUERY_TEXT_LIMIT ? `${text.slice(0, QUERY_TEXT_LIMIT)}…` : text,
  };
}
