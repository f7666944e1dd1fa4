import { compileSubject, createStreamingPersonaliser, type CompiledTemplate, type OutputNode, type PersonaliserSink, type RecipientData } from "../render";
import { formatMailbox } from "../sending/address";

/**
 * The body of one Postmark `/email/batch` call, written as ASCII bytes. A 40 KB newsletter to 100,000
 * recipients is 4 GB of JSON: serialising each message with `JSON.stringify` (and then encoding the string
 * to UTF-8) would escape and encode the same HTML 100,000 times. Here the template's static chunks are
 * JSON-escaped and UTF-8-encoded once per batch writer and copied as bytes; only the per-recipient values
 * (address, subject, placeholder values, message id) are escaped and encoded per recipient. The result
 * parses to exactly the messages `JSON.stringify` would have produced.
 */

const needsEscape = /[^\x20-\x21\x23-\x5b\x5d-\x7e]/;
const escapeAll = /[^\x20-\x21\x23-\x5b\x5d-\x7e]/g;
/** JSON's two-character escapes, as `JSON.stringify` writes them: a newline is 2 bytes, not the 6 of `\u000a`. */
const SHORT_ESCAPES: Record<string, string> = { '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };
const escapeChar = (c: string) => SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/**
 * The inside of a JSON string literal for `text` (the quotes left out), in ASCII: everything outside
 * printable ASCII becomes a `\u` escape with four hex digits. The body then parses to the same strings,
 * and the receiver decodes it on the ASCII fast path: a 20 MB batch with a few non-ASCII characters in
 * its HTML otherwise has to go through a UTF-8 decoder at a few hundred MB/s.
 */
export function jsonStringBody(text: string): string {
  return needsEscape.test(text) ? text.replace(escapeAll, escapeChar) : text;
}

export type BatchTemplate = {
  compiled: CompiledTemplate;
  /** The subject as written in the template: `{{placeholders}}` are filled per recipient. */
  subject: string;
  /** Job params and template values: recipient data wins over them. */
  defaults: RecipientData;
  from: { email: string; name: string };
  replyTo: string | null;
  stream: string;
  sendJobId: string;
};

export type BatchRecipient = { messageId: string; email: string; name: string | null; data: RecipientData };

type BatchBody = { body: Buffer; subjects: string[] };

export type BatchWriter = {
  /** The recipient's subject (also for recipients that are not sent, e.g. suppressed ones). */
  subject(recipient: BatchRecipient): string;
  /**
   * The request body for these recipients, and the subject each one gets (recorded with the message).
   * Every message carries `batchId` in its `Metadata`: recovery asks the provider what it received by it.
   */
  write(recipients: readonly BatchRecipient[], batchId: string): BatchBody;
};

/**
 * Bytes of static text in a compiled template as it is written (JSON-escaped, all sections counted):
 * sizes the batch buffer so that it is allocated once and never grown (growing a 20 MB buffer means
 * a fresh allocation and a copy of everything written so far).
 */
function staticLength(nodes: readonly OutputNode[]): number {
  let length = 0;
  for (const node of nodes) {
    if (typeof node === "string") length += Buffer.byteLength(jsonStringBody(node));
    else if ("when" in node) length += staticLength(node.then);
    else if ("parts" in node) length += staticLength(node.parts);
  }
  return length;
}

/** A growing byte buffer: copies of prepared bytes and UTF-8 writes of short strings. */
class ByteBuilder {
  buffer: Buffer;
  length = 0;

  constructor(capacity: number) {
    // Outside node's buffer pool: the finished body owns its memory and can be handed to another thread.
    this.buffer = Buffer.allocUnsafeSlow(Math.max(16 * 1024, capacity));
  }

  private reserve(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  bytes(bytes: Buffer): void {
    this.reserve(bytes.length);
    this.length += bytes.copy(this.buffer, this.length);
  }

  text(text: string): void {
    // UTF-8 needs at most 3 bytes per UTF-16 code unit.
    this.reserve(text.length * 3);
    this.length += this.buffer.write(text, this.length, "utf8");
  }
}

/**
 * Prepares a template once per batch. Field order and values match `OutgoingEmail` in the Postmark
 * adapter: tracking on (opens and HTML links feed the job statistics), the job, batch and message ids in
 * `Metadata` so provider events find their message and recovery can ask what a batch delivered.
 */
export function createBatchWriter(template: BatchTemplate): BatchWriter {
  const html = createStreamingPersonaliser(template.compiled, jsonStringBody);
  const subject = compileSubject(template.subject);
  const bytes = (text: string) => Buffer.from(text, "utf8");
  const quoted = (text: string) => `"${jsonStringBody(text)}"`;
  const head = bytes(`{"From":${quoted(formatMailbox(template.from.email, template.from.name))},"To":`);
  const subjectField = bytes(`,"Subject":`);
  const htmlField = bytes(`,"HtmlBody":"`);
  const tail = bytes(
    [
      `","MessageStream":${quoted(template.stream)}`,
      template.replyTo ? `,"ReplyTo":${quoted(template.replyTo)}` : "",
      `,"TrackOpens":true,"TrackLinks":"HtmlOnly","Metadata":{"send_job_id":${quoted(template.sendJobId)},"batch_id":"`,
    ].join(""),
  );
  const messageIdField = bytes(`","message_id":"`);
  const close = bytes(`"}}`);
  const comma = bytes(",");
  const perMessage = head.length + tail.length + staticLength(template.compiled.nodes) + 1024;
  // The static chunks arrive as the same string objects for every recipient (see `PersonaliserSink`).
  const fixed = new Map<string, Buffer>();

  return {
    subject(recipient) {
      return subject(recipient.data, template.defaults);
    },
    write(recipients, batchId) {
      const batchIdBytes = bytes(jsonStringBody(batchId));
      const out = new ByteBuilder(perMessage * recipients.length + 2);
      const sink: PersonaliserSink = {
        fixed(text) {
          let encoded = fixed.get(text);
          if (encoded === undefined) {
            encoded = bytes(text);
            fixed.set(text, encoded);
          }
          out.bytes(encoded);
        },
        value(text) {
          out.text(text);
        },
      };
      const subjects: string[] = [];
      out.text("[");
      recipients.forEach((recipient, i) => {
        if (i > 0) out.bytes(comma);
        const personal = subject(recipient.data, template.defaults);
        subjects.push(personal);
        out.bytes(head);
        out.text(quoted(formatMailbox(recipient.email, recipient.name)));
        out.bytes(subjectField);
        out.text(quoted(personal));
        out.bytes(htmlField);
        html(sink, recipient.data, template.defaults);
        out.bytes(tail);
        out.bytes(batchIdBytes);
        out.bytes(messageIdField);
        out.text(recipient.messageId);
        out.bytes(close);
      });
      out.text("]");
      return { body: out.buffer.subarray(0, out.length), subjects };
    },
  };
}
