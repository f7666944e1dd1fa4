import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CompiledTemplate, OutputNode } from "../../lib/db/json-columns";
import { startPostmarkSimulator, type RunningPostmarkSimulator } from "../../lib/mail/provider/simulator";
import { personalise, personaliseSubject } from "../../lib/mail/render";
import type { BatchTemplate } from "../../lib/mail/send-jobs/batch-payload";
import { createBulkWriter } from "../../lib/mail/send-jobs/bulk-payload";

/*
 * Preview equals delivery on the Bulk API path: for generated templates (static text with braces, HTML
 * specials, Postmark tokens; placeholders in every escape mode; sections with any/all/not, nested; URLs
 * checked per recipient) and generated recipient data (HTML specials, quotes, non-ASCII, emoji, empty,
 * missing, nested values, defaults), the message the simulator compiles with Mustachio from our
 * `/email/bulk` body equals `personalise` (the preview and the batch path) byte for byte, subject included.
 */

const TOKEN = "bulk-preview-token";
let sim: RunningPostmarkSimulator;

beforeAll(async () => {
  sim = await startPostmarkSimulator({
    port: 0,
    servers: [{ token: TOKEN, streams: [{ id: "broadcast", type: "Broadcasts" }] }],
    webhook: null,
    webhooks: false,
  });
});
afterAll(async () => {
  await sim.close();
});

const pieces = ["a", " ", "<", ">", "&", '"', "'", "é", "ÿ", "€", "漢", "😀", "{", "}", "{{", "}}", "{{{", "}}}", "\n", "#", "^", "/", ".."];
const text = fc.array(fc.constantFrom(...pieces), { maxLength: 6 }).map((parts) => parts.join(""));
const staticText = fc.oneof({ weight: 5, arbitrary: text }, { weight: 1, arbitrary: fc.constant("{{{ pm:unsubscribe }}}") });
const names = ["name", "city", "vip", "a.b", "missing", "empty"] as const;
const name = fc.constantFrom(...names);
const mode = fc.constantFrom("text", "multiline", "attr", "url" as const);
type Condition = { name: string } | { not: Condition } | { any: Condition[] } | { all: Condition[] };
const condition: fc.Arbitrary<Condition> = fc.letrec<{ c: Condition }>((tie) => ({
  c: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    name.map((n) => ({ name: n })),
    tie("c").map((c) => ({ not: c })),
    fc.array(tie("c"), { minLength: 1, maxLength: 2 }).map((any) => ({ any })),
    fc.array(tie("c"), { minLength: 1, maxLength: 2 }).map((all) => ({ all })),
  ),
})).c;
const nodes: fc.Arbitrary<OutputNode[]> = fc.letrec<{ list: OutputNode[]; node: OutputNode }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    staticText,
    fc.record({ slot: name, mode }),
    fc.record({ when: condition, then: tie("list") }),
    fc.record({
      url: fc.constantFrom("link", "image" as const),
      parts: fc.tuple(fc.constantFrom("https://x.example/?q=", "", "javascript:"), name).map(([prefix, slot]): OutputNode[] => [prefix, { slot, mode: "url" }]),
    }),
  ),
  list: fc.array(tie("node"), { maxLength: 4 }),
})).list;
const value = fc.oneof(text, fc.constant(""), fc.constant("https://ok.example/x?a=1&b=2"), fc.constant(" javascript:alert(1)"));
const data = fc.record(
  { name: value, city: value, vip: value, empty: fc.constant(""), a: fc.record({ b: value }, { requiredKeys: [] }) },
  { requiredKeys: [] },
);
const subjectPart = fc.constantFrom(
  "Hi ",
  "{{name}}",
  "{{ city }}",
  "{{#vip}}VIP {{name}}{{/vip}}",
  "{{^city}}nowhere{{/city}}",
  "<&>",
  "😀",
  "{{{ x }}}",
  "\n",
  "{",
);

let run = 0;

describe("Bulk API: the message Postmark compiles equals the preview", () => {
  it("byte for byte, for generated templates, values and subjects", async () => {
    await fc.assert(
      fc.asyncProperty(
        nodes,
        fc.array(subjectPart, { maxLength: 5 }),
        fc.array(data, { minLength: 1, maxLength: 3 }),
        data,
        async (body, subjectParts, recipients, defaults) => {
          run += 1;
          const compiled: CompiledTemplate = { format: 1, nodes: ["<p>", ...body], placeholders: [] };
          const template: BatchTemplate = {
            compiled,
            subject: `S${subjectParts.join("")}`,
            defaults,
            from: { email: "news@brand.example", name: "Brand" },
            replyTo: null,
            stream: "broadcast",
            sendJobId: "job-1",
          };
          const batch = recipients.map((recipientData, i) => ({
            messageId: `run${run}-m${i}`,
            email: `r${run}x${i}@example.com`,
            name: null,
            data: recipientData,
          }));
          const { body: request, subjects } = createBulkWriter(template).write(batch, `batch-${run}`);
          const response = await fetch(`${sim.url}/email/bulk`, {
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json", "x-postmark-server-token": TOKEN },
            body: new Uint8Array(request),
          });
          expect(response.status, await response.clone().text()).toBe(200);
          for (const [i, recipient] of batch.entries()) {
            const found = (await (await fetch(`${sim.url}/__sim/messages?metadata_key=message_id&metadata_value=${recipient.messageId}`)).json()) as {
              messages: { MessageID: string }[];
            };
            expect(found.messages).toHaveLength(1);
            const message = (await (await fetch(`${sim.url}/__sim/messages/${found.messages[0].MessageID}`)).json()) as Record<string, unknown>;
            expect(message.HtmlBody).toBe(personalise(compiled, recipient.data, defaults));
            expect(message.Subject).toBe(personaliseSubject(template.subject, recipient.data, defaults));
            expect(subjects[i]).toBe(message.Subject);
            expect(message.Metadata).toEqual({ send_job_id: "job-1", batch_id: `batch-${run}`, message_id: recipient.messageId });
          }
        },
      ),
      { numRuns: 60, seed: 3301 },
    );
  });

  it("sends the HTML once: a 30 KB template to 500 recipients is far smaller than 500 copies", () => {
    const compiled: CompiledTemplate = { format: 1, nodes: [`<p>${"x".repeat(30_000)}</p>`, { slot: "name", mode: "text" }], placeholders: ["name"] };
    const writer = createBulkWriter({
      compiled,
      subject: "Hi {{name}}",
      defaults: {},
      from: { email: "n@b.example", name: "B" },
      replyTo: null,
      stream: "broadcast",
      sendJobId: "j",
    });
    const recipients = Array.from({ length: 500 }, (_, i) => ({ messageId: `m${i}`, email: `u${i}@example.com`, name: null, data: { name: `User ${i}` } }));
    const { body } = writer.write(recipients, "b");
    expect(body.length).toBeLessThan(30_000 + 500 * 250);
  });
});
