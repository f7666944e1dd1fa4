import { and, eq, inArray, lt } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mailMessageContents, mailMessages, mailSendJobs, mailTemplates } from "../../db/schema";
import { NotFoundError } from "../../core/errors";
import { personalise, textPartOf } from "../render";
import { placeholderNames } from "../render/compiled";
import { defaultJobName } from "../send-jobs/model";
import { RECIPIENT_MARK } from "../sending/address";
import { messageColumns, withJob } from "./service";

/**
 * What a message carried, for the operator's message page (docs/adr/0130):
 * - transactional mail: the HTML body as sent to Postmark, kept `MESSAGE_CONTENT_DAYS` (Postmark's own
 *   default content retention), with the recipient's own address replaced, since the service keeps no
 *   address (only its hash);
 * - newsletters: the recipients' values are transient (deleted when the job ends), so the page shows the
 *   job's stored template rendered with the job's params and every value a recipient would have filled
 *   shown as its `{{placeholder}}`, and says so.
 * The text part: transactional mail carries one (`TextBody`, made from the HTML as sent) and it is kept and
 * shown as sent; mail sent before text parts were, and newsletters (sent as HTML only, docs/adr/0132), show
 * what a plain-text client extracts from the HTML, and `text_source` says which.
 */
const MESSAGE_CONTENT_DAYS = 45;

const DAY_MS = 86_400_000;

type MessageContentSource = "as_sent" | "template_placeholders" | "expired" | "not_sent";

/** `as_sent`: the text part Postmark received; `derived_from_html`: no text part was sent, this is the HTML as text. */
type MessageTextSource = "as_sent" | "derived_from_html";

export type MessageContent = {
  message_id: string;
  source: MessageContentSource;
  note: string;
  subject: string;
  html: string | null;
  text: string | null;
  text_source: MessageTextSource | null;
  template: { id: string; name: string | null; version_sent: number | null; version_now: number | null };
  send_job: { id: string; name: string } | null;
  kept_until: string | null;
};

/** The content of one of the customer's messages; another customer's id is a 404. */
export async function getMessageContent(db: Database, customerId: string, messageId: string, now: Date): Promise<MessageContent> {
  const [message] = await db
    .select(messageColumns)
    .from(mailMessages)
    .leftJoin(mailSendJobs, withJob)
    .where(and(eq(mailMessages.customerId, customerId), eq(mailMessages.id, messageId)));
  if (!message) throw new NotFoundError("Message");
  const [template] = await db
    .select({ name: mailTemplates.name, version: mailTemplates.version })
    .from(mailTemplates)
    .where(and(eq(mailTemplates.customerId, customerId), eq(mailTemplates.id, message.templateId)));
  const base = {
    message_id: message.id,
    subject: message.subject,
    template: { id: message.templateId, name: template?.name ?? null, version_sent: null as number | null, version_now: template?.version ?? null },
  };

  if (message.kind === "newsletter" && message.sendJobId) {
    const [job] = await db
      .select({ id: mailSendJobs.id, name: mailSendJobs.name, createdAt: mailSendJobs.createdAt, params: mailSendJobs.params, compiled: mailSendJobs.compiled })
      .from(mailSendJobs)
      .where(and(eq(mailSendJobs.customerId, customerId), eq(mailSendJobs.id, message.sendJobId)));
    const sendJob = job ? { id: job.id, name: job.name ?? defaultJobName(null, job.createdAt) } : null;
    const render = job?.compiled;
    if (render?.html.format !== 1) {
      return {
        ...base,
        source: "not_sent",
        note: "The job was never started, so nothing was rendered for it.",
        html: null,
        text: null,
        text_source: null,
        send_job: sendJob,
        kept_until: null,
      };
    }
    const defaults = { ...render.values, ...(job?.params ?? {}) };
    // Every value a recipient's data would have filled is shown as its placeholder.
    const shown = Object.fromEntries(placeholderNames(render.html.nodes).map((name) => [name, `{{${name}}}`]));
    const html = personalise(render.html, { ...shown, ...defaults });
    return {
      ...base,
      template: { ...base.template, version_sent: render.templateVersion ?? null },
      source: "template_placeholders",
      note: "Newsletter recipients' addresses and values are not kept (they are deleted when the job ends): this is the job's template as it was sent, with the job's parameters filled and each recipient's value shown as its {{placeholder}}. Postmark filled the unsubscribe link per recipient. Newsletters are sent as HTML only: the text shown is derived from the HTML.",
      html,
      text: textPartOf(html),
      text_source: "derived_from_html",
      send_job: sendJob,
      kept_until: null,
    };
  }

  const [content] = await db.select().from(mailMessageContents).where(eq(mailMessageContents.messageId, message.id));
  if (!content) {
    const expired =
      message.status !== "invalid" && message.status !== "suppressed" && now.getTime() - message.createdAt.getTime() >= MESSAGE_CONTENT_DAYS * DAY_MS;
    return {
      ...base,
      source: expired ? "expired" : "not_sent",
      note: expired
        ? `The content of transactional mail is kept ${MESSAGE_CONTENT_DAYS} days; this message is older.`
        : "Nothing was sent to Postmark for this message (its address was invalid or suppressed, or it was sent before contents were kept).",
      html: null,
      text: null,
      text_source: null,
      send_job: null,
      kept_until: null,
    };
  }
  return {
    ...base,
    template: { ...base.template, version_sent: content.templateVersion },
    source: "as_sent",
    note:
      content.text === null
        ? `The HTML body as it was sent to Postmark, with the recipient's address replaced by ${RECIPIENT_MARK}. This mail was sent as HTML only: the text shown is derived from the HTML.`
        : `The HTML and text bodies as they were sent to Postmark, with the recipient's address replaced by ${RECIPIENT_MARK}.`,
    html: content.html,
    text: content.text ?? textPartOf(content.html),
    text_source: content.text === null ? "derived_from_html" : "as_sent",
    send_job: null,
    kept_until: new Date(content.createdAt.getTime() + MESSAGE_CONTENT_DAYS * DAY_MS).toISOString(),
  };
}

/** Deletes transactional contents older than `MESSAGE_CONTENT_DAYS`; the messages and their state stay. */
export async function pruneMessageContents(db: Database, now: Date, batch = 1000, maxBatches = 100): Promise<number> {
  const cutoff = new Date(now.getTime() - MESSAGE_CONTENT_DAYS * DAY_MS);
  const c = mailMessageContents;
  let pruned = 0;
  // In batches, bounded per run (a serverless function has a time limit); the next run continues.
  for (let i = 0; i < maxBatches; i++) {
    const old = db.select({ id: c.messageId }).from(c).where(lt(c.createdAt, cutoff)).limit(batch);
    const deleted = await db.delete(c).where(inArray(c.messageId, old)).returning({ id: c.messageId });
    pruned += deleted.length;
    if (deleted.length < batch) break;
  }
  return pruned;
}
