import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../core/context";
import { envelope, errorResponses, pagedEnvelope } from "../../core/openapi";
import { cursorQuery, decodeCursor, limitQuery } from "../../core/pagination";
import { serviceRoute } from "../../core/route";
import type { MailDeps } from "../deps";
import { listSuppressionChanges, lookupSuppressions } from "../suppressions/mirror";
import { reactivateSuppression } from "../suppressions/reactivate";

const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });

/** Wide on purpose: the feed echoes whatever Postmark holds, and a caller must be able to send it back. */
const Address = z
  .string()
  .trim()
  .min(3)
  .max(320)
  .regex(/^[^@\s]+@[^@\s]+$/, "Must be an e-mail address.");

const StreamParam = z.enum(["newsletter", "transactional"]).default("newsletter").openapi({ description: "`newsletter` (the broadcast stream, default) or `transactional`.", example: "newsletter" });
const Reason = z.enum(["unsubscribe", "hard_bounce", "spam_complaint"]);

export const SuppressionEntry = z
  .object({
    email: z.string().openapi({ description: "The address, lower-cased, in plain text.", example: "jane@example.com" }),
    stream: z.enum(["newsletter", "transactional"]).openapi({ description: "Suppressions apply per stream.", example: "newsletter" }),
    active: z.boolean().openapi({ description: "True: suppressed. False: lifted (apply it too: the address may be mailed again).", example: true }),
    reason: Reason.openapi({ description: "`unsubscribe` (the unsubscribe link, or a manual suppression in Postmark), `hard_bounce` or `spam_complaint`. A lifted entry keeps the reason it had.", example: "unsubscribe" }),
    reactivatable: z.boolean().openapi({ description: "Whether POST /v1/suppressions/reactivate can lift it: true for active unsubscribes and hard bounces, always false for spam complaints and lifted entries.", example: true }),
    changed_at: z.string().openapi({ description: "ISO 8601 with milliseconds; when the mirror recorded this state. Strictly increasing within a feed.", example: "2026-03-01T10:00:00.000Z" }),
  })
  .openapi("SuppressionEntry");

const FeedQuery = z.object({
  since: z.iso.datetime({ offset: true }).openapi({ description: "ISO 8601; entries with `changed_at` at or after it (inclusive). Pass the last entry's `changed_at` next time.", example: "2026-03-01T00:00:00.000Z" }),
  stream: StreamParam,
  limit: limitQuery(500, 100),
  ...cursorQuery,
});

export const LookupRequest = z
  .object({
    emails: z.array(Address).min(1).max(500).openapi({ description: "1–500 addresses; more answer 422.", example: ["jane@example.com", "max@example.com"] }),
    stream: StreamParam,
  })
  .openapi("SuppressionLookupRequest");

export const LookupResult = z
  .object({
    email: z.string().openapi({ description: "The address as it was asked.", example: "jane@example.com" }),
    suppressed: z.boolean().openapi({ description: "Whether the address is suppressed on the stream.", example: true }),
    reason: Reason.optional().openapi({ description: "Only when suppressed.", example: "hard_bounce" }),
    reactivatable: z.boolean().optional().openapi({ description: "Only when suppressed; false for spam complaints.", example: true }),
    since: z.string().optional().openapi({ description: "Only when suppressed; ISO 8601 of the change that set the current state.", example: "2026-03-01T10:00:00.000Z" }),
  })
  .openapi("SuppressionLookupResult");

export const ReactivateRequest = z
  .object({
    email: Address.openapi({ description: "The address to lift; only after a new confirmed double opt-in.", example: "jane@example.com" }),
    stream: StreamParam,
  })
  .openapi("SuppressionReactivateRequest");

export const ReactivateResult = z
  .object({
    email: z.string().openapi({ description: "The address as it was given.", example: "jane@example.com" }),
    stream: z.enum(["newsletter", "transactional"]).openapi({ description: "The stream.", example: "newsletter" }),
    reactivated: z.boolean().openapi({ description: "Always true: lifted now, or not suppressed in the first place.", example: true }),
  })
  .openapi("SuppressionReactivateResult");

