import { mustachioHtml, mustachioSubject, personaliseSubject } from "../render";
import { formatMailbox } from "../sending/address";
import { jsonStringBody, type BatchRecipient, type BatchTemplate, type BatchWriter } from "./batch-payload";

/**
 * The body of one Postmark `/email/bulk` call for a batch of a send job: the subject and HTML once, as
 * Mustachio templates (`render/mustachio.ts`), then per recipient its address, its `TemplateModel` (only
 * the values it needs, escaped for their position already) and its `Metadata` with the job, batch and
 * message ids, so provider events, the Messages API search by metadata, usage and retention work as for
 * the batch path. The message Postmark compiles equals `personalise` byte for byte (tests/mail/
 * bulk-preview.property.test.ts). Request-level fields match `createBatchWriter`'s per-message fields.
 */
export function createBulkWriter(template: BatchTemplate): BatchWriter {
  const html = mustachioHtml(template.compiled);
  const subject = mustachioSubject(template.subject);
  const quoted = (text: string) => `"${jsonStringBody(text)}"`;
  const braces = html.braces || subject.braces;
  const head = [
    `{"From":${quoted(formatMailbox(template.from.email, template.from.name))}`,
    `,"Subject":${quoted(subject.template)}`,
    `,"HtmlBody":${quoted(html.template)}`,
    `,"MessageStream":${quoted(template.stream)}`,
    template.replyTo ? `,"ReplyTo":${quoted(template.replyTo)}` : "",
    `,"TrackOpens":true,"TrackLinks":"HtmlOnly","Messages":[`,
  ].join("");
  const headBytes = Buffer.from(head, "utf8");
  const metadataHead = `,"Metadata":{"send_job_id":${quoted(template.sendJobId)},"batch_id":`;

  return {
    subject(recipient) {
      return personaliseSubject(template.subject, recipient.data, template.defaults);
    },
    write(recipients: readonly BatchRecipient[], batchId: string) {
      const parts: string[] = [];
      const subjects: string[] = [];
      const batch = quoted(batchId);
      recipients.forEach((recipient, i) => {
        subjects.push(personaliseSubject(template.subject, recipient.data, template.defaults));
        const model: Record<string, string> = braces ? { l: "{", r: "}" } : {};
        html.fill(model, recipient.data, template.defaults);
        subject.fill(model, recipient.data, template.defaults);
        let fields = "";
        for (const key in model) fields += `${fields === "" ? "" : ","}"${key}":${quoted(model[key])}`;
        parts.push(
          `${i > 0 ? "," : ""}{"To":${quoted(formatMailbox(recipient.email, recipient.name))},"TemplateModel":{${fields}}${metadataHead}${batch},"message_id":${quoted(recipient.messageId)}}}`,
        );
      });
      const tail = Buffer.from(`${parts.join("")}]}`, "utf8");
      return { body: Buffer.concat([headBytes, tail]), subjects };
    },
  };
}
