import fc from "fast-check";
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Errors, ServerClient } from "postmark";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../lib/base/clock";
import {
  POSTMARK_API_TEST_TOKEN,
  SIMULATOR_TEST_ADDRESSES,
  classifyTestAddress,
  createPostmarkSimulator,
  simulatorTestAddress,
  startPostmarkSimulator,
  type RunningPostmarkSimulator,
  type WebhookPayload,
} from "../../lib/mail/provider/simulator";

/**
 * The simulator is exercised the way the mail service uses it: through the real `postmark` client over
 * loopback HTTP, with a real HTTP receiver for its webhooks. Every test uses its own addresses (a unique
 * tag), so tests never depend on each other's suppressions or events.
 */

const LIVE_TOKEN = "live-server-token";
const SANDBOX_TOKEN = "sandbox-server-token";
const WEBHOOK_USER = "postmark";
const WEBHOOK_PASSWORD = "s3cret:with-colon";
const INACTIVE_WORDING = "Inactive recipients are ones that have generated a hard bounce, a spam complaint, or a manual suppression.";

type Received = { headers: IncomingHttpHeaders; payload: WebhookPayload };

function recipientOf(payload: WebhookPayload): string {
  return "Email" in payload ? payload.Email : payload.Recipient;
}

/** A webhook receiver on 127.0.0.1:0; `answers` scripts the HTTP statuses it gives per recipient address. */
async function startReceiver() {
  const received: Received[] = [];
  const answers = new Map<string, number[]>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const payload = JSON.parse(Buffer.concat(chunks).toString("utf8")) as WebhookPayload;
      received.push({ headers: request.headers, payload });
      const status = answers.get(recipientOf(payload))?.shift() ?? 200;
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/postmark/webhook`,
    received,
    answers,
    forMessage: (messageId: string) => received.filter((entry) => entry.payload.MessageID === messageId).map((entry) => entry.payload),
    forRecipient: (address: string) => received.map((entry) => entry.payload).filter((payload) => recipientOf(payload) === address),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let sim: RunningPostmarkSimulator;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let live: ServerClient;
let sandbox: ServerClient;
let tagCounter = 0;

/** A fresh tag per call keeps every test's addresses apart. */
function uniqueTag(): string {
  tagCounter += 1;
  return `t${tagCounter}x${Date.now().toString(36)}`;
}

function clientFor(token: string, timeoutSeconds = 5): ServerClient {
  return new ServerClient(token, { useHttps: false, requestHost: `127.0.0.1:${sim.port}`, timeout: timeoutSeconds });
}

function mail(to: string, extra: Record<string, unknown> = {}) {
  return { From: "Brand <news@brand.example>", To: to, Subject: "Hello", HtmlBody: "<p>Hello</p>", ...extra };
}

/** The rejection of a client call (fails the test when the call succeeds). */
async function rejection(call: Promise<unknown>): Promise<Errors.PostmarkError> {
  const outcome = await call.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  if (outcome.ok) throw new Error(`expected a rejection, got ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(Errors.PostmarkError);
  return outcome.error as Errors.PostmarkError;
}

async function waitFor<T>(read: () => T | undefined | false, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value) return value;
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}; received: ${JSON.stringify(
          receiver.received.map((r) => r.payload),
          null,
          1,
        )}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function control(method: string, path: string, body?: unknown) {
  const response = await fetch(`${sim.url}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, text, json: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

async function rawSend(path: string, token: string | null, body: unknown) {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (token) headers["x-postmark-server-token"] = token;
  const response = await fetch(`${sim.url}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, text, json: JSON.parse(text) as unknown };
}

function keysOf(payload: object): string[] {
  return Object.keys(payload).sort();
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,7})?(Z|[+-]\d{2}:\d{2})$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DELIVERY_KEYS = ["Details", "DeliveredAt", "Metadata", "MessageID", "MessageStream", "Recipient", "RecordType", "ServerID", "Tag"].sort();
const BOUNCE_KEYS = [
  "BouncedAt",
  "CanActivate",
  "Description",
  "Details",
  "DumpAvailable",
  "Email",
  "From",
  "ID",
  "Inactive",
  "Metadata",
  "MessageID",
  "MessageStream",
  "Name",
  "RecordType",
  "ServerID",
  "Subject",
  "Tag",
  "Type",
  "TypeCode",
].sort();
const SUBSCRIPTION_CHANGE_KEYS = [
  "ChangedAt",
  "Metadata",
  "MessageID",
  "MessageStream",
  "Origin",
  "RecordType",
  "Recipient",
  "ServerID",
  "SuppressSending",
  "SuppressionReason",
  "Tag",
].sort();
const ENGAGEMENT_KEYS = [
  "Client",
  "Geo",
  "MessageID",
  "MessageStream",
  "Metadata",
  "OS",
  "Platform",
  "ReceivedAt",
  "Recipient",
  "RecordType",
  "Tag",
  "UserAgent",
].sort();

beforeAll(async () => {
  receiver = await startReceiver();
  sim = await startPostmarkSimulator({
    port: 0,
    servers: [
      {
        token: LIVE_TOKEN,
        id: 7,
        streams: [
          { id: "outbound", type: "Transactional" },
          { id: "newsletter", type: "Broadcasts" },
        ],
      },
      { token: SANDBOX_TOKEN, id: 8, deliveryType: "Sandbox", streams: [{ id: "outbound", type: "Transactional" }] },
    ],
    webhook: { url: receiver.url, username: WEBHOOK_USER, password: WEBHOOK_PASSWORD },
    deliveryDelayMs: 5,
    webhookRetryDelaysMs: [20, 40],
  });
  live = clientFor(LIVE_TOKEN);
  sandbox = clientFor(SANDBOX_TOKEN);
});

afterAll(async () => {
  await sim.close();
  await receiver.close();
});

beforeEach(() => sim.simulator.setFaults({ mode: "none" }));

