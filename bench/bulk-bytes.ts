import { pathToFileURL } from "node:url";
import type { CompiledTemplate } from "../lib/db/json-columns";
import { createBatchWriter, type BatchRecipient, type BatchTemplate } from "../lib/mail/send-jobs/batch-payload";
import { createBulkWriter } from "../lib/mail/send-jobs/bulk-payload";

/**
 * The request bodies only: 100,000 recipients of a 33 KB newsletter written for
 * `/email/batch` (today's path) and for `/email/bulk` (the Bulk API path), in batches of 500 as the engine
 * sends them. Prints the bytes that go on the wire and the CPU the service spends writing them. The
 * engine's claims, records and the provider round trips are the same on both paths (bench/send-jobs.ts).
 */

const RECIPIENTS = 100_000;
const BATCH = 500;

function newsletter(): CompiledTemplate {
  const paragraph = `<tr><td style="padding:0 24px;font-family:Helvetica,Arial,sans-serif;font-size:16px;line-height:24px;color:#333">Lorem ipsum dolor sit amet, consectetur adipiscing elit — “quoted” & <b>bold</b>.</td></tr>`;
  const filler = paragraph.repeat(Math.ceil(33_000 / paragraph.length));
  return {
    format: 1,
    nodes: [
      "<html><body><table><tr><td>Hello ",
      { slot: "first_name", mode: "text" },
      "</td></tr>",
      { when: { name: "city" }, then: ["<tr><td>Greetings to ", { slot: "city", mode: "text" }, "!</td></tr>"] },
      filler,
      '<tr><td><a href="https://shop.example.com/spring?u=',
      { slot: "first_name", mode: "url" },
      '">Shop</a> {{{ pm:unsubscribe }}}</td></tr></table></body></html>',
    ],
    placeholders: ["city", "first_name"],
  };
}

function measure(write: (recipients: readonly BatchRecipient[], batchId: string) => { body: Buffer }, recipients: BatchRecipient[]) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  let bytes = 0;
  for (let i = 0; i < recipients.length; i += BATCH) bytes += write(recipients.slice(i, i + BATCH), `batch-${i / BATCH}`).body.length;
  const used = process.cpuUsage(cpu);
  return { bytes, cpuSeconds: (used.user + used.system) / 1e6, wallSeconds: (performance.now() - started) / 1000 };
}

export async function benchBulkBytes(): Promise<void> {
  const template: BatchTemplate = {
    compiled: newsletter(),
    subject: "News for {{first_name}}",
    defaults: {},
    from: { email: "news@brand.example", name: "Brand" },
    replyTo: null,
    stream: "broadcast",
    sendJobId: "00000000-0000-4000-8000-000000000000",
  };
  const recipients: BatchRecipient[] = Array.from({ length: RECIPIENTS }, (_, i) => ({
    messageId: crypto.randomUUID(),
    email: `reader${i}@example.com`,
    name: null,
    data: { first_name: `Reader ${i}`, ...(i % 3 === 0 && { city: "Zürich" }) },
  }));
  const batch = measure(createBatchWriter(template).write, recipients);
  const bulk = measure(createBulkWriter(template).write, recipients);
  const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
  console.log(`bulk vs batch (${RECIPIENTS.toLocaleString("en")} recipients, 33 KB HTML, request bodies only)`);
  console.log(`  /email/batch: ${mb(batch.bytes)} MB on the wire, ${batch.cpuSeconds.toFixed(2)} s CPU to write`);
  console.log(`  /email/bulk:  ${mb(bulk.bytes)} MB on the wire, ${bulk.cpuSeconds.toFixed(2)} s CPU to write (target ≤ 100 MB)`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await benchBulkBytes();
