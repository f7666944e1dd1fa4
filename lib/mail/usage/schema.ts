import { z } from "@hono/zod-openapi";
import { count } from "../fields";

/** Previous months listed by `GET /v1/usage`. */
export const PREVIOUS_MONTHS = 12;

export const Usage = z
  .object({
    month: z.string().openapi({ description: "The current UTC month (`YYYY-MM`).", example: "2026-03" }),
    sent: count("Accepted live e-mails this month (transactional and newsletters; sandbox never counts).", 41250),
    projection: count(
      "Expected for the whole month: `sent` extrapolated at this month's daily average to the month's end (days elapsed counted from the 1st, at least one), plus the pending recipients of scheduled, running and paused live jobs.",
      98000,
    ),
    limit: count("Monthly sending limit (set by an administrator).", 100000),
    remaining: count(
      "What can still be added this month: `limit` − `sent` − `reserved`, at least 0. Adding recipients or starting a job beyond it answers 429.",
      53750,
    ),
    reserved: count(
      "Pending recipients of this account's open live jobs (draft, scheduled, running, paused): counted against the limit before they are sent.",
      5000,
    ),
    max_per_job: count("Most recipients to send one job may hold.", 50000),
    previous: z
      .array(
        z.object({
          month: z.string().openapi({ description: "UTC month (`YYYY-MM`).", example: "2026-02" }),
          sent: count("Accepted live e-mails in that month.", 88010),
        }),
      )
      .openapi({ description: `The ${PREVIOUS_MONTHS} months before this one, newest first (0 for months without mail).` }),
  })
  .openapi("Usage", { description: "Sent quantities: this month, projection, previous months, the monthly limit and what remains. No monetary amounts." });
