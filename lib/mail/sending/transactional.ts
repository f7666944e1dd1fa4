import { and, eq, sql } from "drizzle-orm";
import { col, cols } from "../../db/sql";
import { mailMessageContents, mailMessageEvents, mailMessages } from "../../db/schema";
import type { Principal } from "../../core/context";
import { ApiError, ForbiddenError, QuotaExceededError, ValidationError } from "../../core/errors";
import type { MailDeps } from "../deps";
import { readMonthNow, reserveMonthlyRoom, settleRoom, type MonthlyRoom } from "../usage/meter";
import { POSTMARK_TEST_TOKEN, type SendOutcome } from "../provider/postmark";
import { personaliseSubject, textPartOf } from "../render";
import { renderForCustomer } from "../render/customer";
import { notReadyError, providerReadiness } from "../setup/provider-config";
import { isSuppressed } from "../suppressions/mirror";
import { publishMessageReconcile } from "../send-jobs/reconcile";
import { noteAnswer } from "../send-jobs/provider-health";
import { getTemplateRow } from "../templates/service";
import { formatMailbox, parseRecipient, recipientHash, withoutRecipient } from "./address";
import type { z } from "@hono/zod-openapi";
import type { SendResult as SendResultSchema } from "../templates/schema";

export type SendInput = { templateId: string; to: string; params: Record<string, string> };
export type SendResult = z.infer<typeof SendResultSchema>;

/**
 * One transactional mail, synchronously. Order matters: everything that can refuse the request without
 * creating a message (template, contract, readiness, quota) comes first; then a message row exists for
 * every outcome, and the provider is called at most once per message: the row is marked `sending`
 * before the call, so a crash or a lost answer leaves `unknown`, never a second send.
 * Back-pressure from Postmark (429, or 503 with `Retry-After`: the request turned away as a whole, nothing
 * taken in) is the one outcome that leaves nothing behind: the row is removed, the answer is 503 with
 * Postmark's `Retry-After` (5 s when it gave none) and no
 * `message_id`, so the Idempotency-Key is released and the customer's retry sends the mail once. The send
 * stays synchronous (the spec's statuses have no `queued`); a 5xx or no answer is in doubt and answered 500
 * with the `message_id` instead (./reconcile.ts settles it, never sending it again without evidence).
 * Round trips: a send's latency under load is mostly its waits for the database, one per round trip
 * (with send jobs' batches on the same cores each wait can stall for a scheduler slice). The
 * reads that do not depend on each other run at once: the template, the provider settings and frame's
 * footers, and the recipient's suppression; then the template's blocks, design and frame with the month's
 * count. Then the message row, the provider call and the outcome with its event (one statement): five waits
 * one after another where there were eleven.
 */
export async function sendTransactional(deps: MailDeps, principal: Principal, input: SendInput): Promise<SendResult> {
  const { templateId } = input;
  const { db, clock } = deps;
  const customerId = principal.customerId;
  // The reads that do not depend on each other start together (see "Round trips" above); each is awaited
  // where it was read before, so the checks still refuse in the same order and with the same errors.
  const readinessRead = startedEarly(providerReadiness(db, deps.secrets, customerId));
  const recipient = parseRecipient(input.to);
  const suppressionRead = startedEarly(recipient ? isSuppressed(db, customerId, "transactional", recipient.address) : Promise.resolve(false));
  const template = await getTemplateRow(db, customerId, templateId);
  if (template.status !== "active") {
    throw new ValidationError(`The template is ${template.status}; only active templates can be sent.`, [
      { path: "template_id", message: "Template is not active." },
    ]);
  }
  if (template.kind !== "transactional") {
    throw new ValidationError("Newsletter templates are sent with send jobs (POST /v1/send-jobs).", [
      { path: "template_id", message: "Template is a newsletter." },
    ]);
  }
  const known = new Set(template.params.map((p) => p.name));
  const unknown = Object.keys(input.params).filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new ValidationError(
      "Unknown template parameters.",
      unknown.map((name) => ({ path: `params.${name}`, message: "Not a parameter of this template." })),
    );
  }

  const readiness = await readinessRead;
  if (!readiness.ready) throw notReadyError(readiness.missing);
  const { credentials } = readiness;
  const sender = template.from ?? credentials.defaultTransactionalFrom ?? credentials.defaultNewsletterFrom;
  if (!sender) throw new ForbiddenError("No sender is configured for transactional mail.", { missing: ["default_transactional_from"] });

  const mode = principal.mail?.mode ?? "live";
  const now = clock.now();
  // The month's count is read while the template renders (its reads and the count: one round trip's wait).
  const monthRead = mode === "live" ? startedEarly(readMonthNow(deps, customerId, now)) : undefined;
  // Rendering validates the contract (missing required params → 422) before anything is recorded.
  const rendered = await renderForCustomer(
    db,
    { id: customerId, name: principal.customerName },
    {
      kind: "transactional",
      stack: template.blocks ?? [],
      values: template.values,
      params: input.params,
      contract: template.params,
    },
  );
  const subject = personaliseSubject(template.subject, { ...template.values, ...input.params });

  let room: MonthlyRoom | null = null;
  if (mode === "live") {
    const limit = principal.mail?.monthlyLimit ?? 0;
    // The month's count read now, less what this process's sends in flight (batches included) hold.
    room = await reserveMonthlyRoom(deps, { customerId, now, limit, want: 1, read: monthRead });
    if (room.granted === 0) {
      const held = room.heldByOthers > 0 ? `, ${room.heldByOthers} being sent` : "";
      throw new QuotaExceededError(
        `The monthly sending limit of ${limit} e-mails is reached; an administrator can raise it (${room.accepted} sent this month${held}).`,
        [],
      );
    }
  }
  try {
    return await sendReserved(
      deps,
      {
        customerId,
        templateId,
        templateVersion: template.version,
        mode,
        now,
        subject,
        rendered: rendered.html,
        sender,
        credentials,
        to: input.to,
        recipient,
        suppressed: suppressionRead,
      },
      room,
    );
  } finally {
    room?.release(1);
  }
}

