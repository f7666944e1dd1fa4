import { z } from "@hono/zod-openapi";
import { and, eq, gt, lt, or, type Column, type SQL } from "drizzle-orm";
import { BadRequestError } from "./errors";

/**
 * Keyset cursors for the mail style (`after` + `paging`): the cursor is the (timestamp, id) of the last
 * item, opaque to callers (base64url JSON), so equal timestamps never skip or repeat an item.
 */
export type Cursor = { at: string; id: string };

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString("base64url");
}

export function decodeCursor(raw: string | undefined): Cursor | null {
  if (raw === undefined || raw === "") return null;
  try {
    const value = JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as Partial<Cursor>;
    if (typeof value.at === "string" && typeof value.id === "string" && !Number.isNaN(Date.parse(value.at))) {
      return { at: value.at, id: value.id };
    }
  } catch {
    // fall through to the error below
  }
  throw new BadRequestError("Invalid `after` cursor; pass `paging.after` from the previous page unchanged.");
}

/** `(at, id) > (cursor.at, cursor.id)` for a chronological keyset. */
export function afterCursor(atColumn: Column, idColumn: Column, cursor: Cursor | null): SQL | undefined {
  if (!cursor) return undefined;
  const at = new Date(cursor.at);
  return or(gt(atColumn, at), and(eq(atColumn, at), gt(idColumn, cursor.id)));
}

/** `(at, id) < (cursor.at, cursor.id)` for a newest-first keyset (`ORDER BY at DESC, id DESC`). */
export function beforeCursor(atColumn: Column, idColumn: Column, cursor: Cursor | null): SQL | undefined {
  if (!cursor) return undefined;
  const at = new Date(cursor.at);
  return or(lt(atColumn, at), and(eq(atColumn, at), lt(idColumn, cursor.id)));
}

/** Takes `limit + 1` rows and turns them into a page and its `paging`. */
export function toPage<T>(rows: T[], limit: number, cursorOf: (row: T) => Cursor) {
  const hasNext = rows.length > limit;
  const items = hasNext ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return { items, paging: { after: hasNext && last ? encodeCursor(cursorOf(last)) : null, has_next: hasNext } };
}

export const cursorQuery = {
  after: z
    .string()
    .optional()
    .openapi({ description: "Cursor from `paging.after` of the previous page.", example: "eyJhdCI6IjIwMjYtMDEtMDFUMDA6MDA6MDBaIiwiaWQiOiIxIn0" }),
};

export function limitQuery(max: number, fallback: number) {
  return z.coerce
    .number()
    .int()
    .min(1)
    .max(max)
    .default(fallback)
    .openapi({ description: `Page size, 1–${max}.`, example: fallback });
}

/**
 * Keyset cursors for lists sortable by more than time: the cursor carries the sort it was made for, the
 * sort key of the last item and its id. A cursor of another sort answers 400 rather than a wrong page.
 */
export type KeyCursor = { sort: string; key: string; id: string };

export function decodeKeyCursor(raw: string | undefined, sort: string): KeyCursor | null {
  if (raw === undefined || raw === "") return null;
  let value: Partial<KeyCursor> | null = null;
  try {
    value = JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as Partial<KeyCursor>;
  } catch {
    value = null;
  }
  if (!value || typeof value.key !== "string" || typeof value.id !== "string" || typeof value.sort !== "string")
    throw new BadRequestError("Invalid `after` cursor; pass `paging.after` from the previous page unchanged.");
  if (value.sort !== sort)
    throw new BadRequestError(`The \`after\` cursor was made for sort \`${value.sort}\`; keep the sort while paging or start again without \`after\`.`);
  return { sort: value.sort, key: value.key, id: value.id };
}

/** As `toPage`, for `KeyCursor`s. */
export function toKeyPage<T>(rows: T[], limit: number, cursorOf: (row: T) => KeyCursor) {
  const hasNext = rows.length > limit;
  const items = hasNext ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return { items, paging: { after: hasNext && last ? Buffer.from(JSON.stringify(cursorOf(last))).toString("base64url") : null, has_next: hasNext } };
}
