import { ServerClient, Errors } from "postmark";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostmarkSimulator, type RunningPostmarkSimulator } from "../../lib/mail/provider/simulator";
import { compileMustachio, htmlEncode } from "../../lib/mail/provider/simulator/mustachio";

/**
 * The Bulk API of the simulator through the real `postmark` client (5.1: `sendBulkEmail`,
 * `getBulkEmailStatus`), and its Mustachio port against the behaviour read from Mustachio's source.
 */

const TOKEN = "bulk-server-token";
let sim: RunningPostmarkSimulator;
let client: ServerClient;

beforeAll(async () => {
  sim = await startPostmarkSimulator({
    port: 0,
    servers: [{ token: TOKEN, id: 3, streams: [{ id: "broadcast", type: "Broadcasts" }] }],
    webhook: null,
    deliveryDelayMs: 5,
  });
  client = new ServerClient(TOKEN, { useHttps: false, requestHost: `127.0.0.1:${sim.port}`, timeout: 5 });
});

afterAll(async () => {
  await sim.close();
});

async function simGet(path: string) {
  const response = await fetch(`${sim.url}${path}`);
  return (await response.json()) as Record<string, unknown>;
}

async function waitFor<T>(read: () => Promise<T | undefined | false>, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("Mustachio port", () => {
  it("HTML-encodes {{x}} like .NET's HttpUtility.HtmlEncode: the five specials, Latin-1 and astral characters as decimal references", () => {
    expect(htmlEncode(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    expect(htmlEncode("café ÿ\u00a0")).toBe("caf&#233; &#255;&#160;");
    expect(htmlEncode("Ł € 漢 😀")).toBe("Ł € 漢 &#128512;");
    expect(htmlEncode("lone \ud800 x")).toBe("lone \ufffd x");
  });

  it("renders values, raw values, sections, inverted sections, each, dotted and parent paths; missing is empty", () => {
    const render = compileMustachio(
      "{{ name }}|{{{name}}}|{{&name}}|{{missing}}|{{#vip}}V{{../name}}{{/vip}}|{{^vip}}N{{/vip}}|{{#each items}}[{{n}}]{{/each}}|{{a.b}}|{{! c }}",
      { escape: true },
    );
    expect(render({ name: "<b>", vip: "yes", items: [{ n: 1 }, { n: "é" }], a: { b: "x&y" } })).toBe("&lt;b&gt;|<b>|<b>||V&lt;b&gt;||[1][&#233;]|x&amp;y|");
    expect(render({ name: "", vip: "", items: [] })).toBe("|||||N|||");
    // A section's scope is its value: a bare name inside it resolves against that value (a string), so it is empty.
    expect(compileMustachio("{{#vip}}{{name}}{{/vip}}", { escape: true })({ vip: "yes", name: "Ann" })).toBe("");
    // Subjects and text bodies are rendered without escaping.
    expect(compileMustachio("Hi {{name}}", { escape: false })({ name: "<Ann & Bob>" })).toBe("Hi <Ann & Bob>");
    // Postmark's own tokens are left for delivery.
    expect(compileMustachio("{{{ pm:unsubscribe }}}", { escape: true })({})).toBe("{{{ pm:unsubscribe }}}");
  });

  it("refuses templates Mustachio cannot parse", () => {
    expect(() => compileMustachio("{{#a}}x", { escape: true })).toThrow(/opened but not closed/);
    expect(() => compileMustachio("{{#a}}x{{/b}}", { escape: true })).toThrow(/mismatched/);
    expect(() => compileMustachio("{{a b}}", { escape: true })).toThrow(/not valid/);
  });
});

describe("POST /email/bulk and GET /email/bulk/{id}", () => {
  it("compiles each recipient's message, keeps its Metadata, emits its events and reports the request's progress", async () => {
    const tag = `b${Date.now().toString(36)}`;
    const before = sim.simulator.stats();
    const sent = await client.sendBulkEmail({
      From: "News <news@brand.example>",
      Subject: "Hello {{name}}",
      HtmlBody: "<p>Hi {{name}}{{#vip}}, VIP{{/vip}}</p>",
      MessageStream: "broadcast",
      Metadata: { send_job_id: "job1" },
      Messages: [
        { To: `ann+${tag}@example.com`, TemplateModel: { name: "Ann & <Co>", vip: true }, Metadata: { message_id: `${tag}-1` } },
        { To: `bob+${tag}@example.com`, TemplateModel: { name: "Bøb 😀" }, Metadata: { message_id: `${tag}-2` } },
      ],
    });
    expect(sent).toMatchObject({ Status: "Accepted" });
    expect(typeof sent.Id).toBe("string");
    expect(Number.isNaN(Date.parse(sent.SubmittedAt))).toBe(false);
    // Counted as received through the Bulk API, with the request's bytes (the bench's "bytes on the wire").
    const after = sim.simulator.stats();
    expect(after.received_via_bulk - before.received_via_bulk).toBe(2);
    expect(after.request_bytes - before.request_bytes).toBeGreaterThan(200);

    const found = await simGet(`/__sim/messages?metadata_key=message_id&metadata_value=${tag}-1`);
    const [first] = found.messages as { MessageID: string }[];
    const detail = await simGet(`/__sim/messages/${first.MessageID}`);
    expect(detail).toMatchObject({ Subject: "Hello Ann & <Co>", HtmlBody: "<p>Hi Ann &amp; &lt;Co&gt;, VIP</p>" });
    expect(detail.Metadata).toEqual({ send_job_id: "job1", message_id: `${tag}-1` });
    const second = ((await simGet(`/__sim/messages?metadata_key=message_id&metadata_value=${tag}-2`)).messages as { MessageID: string }[])[0];
    expect(await simGet(`/__sim/messages/${second.MessageID}`)).toMatchObject({ Subject: "Hello Bøb 😀", HtmlBody: "<p>Hi B&#248;b &#128512;</p>" });

    const status = await waitFor(async () => {
      const current = await client.getBulkEmailStatus(sent.Id);
      return current.Status === "Completed" && current;
    }, "the bulk request to complete");
    expect(status).toMatchObject({ Id: sent.Id, TotalMessages: 2, PercentageCompleted: 100, Subject: "Hello {{name}}" });
    const webhooks = await waitFor(async () => {
      const { deliveries } = (await simGet("/__sim/webhooks?limit=1000")) as {
        deliveries: { Payload: { Metadata?: Record<string, string>; RecordType: string } }[];
      };
      const entries = deliveries.filter((entry) => entry.Payload.Metadata?.message_id?.startsWith(tag));
      return entries.length === 2 && entries;
    }, "a Delivery event per message");
    expect(webhooks.map((entry) => entry.Payload.RecordType)).toEqual(["Delivery", "Delivery"]);
  });

  it("answers Postmark's errors: a template that does not parse, an unknown request id", async () => {
    const error = await client
      .sendBulkEmail({ From: "news@brand.example", HtmlBody: "{{#a}}", MessageStream: "broadcast", Messages: [{ To: "x@example.com" }] })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(Errors.PostmarkError);
    expect((error as Errors.PostmarkError).code).toBe(300);
    const missing = await client.getBulkEmailStatus("00000000-0000-0000-0000-000000000000").then(
      () => null,
      (e: unknown) => e,
    );
    expect((missing as Errors.PostmarkError).statusCode).toBe(404);
  });
});