type Reserved = {
  customerId: string;
  templateId: string;
  templateVersion: number;
  mode: "live" | "sandbox";
  now: Date;
  subject: string;
  rendered: string;
  sender: { email: string; name: string };
  credentials: Extract<Awaited<ReturnType<typeof providerReadiness>>, { ready: true }>["credentials"];
  to: string;
  /** `to` parsed (null: not an address), and whether the transactional stream suppresses it (read meanwhile). */
  recipient: ReturnType<typeof parseRecipient>;
  suppressed: Promise<boolean>;
};

/** `read`, already running, awaited later: a rejection meanwhile is not unhandled (the later `await` gets it). */
function startedEarly<T>(read: Promise<T>): Promise<T> {
  read.catch(() => undefined);
  return read;
}

/** The message row and the provider call, the month's room reserved (live): an accepted mail keeps it. */
async function sendReserved(deps: MailDeps, input: Reserved, room: MonthlyRoom | null): Promise<SendResult> {
  const { db } = deps;
  const { customerId, templateId, mode, now, subject, sender, credentials, recipient } = input;

  const base = { customerId, kind: "transactional" as const, mode, templateId, subject, createdAt: now };
  if (!recipient) {
    const [row] = await db
      .insert(mailMessages)
      .values({ ...base, status: "invalid", recipientHash: recipientHash(input.to), error: "The recipient address could not be parsed." })
      .returning({ id: mailMessages.id });
    return { message_id: row?.id ?? "", status: "invalid" };
  }
  if (await input.suppressed) {
    const [row] = await db
      .insert(mailMessages)
      .values({
        ...base,
        status: "suppressed",
        recipientHash: recipientHash(recipient.address),
        error: "The address is suppressed on the transactional stream.",
      })
      .returning({ id: mailMessages.id });
    return { message_id: row?.id ?? "", status: "suppressed" };
  }

  const [message] = await db
    .insert(mailMessages)
    .values({ ...base, status: "sending", recipientHash: recipientHash(recipient.address) })
    .returning({ id: mailMessages.id });
  if (!message) throw new Error("message insert returned nothing");
  const textBody = textPartOf(input.rendered);
  // The content for the operator's message page is written while Postmark is asked (no wait of its own).
  // Failing to keep it never fails the send: the page then says nothing was kept.
  const contentStored = db
    .insert(mailMessageContents)
    .values({
      messageId: message.id,
      customerId,
      templateVersion: input.templateVersion,
      html: withoutRecipient(input.rendered, recipient.address),
      text: withoutRecipient(textBody, recipient.address),
      createdAt: now,
    })
    .then(
      () => undefined,
      (error: unknown) => deps.logger.warn("message content not kept", { message_id: message.id, error: String(error) }),
    );
  const callStarted = deps.clock.now();
  const outcome = await deps.postmark.send(mode === "sandbox" ? POSTMARK_TEST_TOKEN : credentials.serverToken, {
    From: formatMailbox(sender.email, sender.name),
    To: formatMailbox(recipient.address, recipient.name),
    Subject: subject,
    HtmlBody: input.rendered,
    TextBody: textBody,
    MessageStream: credentials.transactionalStream,
    Metadata: { message_id: message.id },
  });
  // The call's own time: storing the content meanwhile is ours, not Postmark's holding the call.
  const answeredAt = deps.clock.now();
  await contentStored;
  // How Postmark answered: the evidence reconciliation reads (../send-jobs/provider-health.ts); sandbox sends never reach the customer's server.
  if (mode === "live") await noteAnswer(deps, customerId, callStarted, answeredAt, outcome.kind !== "unknown");
  if (outcome.kind === "throttled") {
    await deps.db.delete(mailMessages).where(and(eq(mailMessages.id, message.id), eq(mailMessages.status, "sending")));
    deps.logger.warn("postmark turned a transactional send away; answered 503, nothing kept", {
      customer_id: customerId,
      template_id: templateId,
      reason: outcome.message,
      retry_after_seconds: outcome.retryAfterSeconds,
    });
    throw providerThrottledError(outcome.retryAfterSeconds);
  }
  await settleRoom(
    room,
    [message.id],
    () => recordOutcome(deps, message.id, outcome),
    () => (outcome.kind === "accepted" ? 1 : 0),
  );
  if (outcome.kind === "unknown") await publishMessageReconcile(deps, { message_id: message.id, customer_id: customerId });
  return resultOf(deps, message.id, outcome);
}