describe("POST /email through the postmark client", () => {
  it("accepts a message with Postmark's success shape and records it with its HTML", async () => {
    const to = `reader+${uniqueTag()}@example.com`;
    const sent = await live.sendEmail(mail(to, { Tag: "welcome", Metadata: { message_id: "m-1", customer: "c-9" } }));
    expect(keysOf(sent), JSON.stringify(sent)).toEqual(["ErrorCode", "Message", "MessageID", "SubmittedAt", "To"]);
    expect(sent, JSON.stringify(sent)).toMatchObject({ To: to, ErrorCode: 0, Message: "OK" });
    expect(sent.MessageID).toMatch(UUID);
    expect(sent.SubmittedAt).toMatch(ISO_8601);

    const stored = await control("GET", `/__sim/messages/${sent.MessageID}`);
    expect(stored.status, stored.text).toBe(200);
    expect(stored.json, stored.text).toMatchObject({
      MessageID: sent.MessageID,
      To: to,
      From: "Brand <news@brand.example>",
      Subject: "Hello",
      MessageStream: "outbound",
      Metadata: { message_id: "m-1", customer: "c-9" },
      HtmlBody: "<p>Hello</p>",
      Sandboxed: false,
    });
  });

  it("answers 401 with ErrorCode 10 for an unknown or missing token", async () => {
    const error = await rejection(clientFor("not-a-token").sendEmail(mail("a@example.com")));
    expect(error).toBeInstanceOf(Errors.InvalidAPIKeyError);
    expect([error.code, error.statusCode], error.message).toEqual([10, 401]);

    const missing = await rawSend("/email", null, mail("a@example.com"));
    expect(missing.status, missing.text).toBe(401);
    expect(missing.json, missing.text).toMatchObject({ ErrorCode: 10 });
  });

  it("answers 422 / 300 for a message without recipients, sender or body", async () => {
    const noTo = await rejection(live.sendEmail({ From: "a@brand.example", Subject: "x", HtmlBody: "x" }));
    expect(noTo).toBeInstanceOf(Errors.InvalidEmailRequestError);
    expect([noTo.code, noTo.statusCode, noTo.message]).toEqual([300, 422, "Zero recipients specified"]);

    const cases: [Record<string, unknown>, string][] = [
      [{ To: "a@example.com", Subject: "x", HtmlBody: "x" }, "Invalid 'From' value."],
      [{ From: "a@brand.example", To: "a@example.com", Subject: "x" }, "Provide either email TextBody or HtmlBody or both."],
      [{ From: "a@brand.example", To: "not an address", Subject: "x", TextBody: "x" }, "Invalid 'To' address: 'not an address'."],
    ];
    for (const [body, message] of cases) {
      const response = await rawSend("/email", LIVE_TOKEN, body);
      expect([response.status, response.json], response.text).toEqual([422, { ErrorCode: 300, Message: message }]);
    }
  });

  it("rejects an unknown MessageStream with Postmark's 1235 and defaults to outbound", async () => {
    const unknown = await rejection(live.sendEmail(mail("a@example.com", { MessageStream: "nope" })));
    expect([unknown.code, unknown.statusCode], unknown.message).toEqual([1235, 422]);

    const sent = await live.sendEmail(mail(`default+${uniqueTag()}@example.com`));
    expect(sim.simulator.message(sent.MessageID).MessageStream).toBe("outbound");
  });

  it("refuses a body that is not JSON, or not sent as JSON, with Postmark's codes", async () => {
    const notJson = await fetch(`${sim.url}/email`, {
      method: "POST",
      headers: { "x-postmark-server-token": LIVE_TOKEN, "content-type": "application/json" },
      body: "{not json",
    });
    expect([notJson.status, ((await notJson.json()) as { ErrorCode: number }).ErrorCode]).toEqual([422, 402]);
    const wrongType = await fetch(`${sim.url}/email`, {
      method: "POST",
      headers: { "x-postmark-server-token": LIVE_TOKEN, "content-type": "text/plain" },
      body: JSON.stringify(mail("a@example.com")),
    });
    expect([wrongType.status, ((await wrongType.json()) as { ErrorCode: number }).ErrorCode]).toEqual([422, 409]);
  });
});

