import type { ExtractTablesWithRelations } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type * as schema from "./schema";

type Schema = typeof schema;
/** The one database type the domain code sees, whichever driver sits behind it. */
export type Database = PgDatabase<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** A transaction handle has the same query surface as the database. */
export type Tx = Parameters<Parameters<Database["transaction"]>[0]>[0];