/** Seconds a caller waits after Postmark turned a send away without saying how long (no `Retry-After`). */
const THROTTLED_RETRY_AFTER_SECONDS = 5;

function providerThrottledError(retryAfterSeconds: number | null): ApiError {
  const seconds = Math.max(1, retryAfterSeconds ?? THROTTLED_RETRY_AFTER_SECONDS);
  return new ApiError(
    "service_unavailable",
    `Postmark is turning sends away for the moment (rate limit or maintenance); this mail was not sent and nothing was kept. Send it again after ${seconds} s (the same Idempotency-Key may be used).`,
    { headers: { "Retry-After": String(seconds) } },
  );
}

type RecordedOutcome = Exclude<SendOutcome, { kind: "throttled" }>;

/**
 * One conditional update from `sending` (a late duplicate answer can never overwrite a final state) and the
 * send event of the row it updated, in one statement.
 */
async function recordOutcome(deps: MailDeps, messageId: string, outcome: RecordedOutcome): Promise<void> {
  const now = deps.clock.now();
  const m = mailMessages;
  const e = mailMessageEvents;
  const status = outcome.kind;
  const error = outcome.kind === "accepted" ? null : outcome.kind === "failed" ? `Postmark error ${outcome.code}: ${outcome.message}` : outcome.message;
  const providerMessageId = outcome.kind === "accepted" ? outcome.providerMessageId : null;
  await deps.db.execute(
    sql`with updated as (
          update ${m} set ${col(m.status)} = ${status}, ${col(m.providerMessageId)} = coalesce(${providerMessageId}::text, ${m.providerMessageId}),
                 ${col(m.error)} = coalesce(${error}::text, ${m.error}),
                 ${col(m.acceptedAt)} = case when ${status} = 'accepted' then ${now}::timestamptz else ${m.acceptedAt} end
          where ${m.id} = ${messageId} and ${m.status} = 'sending'
          returning ${m.customerId} as customer_id
        )
        insert into ${e} (${cols(e.messageId, e.customerId, e.type, e.occurredAt, e.identity, e.details)})
        select ${messageId}::uuid, customer_id, ${status}::text, ${now}::timestamptz, ${`send:${status}`}::text,
               ${error === null ? sql`'{}'::jsonb` : sql`jsonb_build_object('reason', ${error}::text)`}
        from updated
        on conflict do nothing`,
  );
}

function resultOf(deps: MailDeps, messageId: string, outcome: RecordedOutcome): SendResult {
  switch (outcome.kind) {
    case "accepted":
      return { message_id: messageId, status: "accepted" };
    case "suppressed":
    case "invalid":
      return { message_id: messageId, status: outcome.kind };
    case "unknown":
      // The key stays bound (the body carries message_id): a retry must not send again.
      throw new ApiError(
        "internal_error",
        "The provider did not answer; the outcome is unknown and the mail is not sent again by this request. We ask Postmark what it received: GET /v1/messages/{id} shows `accepted` if it has the mail, or `failed` if it never got it (send again then, under a new Idempotency-Key; should Postmark show the first one late after all, it turns `accepted` and both count).",
        { extra: { message_id: messageId } },
      );
    case "failed":
      deps.logger.error("postmark refused a transactional send", { message_id: messageId, code: outcome.code, status: outcome.status });
      throw new ApiError("internal_error", "The provider refused the mail for a reason on our side; it was not sent. Retry later.");
  }
}