export function registerSuppressionRoutes(app: OpenAPIHono<AppEnv>, deps: MailDeps): void {
  app.openapi(
    serviceRoute(deps, "read", {
      method: "get",
      path: "/v1/suppressions",
      operationId: "listSuppressionChanges",
      tags: ["Suppressions"],
      summary: "Suppression changes since a time",
      description:
        "The change feed of the suppression mirror for one stream: every address whose suppression was set or lifted at or after `since`, in its latest state, ordered by `(changed_at, id)`. `changed_at` is strictly increasing within a feed and assigned in commit order, so a reader that passes the last entry's `changed_at` as `since` never misses an entry (it may see that last entry once more) and a reader that follows `paging.after` sees each entry once. An address that changes again moves to the end of the feed. Entries with `active=false` (lifted) must be applied too. Provider changes older than the last one mirrored for an address (late webhook retries) are ignored, and a lift for an address the feed never showed as suppressed adds no entry: there is nothing to apply, and the suppression it lifted is ignored if it arrives late. The mirror is as current as the last Postmark webhook (normally seconds). `since` missing answers 400, malformed 422; `limit` 1–500 (default 100).",
      request: { query: FeedQuery },
      responses: { 200: { description: "A page of changes.", content: json(pagedEnvelope(SuppressionEntry)) }, ...errorResponses("mail", [400, 401, 422, 429, 500]) },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = await listSuppressionChanges(deps.db, c.get("principal").customerId, { stream: query.stream, since: new Date(query.since), limit: query.limit, after: decodeCursor(query.after) });
      return c.json({ data: page.items, paging: page.paging, request_id: c.get("requestId") }, 200);
    },
  );

  app.openapi(
    serviceRoute(deps, "read", {
      method: "post",
      path: "/v1/suppressions/lookup",
      operationId: "lookupSuppressions",
      tags: ["Suppressions"],
      summary: "Look addresses up in the suppression mirror",
      description:
        "Answers from the mirror (not live from Postmark), one result per address in the order given. Unsuppressed addresses carry only `email` and `suppressed: false`. Addresses are matched case-insensitively. POST keeps addresses out of URLs; it changes nothing, so the reporting scope suffices. More than 500 addresses answer 422.",
      request: { body: { required: true, content: json(LookupRequest) } },
      responses: { 200: { description: "One result per address.", content: json(envelope(z.array(LookupResult))) }, ...errorResponses("mail", [400, 401, 409, 422, 429, 500]) },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const results = await lookupSuppressions(deps.db, c.get("principal").customerId, body.stream, body.emails);
      return c.json({ data: results, request_id: c.get("requestId") }, 200);
    },
  );

  app.openapi(
    serviceRoute(deps, "write", {
      method: "post",
      path: "/v1/suppressions/reactivate",
      operationId: "reactivateSuppression",
      tags: ["Suppressions"],
      summary: "Lift a suppression after a new opt-in",
      description:
        "Call only after a new confirmed double opt-in. Deletes the address from Postmark's suppression list of the stream (the broadcast stream for `newsletter`); once Postmark confirms, the mirror lifts it and an entry with `active=false` appears in the feed (and `suppression.changed` is sent). Postmark is asked even when the mirror shows nothing, because the mirror may lag by one webhook. Idempotent: an address that is not suppressed answers `reactivated: true` with no effect. A spam complaint cannot be lifted: 409 `conflict` with `details.reason = spam_complaint`. If Postmark cannot be reached the answer is 500 and nothing changed.",
      request: { body: { required: true, content: json(ReactivateRequest) } },
      responses: { 200: { description: "Lifted (or not suppressed).", content: json(envelope(ReactivateResult)) }, ...errorResponses("mail", [400, 401, 403, 409, 422, 429, 500]) },
    }),
    async (c) => {
      const result = await reactivateSuppression(deps, c.get("principal").customerId, c.req.valid("json"));
      return c.json({ data: result, request_id: c.get("requestId") }, 200);
    },
  );
}
