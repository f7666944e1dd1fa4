import { z } from "@hono/zod-openapi";
import { cursorQuery, limitQuery } from "../../../core/pagination";
import { mailStreams, suppressionReasons } from "../../../db/schema";

export const tags = ["Mail activity"];

export const SuppressionListQuery = z.object({
  stream: z
    .enum(mailStreams)
    .default("newsletter")
    .openapi({ description: "`newsletter` (the broadcast stream, default) or `transactional`: suppressions apply per stream.", example: "newsletter" }),
  reason: z.enum(suppressionReasons).optional().openapi({ description: "Only this reason.", example: "hard_bounce" }),
  active: z
    .enum(["true", "false"])
    .optional()
    .openapi({ description: "`true`: only suppressed addresses; `false`: only lifted ones. Both when left out.", example: "true" }),
  changed_since: z.iso
    .datetime({ offset: true, error: "Must be an ISO 8601 date-time." })
    .optional()
    .openapi({ description: "Only entries whose state changed at or after this time (ISO 8601 with offset).", example: "2026-03-01T00:00:00Z" }),
  format: z.enum(["json", "csv"]).optional().openapi({
    description: "`csv` answers the whole filtered list as CSV (as `Accept: text/csv` does); `limit` and `after` then do not apply.",
    example: "json",
  }),
  limit: limitQuery(500, 100),
  ...cursorQuery,
});

export const CSV_DESCRIPTION =
  "CSV (RFC 4180, UTF-8, CRLF line ends), streamed: the header `email,stream,active,reason,reactivatable,changed_at`, then one line per address, newest change first. A cell starting with `=`, `+`, `-`, `@`, tab or CR is prefixed with `'` so a spreadsheet does not run it as a formula.";