/** A raw HTTP POST to the simulator: the body written in the given pieces, chunked (no Content-Length). */
function chunkedSend(path: string, pieces: readonly Buffer[]): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${sim.url}${path}`,
      { method: "POST", headers: { "x-postmark-server-token": LIVE_TOKEN, "content-type": "application/json" } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
      },
    );
    req.on("error", reject);
    (async () => {
      for (const piece of pieces) if (!req.write(piece)) await new Promise((drained) => req.once("drain", drained));
      req.end();
    })().catch(reject);
  });
}

describe("request bodies", () => {
  it("reads ASCII and UTF-8 bodies alike, in any chunking, with or without a byte order mark, and never mixes two requests", async () => {
    const tag = uniqueTag();
    const large = mail(`large+${tag}@example.com`, { HtmlBody: `<p>${"x".repeat(300_000)}</p>` });
    const accented = mail(`utf8+${tag}@example.com`, { Subject: "Grüße aus Köln ✉️", HtmlBody: "<p>Straße – naïve café 🎉</p>" });
    const bytes = Buffer.from(JSON.stringify(accented));
    // Split inside multi-byte characters: one byte at a time for the first 200 bytes, then the rest.
    const pieces = [...Array.from({ length: 200 }, (_, i) => bytes.subarray(i, i + 1)), bytes.subarray(200)];
    const bigFirst = await chunkedSend("/email", [Buffer.from(JSON.stringify(large))]);
    const small = await chunkedSend("/email", pieces);
    const withBom = await chunkedSend("/email", [Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
    for (const response of [bigFirst, small, withBom]) expect(response.status, response.text).toBe(200);
    const stored = (response: { text: string }) => sim.simulator.message((JSON.parse(response.text) as { MessageID: string }).MessageID);
    expect(stored(bigFirst).HtmlBody).toBe(large.HtmlBody);
    for (const response of [small, withBom]) {
      expect(stored(response)).toMatchObject({ Subject: "Grüße aus Köln ✉️", HtmlBody: "<p>Straße – naïve café 🎉</p>" });
    }
  });

  it("answers 413 for a body over Postmark's 50 MB limit sent without a Content-Length, and keeps serving", async () => {
    const megabyte = Buffer.alloc(1024 * 1024, 0x20);
    const response = await chunkedSend("/email/batch", [Buffer.from("["), ...Array.from({ length: 51 }, () => megabyte), Buffer.from("]")]);
    expect(response.status, response.text).toBe(413);
    const after = await live.sendEmail(mail(`after413+${uniqueTag()}@example.com`));
    expect(after.ErrorCode).toBe(0);
  });
});

describe("POST /email/batch", () => {
  it("returns one result per message, in order, each with its own ErrorCode, under HTTP 200", async () => {
    const tag = uniqueTag();
    const messages = [
      mail(`first+${tag}@example.com`),
      { From: "a@brand.example", Subject: "x", HtmlBody: "x" },
      mail("broken address"),
      mail(`stream+${tag}@example.com`, { MessageStream: "missing" }),
      mail(`last+${tag}@example.com`, { MessageStream: "newsletter" }),
    ];
    const results = await live.sendEmailBatch(messages);
    expect(
      results.map((result) => result.ErrorCode),
      JSON.stringify(results),
    ).toEqual([0, 300, 300, 1235, 0]);
    expect(results[0].To).toBe(`first+${tag}@example.com`);
    expect(results[4].To).toBe(`last+${tag}@example.com`);
    expect(results[0].MessageID).not.toBe(results[4].MessageID);

    const raw = await rawSend("/email/batch", LIVE_TOKEN, messages);
    expect(raw.status, raw.text).toBe(200);
  });

  it("refuses more than 500 messages with ErrorCode 410", async () => {
    const response = await rawSend(
      "/email/batch",
      LIVE_TOKEN,
      Array.from({ length: 501 }, (_, index) => mail(`n${index}@example.com`)),
    );
    expect([response.status, response.json], response.text).toMatchObject([422, { ErrorCode: 410 }]);
  });
});

describe("inactive recipients", () => {
  it("suppresses a hard-bounced address per stream and answers 406 with Postmark's exact wording", async () => {
    const address = simulatorTestAddress("HardBounce", uniqueTag());
    const first = await live.sendEmail(mail(address, { Metadata: { message_id: "hb-1" } }));
    expect(first.ErrorCode).toBe(0);
    await waitFor(() => receiver.forMessage(first.MessageID).some((p) => p.RecordType === "SubscriptionChange"), "the suppression");

    const error = await rejection(live.sendEmail(mail(address)));
    expect(error).toBeInstanceOf(Errors.InactiveRecipientsError);
    expect([error.code, error.statusCode]).toEqual([406, 422]);
    expect(error.message).toBe(
      `You tried to send to recipient(s) that have been marked as inactive. Found inactive addresses: ${address}. ${INACTIVE_WORDING}`,
    );
    expect((error as Errors.InactiveRecipientsError).recipients).toEqual([address]);

    const batch = await live.sendEmailBatch([mail(address), mail(`fine+${uniqueTag()}@example.com`)]);
    expect(
      batch.map((result) => result.ErrorCode),
      JSON.stringify(batch),
    ).toEqual([406, 0]);

    // Suppressions are per stream: the broadcast stream still takes the address.
    const broadcast = await live.sendEmail(mail(address, { MessageStream: "newsletter" }));
    expect(broadcast.ErrorCode, JSON.stringify(broadcast)).toBe(0);
  });

  it("lists every inactive address, comma-separated, when all recipients are inactive", async () => {
    const tag = uniqueTag();
    const addresses = [`one+${tag}@example.com`, `two+${tag}@example.com`];
    await live.createSuppressions("outbound", { Suppressions: addresses.map((EmailAddress) => ({ EmailAddress })) });
    const error = await rejection(live.sendEmail(mail(addresses.join(","))));
    expect(error.message).toBe(
      `You tried to send to recipient(s) that have been marked as inactive. Found inactive addresses: ${addresses.join(", ")}. ${INACTIVE_WORDING}`,
    );
    expect((error as Errors.InactiveRecipientsError).recipients).toEqual(addresses);
  });

  it("delivers to the active recipients and names the inactive ones when only some are inactive", async () => {
    const tag = uniqueTag();
    const suppressed = `gone+${tag}@example.com`;
    await live.createSuppressions("outbound", { Suppressions: [{ EmailAddress: suppressed }] });
    const active = `here+${tag}@example.com`;
    const response = await rawSend("/email", LIVE_TOKEN, mail(`${active}, ${suppressed}`));
    expect(response.status, response.text).toBe(422);
    const body = response.json as { ErrorCode: number; Message: string; MessageID: string };
    expect([body.ErrorCode, body.Message], response.text).toEqual([406, `Message OK, but will not deliver to these inactive addresses: ${suppressed}.`]);
    expect(Errors.InactiveRecipientsError.parseInactiveRecipients(body.Message)).toEqual([suppressed]);
    expect(sim.simulator.message(body.MessageID).Recipients).toEqual([active]);
  });
});

describe("POSTMARK_API_TEST and sandbox servers", () => {
  it("validates and answers for POSTMARK_API_TEST but records and posts nothing", async () => {
    const before = sim.simulator.stats().received;
    const apiTest = clientFor(POSTMARK_API_TEST_TOKEN);
    const sent = await apiTest.sendEmail(mail(`api-test+${uniqueTag()}@example.com`));
    expect(sent, JSON.stringify(sent)).toMatchObject({ ErrorCode: 0, Message: "OK" });
    expect(sent.MessageID).toMatch(UUID);
    const invalid = await rejection(apiTest.sendEmail({ From: "a@brand.example", Subject: "x", HtmlBody: "x" }));
    expect(invalid.code).toBe(300);

    await sim.simulator.whenIdle();
    expect(sim.simulator.stats().received).toBe(before);
    expect(sim.simulator.messages({ to: sent.To }).total).toBe(0);
    expect(receiver.forMessage(sent.MessageID)).toEqual([]);
  });

  it("records sandbox mail without delivering it (no Delivery webhook)", async () => {
    const to = `sandboxed+${uniqueTag()}@example.com`;
    const sent = await sandbox.sendEmail(mail(to));
    expect(sent.ErrorCode).toBe(0);
    await sim.simulator.whenIdle();
    expect(sim.simulator.message(sent.MessageID)).toMatchObject({ Sandboxed: true, ServerID: 8, To: to });
    expect(receiver.forMessage(sent.MessageID)).toEqual([]);
  });
});

describe("faults", () => {
  it("answers 500 for the next `count` send requests and accepts nothing meanwhile", async () => {
    const armed = await control("POST", "/__sim/faults", { mode: "error500", count: 2 });
    expect(armed.status, armed.text).toBe(200);
    const received = sim.simulator.stats().received;
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const error = await rejection(live.sendEmail(mail(`e500+${uniqueTag()}@example.com`)));
      expect(error).toBeInstanceOf(Errors.InternalServerError);
      expect(error.statusCode).toBe(500);
    }
    expect(sim.simulator.stats().received).toBe(received);
    const third = await live.sendEmail(mail(`after+${uniqueTag()}@example.com`));
    expect(third.ErrorCode).toBe(0);
  });

  it("answers slowly: the client times out, the message is still accepted once", async () => {
    await control("POST", "/__sim/faults", { mode: "slow", delay_ms: 1500 });
    const metadataId = `slow-${uniqueTag()}`;
    const error = await rejection(clientFor(LIVE_TOKEN, 1).sendEmail(mail(`slow+${uniqueTag()}@example.com`, { Metadata: { message_id: metadataId } })));
    expect(error.message).toMatch(/timeout|aborted/i);
    await waitFor(() => sim.simulator.metadataMessageIdCount(metadataId) === 1, "the slow message to be accepted");
  });

  it("drops the connection without an answer, before or after accepting", async () => {
    await control("POST", "/__sim/faults", { mode: "drop" });
    const lost = `drop-${uniqueTag()}`;
    const dropped = await rejection(live.sendEmail(mail(`drop+${uniqueTag()}@example.com`, { Metadata: { message_id: lost } })));
    expect(dropped.statusCode, dropped.message).toBe(0);
    expect(sim.simulator.metadataMessageIdCount(lost)).toBe(0);

    await control("POST", "/__sim/faults", { mode: "drop", after_accept: true });
    const accepted = `drop-accepted-${uniqueTag()}`;
    await rejection(live.sendEmailBatch([mail(`drop2+${uniqueTag()}@example.com`, { Metadata: { message_id: accepted } })]));
    expect(sim.simulator.metadataMessageIdCount(accepted)).toBe(1);
  });

  it("arms one fault per endpoint side by side; a fault without an endpoint replaces them all", async () => {
    await control("POST", "/__sim/faults", { mode: "error500", count: 1, path: "/email/batch" });
    await control("POST", "/__sim/faults", { mode: "drop", count: 1, path: "/email" });
    const batch = await rejection(live.sendEmailBatch([mail(`per-path+${uniqueTag()}@example.com`)]));
    expect(batch.statusCode, batch.message).toBe(500);
    const lost = `per-path-${uniqueTag()}`;
    const single = await rejection(live.sendEmail(mail(`per-path+${uniqueTag()}@example.com`, { Metadata: { message_id: lost } })));
    expect(single.statusCode, single.message).toBe(0);
    expect(sim.simulator.metadataMessageIdCount(lost)).toBe(0);
    // Both taken: the next requests go through.
    expect((await live.sendEmail(mail(`per-path-after+${uniqueTag()}@example.com`))).ErrorCode).toBe(0);

    await control("POST", "/__sim/faults", { mode: "drop", count: 1, path: "/email" });
    await control("POST", "/__sim/faults", { mode: "error500", count: 1 });
    const replaced = await rejection(live.sendEmail(mail(`replaced+${uniqueTag()}@example.com`)));
    expect(replaced.statusCode, replaced.message).toBe(500);
    expect((await live.sendEmail(mail(`replaced-after+${uniqueTag()}@example.com`))).ErrorCode).toBe(0);
  });

  it("rejects the promise of the plain fetch handler when a connection is dropped", async () => {
    const local = createPostmarkSimulator({ webhooks: false });
    local.setFaults({ mode: "drop" });
    const request = new Request("http://simulator.local/email", {
      method: "POST",
      headers: { "x-postmark-server-token": "simulator-server-token", "content-type": "application/json" },
      body: JSON.stringify(mail("a@example.com")),
    });
    await expect(local.fetch(request)).rejects.toThrow(/connection dropped/);
    local.close();
  });
});

describe("webhooks", () => {
  it("posts a Delivery webhook with Basic auth and Postmark's fields", async () => {
    const to = `delivered+${uniqueTag()}@example.com`;
    const sent = await live.sendEmail(mail(to, { Tag: "receipt", Metadata: { message_id: "d-1" } }));
    const [delivery] = await waitFor(
      () =>
        receiver.received.filter((r) => r.payload.MessageID === sent.MessageID).length > 0 &&
        receiver.received.filter((r) => r.payload.MessageID === sent.MessageID),
      "the Delivery webhook",
    );
    const expectedAuth = `Basic ${Buffer.from(`${WEBHOOK_USER}:${WEBHOOK_PASSWORD}`).toString("base64")}`;
    expect(delivery.headers.authorization).toBe(expectedAuth);
    expect(delivery.headers["content-type"]).toBe("application/json");
    const payload = delivery.payload;
    expect(keysOf(payload), JSON.stringify(payload)).toEqual(DELIVERY_KEYS);
    expect(payload, JSON.stringify(payload)).toMatchObject({
      RecordType: "Delivery",
      ServerID: 7,
      MessageStream: "outbound",
      MessageID: sent.MessageID,
      Recipient: to,
      Tag: "receipt",
      Metadata: { message_id: "d-1" },
    });
    expect(payload.RecordType === "Delivery" && payload.DeliveredAt).toMatch(ISO_8601);
  });

  it("takes Basic credentials written into the webhook URL, as Postmark does", async () => {
    const url = new URL(receiver.url);
    url.username = "urluser";
    url.password = "urlpass";
    const local = await startPostmarkSimulator({ port: 0, webhook: { url: url.toString() }, deliveryDelayMs: 1 });
    try {
      const client = new ServerClient("simulator-server-token", { useHttps: false, requestHost: `127.0.0.1:${local.port}` });
      const sent = await client.sendEmail(mail(`urlauth+${uniqueTag()}@example.com`));
      const entry = await waitFor(() => receiver.received.find((r) => r.payload.MessageID === sent.MessageID), "the webhook");
      expect(entry.headers.authorization).toBe(`Basic ${Buffer.from("urluser:urlpass").toString("base64")}`);
    } finally {
      await local.close();
    }
  });

  it("on a transactional stream, a hard bounce posts Bounce then SubscriptionChange and no Delivery", async () => {
    const address = simulatorTestAddress("HardBounce", uniqueTag());
    const sent = await live.sendEmail(mail(address, { Tag: "t1", Metadata: { message_id: "b-1" } }));
    const events = await waitFor(() => receiver.forMessage(sent.MessageID).length >= 2 && receiver.forMessage(sent.MessageID), "bounce events");
    expect(events.map((event) => event.RecordType)).toEqual(["Bounce", "SubscriptionChange"]);
    const [bounce, change] = events;
    expect(keysOf(bounce), JSON.stringify(bounce)).toEqual(BOUNCE_KEYS);
    expect(bounce, JSON.stringify(bounce)).toMatchObject({
      RecordType: "Bounce",
      Type: "HardBounce",
      TypeCode: 1,
      Inactive: true,
      CanActivate: true,
      Email: address,
      MessageID: sent.MessageID,
      ServerID: 7,
      MessageStream: "outbound",
      Tag: "t1",
      Metadata: { message_id: "b-1" },
      From: "Brand <news@brand.example>",
      Subject: "Hello",
    });
    expect(bounce.RecordType === "Bounce" && bounce.BouncedAt).toMatch(ISO_8601);
    expect(keysOf(change), JSON.stringify(change)).toEqual(SUBSCRIPTION_CHANGE_KEYS);
    expect(change, JSON.stringify(change)).toMatchObject({
      RecordType: "SubscriptionChange",
      Recipient: address,
      SuppressSending: true,
      SuppressionReason: "HardBounce",
      Origin: "Recipient",
      MessageID: sent.MessageID,
      Tag: "t1",
      Metadata: { message_id: "b-1" },
    });
    const dump = await live.getSuppressions("outbound");
    expect(
      dump.Suppressions.find((entry) => entry.EmailAddress === address),
      JSON.stringify(dump),
    ).toMatchObject({ SuppressionReason: "HardBounce" });
  });

  it("on a broadcast stream, a hard bounce posts only the SubscriptionChange", async () => {
    const address = simulatorTestAddress("HardBounce", uniqueTag());
    const sent = await live.sendEmail(mail(address, { MessageStream: "newsletter" }));
    await waitFor(() => receiver.forMessage(sent.MessageID).length > 0, "the SubscriptionChange");
    await sim.simulator.whenIdle();
    const events = receiver.forMessage(sent.MessageID);
    expect(
      events.map((event) => event.RecordType),
      JSON.stringify(events),
    ).toEqual(["SubscriptionChange"]);
    expect(events[0]).toMatchObject({ SuppressionReason: "HardBounce", MessageStream: "newsletter", SuppressSending: true });
    const error = await rejection(live.sendEmail(mail(address, { MessageStream: "newsletter" })));
    expect(error.code).toBe(406);
  });

  it("a soft bounce posts an inactive=false Bounce and leaves the address sendable", async () => {
    const address = simulatorTestAddress("SoftBounce", uniqueTag());
    const sent = await live.sendEmail(mail(address));
    const [bounce] = await waitFor(() => receiver.forMessage(sent.MessageID).length > 0 && receiver.forMessage(sent.MessageID), "the Bounce");
    await sim.simulator.whenIdle();
    expect(receiver.forMessage(sent.MessageID).map((event) => event.RecordType)).toEqual(["Bounce"]);
    expect(bounce, JSON.stringify(bounce)).toMatchObject({
      RecordType: "Bounce",
      Type: "SoftBounce",
      TypeCode: 4096,
      Inactive: false,
      CanActivate: true,
      Email: address,
    });
    const again = await live.sendEmail(mail(address));
    expect(again.ErrorCode).toBe(0);
  });

  it("a spam complaint posts Delivery, SpamComplaint and SubscriptionChange; the suppression cannot be deleted", async () => {
    const address = simulatorTestAddress("SpamComplaint", uniqueTag());
    const sent = await live.sendEmail(mail(address));
    const events = await waitFor(() => receiver.forMessage(sent.MessageID).length >= 3 && receiver.forMessage(sent.MessageID), "complaint events");
    expect(events.map((event) => event.RecordType)).toEqual(["Delivery", "SpamComplaint", "SubscriptionChange"]);
    expect(keysOf(events[1])).toEqual(BOUNCE_KEYS);
    expect(events[1], JSON.stringify(events[1])).toMatchObject({ Type: "SpamComplaint", TypeCode: 100001, Inactive: true, CanActivate: false, Email: address });
    expect(events[2]).toMatchObject({ SuppressionReason: "SpamComplaint", SuppressSending: true });

    const deleted = await live.deleteSuppressions("outbound", { Suppressions: [{ EmailAddress: address }] });
    expect(deleted.Suppressions, JSON.stringify(deleted)).toEqual([
      { EmailAddress: address, Status: "Failed", Message: "You do not have the required authority to change this suppression." },
    ]);
    expect((await rejection(live.sendEmail(mail(address)))).code).toBe(406);
  });

  it("a spam complaint on a broadcast stream posts no SpamComplaint record", async () => {
    const address = simulatorTestAddress("SpamComplaint", uniqueTag());
    const sent = await live.sendEmail(mail(address, { MessageStream: "newsletter" }));
    await waitFor(() => receiver.forMessage(sent.MessageID).length >= 2, "complaint events");
    await sim.simulator.whenIdle();
    expect(receiver.forMessage(sent.MessageID).map((event) => event.RecordType)).toEqual(["Delivery", "SubscriptionChange"]);
  });

  it("retries a webhook answered with 500 and stops at once on 403", async () => {
    const retriedTo = `retry+${uniqueTag()}@example.com`;
    const stoppedTo = `stop+${uniqueTag()}@example.com`;
    receiver.answers.set(retriedTo, [500, 500]);
    receiver.answers.set(stoppedTo, [403]);
    const retried = await live.sendEmail(mail(retriedTo));
    const stopped = await live.sendEmail(mail(stoppedTo));
    await sim.simulator.whenIdle();
    expect(receiver.forMessage(retried.MessageID).length).toBe(3);
    expect(receiver.forMessage(stopped.MessageID).length).toBe(1);
    const log = await control("GET", "/__sim/webhooks?limit=1000");
    const deliveries = (log.json?.deliveries ?? []) as { MessageID: string; Status: string; Attempts: number }[];
    expect(
      deliveries.find((entry) => entry.MessageID === retried.MessageID),
      log.text,
    ).toMatchObject({ Status: "delivered", Attempts: 3 });
    expect(
      deliveries.find((entry) => entry.MessageID === stopped.MessageID),
      log.text,
    ).toMatchObject({ Status: "failed", Attempts: 1, LastStatusCode: 403 });
  });
});

describe("recipient actions: open, click, unsubscribe", () => {
  it("posts Open with FirstOpen, one Click per unique link, and suppresses on unsubscribe", async () => {
    const to = `engaged+${uniqueTag()}@example.com`;
    const sent = await live.sendEmail(mail(to, { MessageStream: "newsletter", Tag: "digest", Metadata: { message_id: "e-1" } }));
    // No wait for the Delivery: a reader's action settles a message still in flight, so the order holds.

    const firstOpen = await control("POST", `/__sim/messages/${sent.MessageID}/open`);
    const secondOpen = await control("POST", `/__sim/messages/${sent.MessageID}/open`, { recipient: to.toUpperCase() });
    expect([firstOpen.status, secondOpen.status], secondOpen.text).toEqual([200, 200]);
    const clicks = [
      await control("POST", `/__sim/messages/${sent.MessageID}/click`, { url: "https://brand.example/a" }),
      await control("POST", `/__sim/messages/${sent.MessageID}/click`, { url: "https://brand.example/a" }),
      await control("POST", `/__sim/messages/${sent.MessageID}/click`, { url: "https://brand.example/b", location: "Text" }),
    ];
    expect(
      clicks.map((click) => (click.json as { webhooks: unknown[] }).webhooks.length),
      clicks.map((c) => c.text).join("\n"),
    ).toEqual([1, 0, 1]);
    const unsubscribe = await control("POST", `/__sim/messages/${sent.MessageID}/unsubscribe`, {});
    expect(unsubscribe.status, unsubscribe.text).toBe(200);

    const events = await waitFor(() => receiver.forMessage(sent.MessageID).length >= 6 && receiver.forMessage(sent.MessageID), "engagement events");
    expect(events.map((event) => event.RecordType)).toEqual(["Delivery", "Open", "Open", "Click", "Click", "SubscriptionChange"]);
    const [, open1, open2, click1, click2, change] = events;
    expect(keysOf(open1), JSON.stringify(open1)).toEqual([...ENGAGEMENT_KEYS, "FirstOpen", "ReadSeconds"].sort());
    expect([open1, open2].map((open) => open.RecordType === "Open" && open.FirstOpen)).toEqual([true, false]);
    expect(open1, JSON.stringify(open1)).toMatchObject({ Recipient: to, MessageStream: "newsletter", Tag: "digest", Metadata: { message_id: "e-1" } });
    expect(keysOf(click1), JSON.stringify(click1)).toEqual([...ENGAGEMENT_KEYS, "ClickLocation", "OriginalLink"].sort());
    expect(click1).toMatchObject({ OriginalLink: "https://brand.example/a", ClickLocation: "HTML", Recipient: to });
    expect(click2).toMatchObject({ OriginalLink: "https://brand.example/b", ClickLocation: "Text" });
    expect(change, JSON.stringify(change)).toMatchObject({
      SuppressSending: true,
      SuppressionReason: "ManualSuppression",
      Origin: "Recipient",
      MessageID: sent.MessageID,
      Recipient: to,
      Tag: "digest",
    });

    expect((await rejection(live.sendEmail(mail(to, { MessageStream: "newsletter" })))).code).toBe(406);
    // Transactional mail stays deliverable to an unsubscribed reader.
    expect((await live.sendEmail(mail(to))).ErrorCode).toBe(0);
    const dump = await live.getSuppressions("newsletter");
    expect(
      dump.Suppressions.find((entry) => entry.EmailAddress === to),
      JSON.stringify(dump),
    ).toMatchObject({ SuppressionReason: "ManualSuppression", Origin: "Recipient" });
  });

  it("delivers a message still in flight before the reader's action, so Delivery comes first", async () => {
    const local = await startPostmarkSimulator({ port: 0, webhook: { url: receiver.url }, deliveryDelayMs: 60_000 });
    try {
      const client = new ServerClient("simulator-server-token", { useHttps: false, requestHost: `127.0.0.1:${local.port}` });
      const sent = await client.sendEmail(mail(`early+${uniqueTag()}@example.com`));
      local.simulator.open(sent.MessageID);
      const events = await waitFor(() => receiver.forMessage(sent.MessageID).length >= 2 && receiver.forMessage(sent.MessageID), "Delivery and Open");
      expect(events.map((event) => event.RecordType)).toEqual(["Delivery", "Open"]);
    } finally {
      await local.close();
    }
  });

  it("answers 404 for an unknown MessageID and 422 for a recipient that is not on the message", async () => {
    const unknown = await control("POST", `/__sim/messages/${crypto.randomUUID()}/open`);
    expect(unknown.status, unknown.text).toBe(404);
    const sent = await live.sendEmail(mail(`only+${uniqueTag()}@example.com`));
    const stranger = await control("POST", `/__sim/messages/${sent.MessageID}/click`, { url: "https://x.example", recipient: "someone@else.example" });
    expect(stranger.status, stranger.text).toBe(422);
    const badUrl = await control("POST", `/__sim/messages/${sent.MessageID}/click`, { url: "not a url" });
    expect(badUrl.status, badUrl.text).toBe(422);
  });
});

describe("Suppressions API", () => {
  it("creates, dumps and deletes suppressions with Postmark's shapes and webhooks", async () => {
    const address = `manual+${uniqueTag()}@example.com`;
    const created = await live.createSuppressions("newsletter", { Suppressions: [{ EmailAddress: address }, { EmailAddress: "not an address" }] });
    expect(created.Suppressions, JSON.stringify(created)).toEqual([
      { EmailAddress: address, Status: "Suppressed", Message: null },
      { EmailAddress: "not an address", Status: "Failed", Message: "An invalid email address was provided." },
    ]);
    const dump = await live.getSuppressions("newsletter", { emailAddress: address, count: 100, offset: 0 });
    expect(dump.Suppressions, JSON.stringify(dump)).toHaveLength(1);
    expect(keysOf(dump.Suppressions[0])).toEqual(["CreatedAt", "EmailAddress", "Origin", "SuppressionReason"]);
    expect(dump.Suppressions[0]).toMatchObject({ EmailAddress: address, SuppressionReason: "ManualSuppression", Origin: "Customer" });
    expect(dump.Suppressions[0].CreatedAt).toMatch(ISO_8601);
    expect((await rejection(live.sendEmail(mail(address, { MessageStream: "newsletter" })))).code).toBe(406);

    const never = `never+${uniqueTag()}@example.com`;
    const deleted = await live.deleteSuppressions("newsletter", { Suppressions: [{ EmailAddress: address }, { EmailAddress: never }] });
    expect(deleted.Suppressions, JSON.stringify(deleted)).toEqual([
      { EmailAddress: address, Status: "Deleted", Message: null },
      { EmailAddress: never, Status: "Deleted", Message: null },
    ]);
    expect((await live.sendEmail(mail(address, { MessageStream: "newsletter" }))).ErrorCode).toBe(0);

    const changes = await waitFor(
      () =>
        receiver.forRecipient(address).filter((p) => p.RecordType === "SubscriptionChange").length >= 2 &&
        receiver.forRecipient(address).filter((p) => p.RecordType === "SubscriptionChange"),
      "subscription changes",
    );
    expect(changes[0], JSON.stringify(changes[0])).toMatchObject({
      SuppressSending: true,
      SuppressionReason: "ManualSuppression",
      Origin: "Customer",
      MessageID: null,
    });
    const { ChangedAt, ...reactivation } = changes[1] as Extract<WebhookPayload, { RecordType: "SubscriptionChange" }>;
    expect(ChangedAt).toMatch(ISO_8601);
    expect(reactivation, JSON.stringify(changes[1])).toEqual({
      RecordType: "SubscriptionChange",
      Recipient: address,
      Origin: "Customer",
      SuppressSending: false,
      SuppressionReason: null,
      Tag: null,
      Metadata: {},
      MessageID: null,
      MessageStream: "newsletter",
      ServerID: 7,
    });
    await sim.simulator.whenIdle();
    expect(receiver.forRecipient(never)).toEqual([]);
  });

  it("reactivates a hard bounce on delete", async () => {
    const address = simulatorTestAddress("HardBounce", uniqueTag());
    const sent = await live.sendEmail(mail(address));
    await waitFor(() => receiver.forMessage(sent.MessageID).length >= 2, "the bounce");
    const deleted = await live.deleteSuppressions("outbound", { Suppressions: [{ EmailAddress: address }] });
    expect(deleted.Suppressions[0], JSON.stringify(deleted)).toEqual({ EmailAddress: address, Status: "Deleted", Message: null });
    const dump = await live.getSuppressions("outbound", { emailAddress: address });
    expect(dump.Suppressions).toEqual([]);
  });

  it("answers 1226 for an unknown stream and 401 without a server token", async () => {
    const error = await rejection(live.getSuppressions("nope"));
    expect([error.code, error.statusCode]).toEqual([1226, 422]);
    const apiTest = await rejection(clientFor(POSTMARK_API_TEST_TOKEN).getSuppressions("outbound"));
    expect([apiTest.code, apiTest.statusCode]).toEqual([10, 401]);
  });
});

describe("inspection: messages, stats, reset", () => {
  it("lists messages with filters and counts duplicate Metadata.message_id values", async () => {
    const tag = uniqueTag();
    const to = `listed+${tag}@example.com`;
    const duplicated = `dup-${tag}`;
    await live.sendEmailBatch([
      mail(to, { Metadata: { message_id: duplicated } }),
      mail(to, { Metadata: { message_id: duplicated }, MessageStream: "newsletter" }),
      mail(`other+${tag}@example.com`, { Metadata: { message_id: `single-${tag}` } }),
    ]);
    const byRecipient = await control("GET", `/__sim/messages?to=${encodeURIComponent(to.toUpperCase())}`);
    expect(byRecipient.json?.total_count, byRecipient.text).toBe(2);
    const byStream = await control("GET", `/__sim/messages?to=${encodeURIComponent(to)}&stream=newsletter`);
    expect(byStream.json?.total_count, byStream.text).toBe(1);
    const byMetadata = await control("GET", `/__sim/messages?metadata_key=message_id&metadata_value=single-${tag}&limit=1`);
    const listed = byMetadata.json?.messages as { To: string; HtmlBody: string; ReceivedAt: string }[];
    expect(listed, byMetadata.text).toHaveLength(1);
    expect(listed[0]).toMatchObject({ To: `other+${tag}@example.com`, HtmlBody: "<p>Hello</p>" });
    expect(listed[0].ReceivedAt).toMatch(ISO_8601);

    const stats = await control("GET", "/__sim/stats");
    const duplicates = stats.json?.duplicates_by_metadata_message_id as Record<string, number>;
    expect(duplicates[duplicated], stats.text).toBe(2);
    expect(duplicates[`single-${tag}`], stats.text).toBeUndefined();
    expect(sim.simulator.metadataMessageIdCount(`single-${tag}`)).toBe(1);
  });

  it("keeps HTML only for the latest maxStoredMessages but metadata for all, and resets", async () => {
    const clock = new ManualClock("2026-03-01T12:00:00.000Z");
    const local = await startPostmarkSimulator({ port: 0, maxStoredMessages: 2, clock, webhooks: false });
    try {
      const client = new ServerClient("simulator-server-token", { useHttps: false, requestHost: `127.0.0.1:${local.port}` });
      const sent = [];
      for (let index = 0; index < 3; index += 1) sent.push(await client.sendEmail(mail(`kept${index}@example.com`, { HtmlBody: `<p>${index}</p>` })));
      expect(sent[0].SubmittedAt).toBe("2026-03-01T12:00:00.000Z");
      expect(sent.map((s) => local.simulator.message(s.MessageID).HtmlBody)).toEqual([null, "<p>1</p>", "<p>2</p>"]);
      expect(local.simulator.message(sent[0].MessageID).To).toBe("kept0@example.com");

      const reset = await fetch(`${local.url}/__sim/reset`, { method: "POST" });
      expect(reset.status).toBe(200);
      expect(local.simulator.stats()).toMatchObject({ received: 0, duplicates_by_metadata_message_id: {} });
      const gone = await fetch(`${local.url}/__sim/messages/${sent[2].MessageID}`);
      expect(gone.status).toBe(404);
    } finally {
      await local.close();
    }
  });

  it("tracks only the latest maxTrackedMessages: older ones answer 404 and take no reader actions, but counts and duplicate detection cover all", async () => {
    const local = await startPostmarkSimulator({ port: 0, maxStoredMessages: 1, maxTrackedMessages: 3, deliveryDelayMs: 1, webhooks: false });
    try {
      const client = new ServerClient("simulator-server-token", { useHttps: false, requestHost: `127.0.0.1:${local.port}` });
      const sent = [];
      for (let index = 0; index < 5; index += 1)
        sent.push(await client.sendEmail(mail(`tracked${index}@example.com`, { Metadata: { message_id: `m${index % 4}` } })));
      const forgotten = await fetch(`${local.url}/__sim/messages/${sent[1].MessageID}`);
      expect(forgotten.status).toBe(404);
      const open = await fetch(`${local.url}/__sim/messages/${sent[0].MessageID}/open`, { method: "POST" });
      expect(open.status).toBe(404);
      expect(local.simulator.message(sent[4].MessageID).To).toBe("tracked4@example.com");
      const listed = await fetch(`${local.url}/__sim/messages`);
      const page = (await listed.json()) as { total_count: number; messages: { To: string }[] };
      expect([page.total_count, page.messages.map((m) => m.To)]).toEqual([3, ["tracked4@example.com", "tracked3@example.com", "tracked2@example.com"]]);
      expect(local.simulator.stats()).toMatchObject({ received: 5, duplicates_by_metadata_message_id: { m0: 2 } });
      expect(local.simulator.metadataMessageIdCount("m1")).toBe(1);
    } finally {
      await local.close();
    }
  });
});

describe("runtime configuration", () => {
  it("registers servers and the webhook target while running", async () => {
    const local = await startPostmarkSimulator({ port: 0, servers: [], deliveryDelayMs: 1 });
    try {
      const client = new ServerClient("added-token", { useHttps: false, requestHost: `127.0.0.1:${local.port}` });
      expect((await rejection(client.sendEmail(mail("a@example.com")))).code).toBe(10);

      const added = await fetch(`${local.url}/__sim/servers`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token: "added-token", id: 42, streams: [{ id: "outbound", type: "Transactional" }] }),
      });
      expect(added.status, await added.clone().text()).toBe(200);
      const hook = await fetch(`${local.url}/__sim/webhook`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url: receiver.url, username: "late", password: "bound" }),
      });
      expect(hook.status).toBe(200);

      const sent = await client.sendEmail(mail(`runtime+${uniqueTag()}@example.com`));
      const entry = await waitFor(() => receiver.received.find((r) => r.payload.MessageID === sent.MessageID), "the Delivery");
      expect(entry.payload).toMatchObject({ RecordType: "Delivery", ServerID: 42 });
      expect(entry.headers.authorization).toBe(`Basic ${Buffer.from("late:bound").toString("base64")}`);

      const updated = local.simulator.addServer({
        token: "added-token",
        streams: [
          { id: "outbound", type: "Transactional" },
          { id: "bulk", type: "Broadcasts" },
        ],
      });
      expect(updated.id).toBe(42);
      expect((await client.sendEmail(mail(`bulk+${uniqueTag()}@example.com`, { MessageStream: "bulk" }))).ErrorCode).toBe(0);
    } finally {
      await local.close();
    }
  });
});

describe("test addresses", () => {
  it("follow Postmark's bounce-testing domain and our any-domain local parts", () => {
    expect(classifyTestAddress(SIMULATOR_TEST_ADDRESSES.hardBounce)).toEqual({ kind: "bounce", type: "HardBounce" });
    expect(classifyTestAddress("Hard_Bounce@bounce-testing.postmarkapp.com")).toEqual({ kind: "bounce", type: "HardBounce" });
    expect(classifyTestAddress("transient@BOUNCE-TESTING.postmarkapp.com")).toEqual({ kind: "bounce", type: "Transient" });
    expect(classifyTestAddress("whoever@bounce-testing.postmarkapp.com")).toEqual({ kind: "bounce", type: "HardBounce" });
    expect(classifyTestAddress("whoever@bounce-testing.postmarkapp.com", "SoftBounce")).toEqual({ kind: "bounce", type: "SoftBounce" });
    expect(classifyTestAddress("spamcomplaint+x@customer.example")).toEqual({ kind: "spam_complaint" });
    expect(classifyTestAddress("blocked@customer.example")).toBeNull();
    expect(classifyTestAddress("reader@customer.example")).toBeNull();
  });

  it("ignore any +tag", () => {
    fc.assert(
      fc.property(fc.constantFrom("HardBounce", "SoftBounce", "SpamComplaint", "Blocked", "DnsError"), fc.stringMatching(/^[a-z0-9.]{1,20}$/), (type, tag) => {
        expect(classifyTestAddress(simulatorTestAddress(type, tag))).toEqual(classifyTestAddress(simulatorTestAddress(type)));
      }),
    );
  });
});
