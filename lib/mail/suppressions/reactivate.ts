import { and, eq } from "drizzle-orm";
import { ApiError, ForbiddenError, SpamComplaintConflictError, ValidationError } from "../../core/errors";
import { mailProviderConfigs, mailSuppressions } from "../../db/schema";
import type { MailDeps } from "../deps";
import { enqueueMailEvent, publishDeliveries } from "../webhooks/emit";
import { applySuppressionChange, normaliseAddress, type Stream } from "./mirror";
import type { z } from "@hono/zod-openapi";
import type { ReactivateResult as ReactivateResultSchema } from "./schema";

export type ReactivateResult = z.infer<typeof ReactivateResultSchema>;

function spamComplaint(email: string): SpamComplaintConflictError {
  return new SpamComplaintConflictError(`${email} reported a message as spam; Postmark never lets a spam complaint be lifted.`);
}

/**
 * Lifts a suppression after a new confirmed opt-in. Postmark is asked on the right stream even when the
 * mirror shows nothing (the mirror may lag the provider by one webhook); only its `Deleted` answer lifts
 * the mirror, which adds an `active=false` entry to the feed and a `suppression.changed` event. An address
 * that is not suppressed is a no-op success. A spam complaint, known from the mirror or from Postmark's
 * refusal, is 409 with `details.reason = spam_complaint`.
 */
export async function reactivateSuppression(
  deps: Pick<MailDeps, "db" | "clock" | "queue" | "logger" | "secrets" | "postmarkSuppressions">,
  customerId: string,
  input: { email: string; stream: Stream },
): Promise<ReactivateResult> {
  const email = normaliseAddress(input.email);
  const result: ReactivateResult = { email: input.email, stream: input.stream, reactivated: true };
  const [row] = await deps.db
    .select()
    .from(mailSuppressions)
    .where(and(eq(mailSuppressions.customerId, customerId), eq(mailSuppressions.stream, input.stream), eq(mailSuppressions.email, email)));
  if (row?.active && row.reason === "spam_complaint") throw spamComplaint(input.email);

  const [config] = await deps.db.select().from(mailProviderConfigs).where(eq(mailProviderConfigs.customerId, customerId));
  const streamId = input.stream === "newsletter" ? config?.broadcastStream : config?.transactionalStream;
  if (!config?.serverTokenSealed || !streamId) {
    // Without a Postmark server nothing was ever sent, so nothing can be suppressed there.
    if (!row?.active) return result;
    throw new ForbiddenError("The account's Postmark server is not configured; an administrator must set it up.", {
      missing: [
        ...(config?.serverTokenSealed ? [] : ["server_token"]),
        ...(streamId ? [] : [input.stream === "newsletter" ? "broadcast_stream" : "transactional_stream"]),
      ],
    });
  }

  const outcome = await deps.postmarkSuppressions.delete(deps.secrets.open(config.serverTokenSealed), streamId, email);
  if (outcome.kind === "unavailable") {
    deps.logger.error("postmark suppression delete failed", { customer_id: customerId, reason: outcome.message });
    throw new ApiError("internal_error", "Postmark could not be reached to lift the suppression; nothing changed. Retry later.");
  }
  if (outcome.kind === "refused") {
    if (outcome.spamComplaint) throw spamComplaint(input.email);
    throw new ValidationError("Postmark refused to lift the suppression.", [{ path: "email", message: outcome.message }]);
  }

  const now = deps.clock.now();
  const deliveries = await deps.db.transaction(async (tx) => {
    const entry = await applySuppressionChange(tx, customerId, input.stream, email, { active: false }, now);
    return entry ? enqueueMailEvent(tx, now, customerId, "suppression.changed", entry) : [];
  });
  await publishDeliveries(deps, deliveries);
  return result;
}
