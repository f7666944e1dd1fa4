import fc from "fast-check";
import { beforeAll, expect, test } from "vitest";
import { defaultFrame, demoBlocks, toBlockDefinition } from "../../lib/mail/blocks/library";
import { compileStack, createPersonaliser, defaultDesignTokens, personaliseSubject, type CompiledTemplate } from "../../lib/mail/render";
import { createBatchWriter, jsonStringBody } from "../../lib/mail/send-jobs/batch-payload";
import { formatMailbox } from "../../lib/mail/sending/address";

let compiled: CompiledTemplate;

beforeAll(async () => {
  const blocks = demoBlocks.map(toBlockDefinition);
  const id = (slug: string) => blocks.find((b) => b.slug === slug)?.id ?? "";
  const result = await compileStack({
    kind: "newsletter",
    blocks,
    tokens: defaultDesignTokens,
    frame: defaultFrame,
    stack: [
      { block_id: id("heading"), values: { title: "Hello {{first_name}} — ß·…", subtitle: "{{#city}}Greetings to {{city}}{{/city}}" } },
      { block_id: id("text"), values: { body: "{{^vip}}Regular{{/vip}} {{note}}" } },
      { block_id: id("button"), values: { label: "Go", url: "{{link}}" } },
    ],
  });
  compiled = result.compiled;
});

test("jsonStringBody is ASCII and parses back to the same string, lone surrogates included", () => {
  fc.assert(
    fc.property(fc.string({ unit: "binary" }), (text) => {
      const body = jsonStringBody(text);
      expect(/^[\x20-\x7e]*$/.test(body)).toBe(true);
      expect(JSON.parse(`"${body}"`)).toBe(text);
    }),
  );
});

test("a batch body parses to exactly the messages JSON.stringify would have written, for any recipient data", () => {
  const value = fc.oneof(
    fc.string({ unit: "binary" }),
    fc.constantFrom("javascript:alert(1)", "https://example.com/?a=1&b=<2>", "", "line\nbreak"),
    fc.integer(),
    fc.boolean(),
  );
  const recipient = fc.record({
    email: fc.constantFrom("ann@example.com", "bob@example.org"),
    name: fc.option(fc.string({ unit: "binary" }), { nil: null }),
    data: fc.dictionary(fc.constantFrom("first_name", "city", "vip", "note", "link"), value),
  });
  fc.assert(
    fc.property(
      fc.array(recipient, { minLength: 1, maxLength: 4 }),
      fc.dictionary(fc.constantFrom("first_name", "note"), fc.string()),
      (recipients, defaults) => {
        const template = {
          compiled,
          subject: "News for {{first_name}}{{#city}} in {{city}}{{/city}}",
          defaults,
          from: { email: "news@example.com", name: 'Ex "ample"' },
          replyTo: "reply@example.com",
          stream: "broadcast",
          sendJobId: "job-1",
        };
        const writer = createBatchWriter(template);
        const withIds = recipients.map((r, i) => ({ ...r, messageId: `m-${i}` }));
        const { body, subjects } = writer.write(withIds, "batch-1");
        expect(body.every((byte) => byte < 0x80)).toBe(true);
        const html = createPersonaliser(compiled);
        const expected = withIds.map((r) => ({
          From: formatMailbox(template.from.email, template.from.name),
          To: formatMailbox(r.email, r.name),
          Subject: personaliseSubject(template.subject, r.data, defaults),
          HtmlBody: html(r.data, defaults),
          MessageStream: "broadcast",
          ReplyTo: "reply@example.com",
          TrackOpens: true,
          TrackLinks: "HtmlOnly",
          Metadata: { send_job_id: "job-1", batch_id: "batch-1", message_id: r.messageId },
        }));
        expect(JSON.parse(body.toString("utf8"))).toEqual(expected);
        expect(subjects).toEqual(expected.map((m) => m.Subject));
      },
    ),
    { numRuns: 60 },
  );
});
