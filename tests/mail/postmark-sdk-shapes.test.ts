import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import type { Models } from "postmark";
import ts from "typescript";
import type { z } from "zod";
import { afterAll, describe, expect, test } from "vitest";
import { defaultFrame, demoBlocks, toBlockDefinition } from "../../lib/mail/blocks/library";
import type { postmarkPayloads } from "../../lib/mail/events/postmark-payloads";
import type { OutgoingEmail } from "../../lib/mail/provider/postmark";
import { createPostmarkSimulator } from "../../lib/mail/provider/simulator";
import type * as Sim from "../../lib/mail/provider/simulator/postmark-shapes";
import { compileStack, defaultDesignTokens } from "../../lib/mail/render";
import { createBatchWriter } from "../../lib/mail/send-jobs/batch-payload";

/**
 * Postmark shapes from the official client, not memory: every request we send and every answer
 * or webhook we read, checked against `postmark`'s model types (`postmark/dist/client/models`). Types are
 * checked by tsc (the `Within` assertions below fail to compile and name the stray key); what types cannot
 * reach, bodies assembled as bytes (the batch body) and what the simulator really answers and posts, is
 * checked at run time against the same interfaces, read from postmark's declaration files with the
 * TypeScript compiler.
 */

/** `true` when every key of A is a key of B; otherwise the stray keys, so tsc names them. */
type Within<A, B> = [Exclude<keyof A, keyof B>] extends [never] ? true : Exclude<keyof A, keyof B>;
type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
/** `true` when A has every key B requires. */
type Covers<A, B> = [Exclude<RequiredKeys<B>, keyof A>] extends [never] ? true : Exclude<RequiredKeys<B>, keyof A>;
type In<T extends z.ZodType> = z.input<T>;

// What we send: the single message (the client's sendEmail) and, by the same shape, each batch message.
const outgoing: Within<OutgoingEmail, Models.Message> = true;
// What our receiver reads of each webhook.
const receiverReads: [
  Within<In<typeof postmarkPayloads.Delivery>, Models.DeliveryWebhook>,
  Within<In<typeof postmarkPayloads.Bounce>, Models.BounceWebhook>,
  Within<In<typeof postmarkPayloads.SpamComplaint>, Models.SpamComplaintWebhook>,
  Within<In<typeof postmarkPayloads.Open>, Models.OpenWebhook>,
  Within<In<typeof postmarkPayloads.Click>, Models.ClickWebhook>,
  Within<In<typeof postmarkPayloads.SubscriptionChange>, Models.SubscriptionChangeWebhook>,
] = [true, true, true, true, true, true];
// What the simulator answers and posts: no key Postmark lacks, every key Postmark always sends.
const simulator: [
  Within<Sim.DeliveryWebhook, Models.DeliveryWebhook>,
  Covers<Sim.DeliveryWebhook, Models.DeliveryWebhook>,
  Within<Sim.BounceWebhook, Models.BounceWebhook>,
  Covers<Sim.BounceWebhook, Models.BounceWebhook>,
  Within<Sim.SpamComplaintWebhook, Models.SpamComplaintWebhook>,
  Covers<Sim.SpamComplaintWebhook, Models.SpamComplaintWebhook>,
  Within<Sim.OpenWebhook, Models.OpenWebhook>,
  Covers<Sim.OpenWebhook, Models.OpenWebhook>,
  Within<Sim.ClickWebhook, Models.ClickWebhook>,
  Covers<Sim.ClickWebhook, Models.ClickWebhook>,
  Within<Sim.SubscriptionChangeWebhook, Models.SubscriptionChangeWebhook>,
  Covers<Sim.SubscriptionChangeWebhook, Models.SubscriptionChangeWebhook>,
  Within<Sim.SendResponse, Models.MessageSendingResponse>,
  Covers<Sim.SendResponse, Models.MessageSendingResponse>,
  Within<Sim.Suppression, Models.Suppression>,
  Covers<Sim.Suppression, Models.Suppression>,
  Within<Sim.SuppressionStatus, Models.SuppressionStatus>,
  Covers<Sim.SuppressionStatus, Models.SuppressionStatus>,
  Within<Sim.PostmarkError, Models.DefaultResponse>,
  Covers<Sim.PostmarkError, Models.DefaultResponse>,
] = [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true];

/** postmark's model interfaces, read from its declaration files: property names, inherited ones included. */
const models = (() => {
  const entry = createRequire(import.meta.url).resolve("postmark/dist/client/models/index.d.ts");
  const program = ts.createProgram([entry], { noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  if (!source) throw new Error("postmark's models index.d.ts not found");
  const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(source) as ts.Symbol);
  const typeOf = (name: string) => {
    const symbol = exported.find((candidate) => candidate.name === name);
    if (!symbol) throw new Error(`postmark's models export no ${name}`);
    return checker.getDeclaredTypeOfSymbol(symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);
  };
  /** Property names of a model, and of the object type of one of its properties (`Client`, `Geo`, `Messages[]`). */
  const keys = (name: string, property?: string): Set<string> => {
    let type = typeOf(name);
    if (property) {
      const member = type.getProperty(property);
      if (!member?.valueDeclaration) throw new Error(`${name} has no property ${property}`);
      type = checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(member, member.valueDeclaration));
      if (checker.isArrayType(type)) type = checker.getTypeArguments(type as ts.TypeReference)[0] as ts.Type;
    }
    return new Set(checker.getPropertiesOfType(type).map((symbol) => symbol.name));
  };
  return { keys };
})();

/** Keys of `value` that the model lacks, with nested objects checked against the model's property types. */
function strayKeys(value: Record<string, unknown>, model: string, path: string, nested: readonly string[] = []): string[] {
  const known = models.keys(model);
  const stray = Object.keys(value)
    .filter((key) => !known.has(key))
    .map((key) => `${path}.${key} (not in ${model})`);
  for (const property of nested) {
    const child = value[property];
    if (!child || typeof child !== "object" || Array.isArray(child)) continue;
    const childKnown = models.keys(model, property);
    stray.push(
      ...Object.keys(child)
        .filter((key) => !childKnown.has(key))
        .map((key) => `${path}.${property}.${key} (not in ${model}.${property})`),
    );
  }
  return stray;
}

/** What the simulator posts, as a receiver on loopback gets it. */
const posted: Record<string, unknown>[] = [];
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    posted.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>);
    response.writeHead(200).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const TOKEN = "simulator-server-token";
const sim = createPostmarkSimulator({ webhook: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/` }, deliveryDelayMs: 1 });
afterAll(() => {
  sim.close();
  receiver.close();
});
const call = async (method: string, path: string, body?: unknown) => {
  const response = await sim.fetch(
    new Request(`http://simulator.local${path}`, {
      method,
      headers: { "x-postmark-server-token": TOKEN, "content-type": "application/json", accept: "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  return { status: response.status, json: (await response.json()) as Record<string, unknown> & unknown[] };
};

describe("postmark's model types", () => {
  test("the type-level checks hold (compiled by tsc)", () => {
    expect([outgoing, ...receiverReads, ...simulator].every((ok) => ok === true)).toBe(true);
  });

  test("a batch body as the send-job writer assembles it (bytes, out of the types' reach) names Message fields only", async () => {
    const blocks = demoBlocks.map(toBlockDefinition);
    const heading = blocks.find((b) => b.slug === "heading")?.id ?? "";
    const { compiled } = await compileStack({
      kind: "newsletter",
      blocks,
      tokens: defaultDesignTokens,
      frame: defaultFrame,
      stack: [{ block_id: heading, values: { title: "Hello {{first_name}}", subtitle: "" } }],
    });
    const writer = createBatchWriter({
      compiled,
      subject: "News",
      defaults: {},
      from: { email: "news@example.com", name: "News" },
      replyTo: "reply@example.com",
      stream: "broadcast",
      sendJobId: "job-1",
    });
    const { body } = writer.write([{ messageId: "m-1", email: "ann@example.com", name: "Ann", data: { first_name: "Ann" } }], "batch-1");
    const messages = JSON.parse(body.toString("utf8")) as Record<string, unknown>[];
    expect(messages.flatMap((message, index) => strayKeys(message, "Message", `batch[${index}]`))).toEqual([]);
  });

  test("the simulator's answers (send, batch, Messages API search, suppressions, errors) and its webhooks name model fields only, and carry every field the models require", async () => {
    const stray: string[] = [];
    const message = {
      From: "sender@example.com",
      To: "ann@example.com",
      Subject: "Hi",
      HtmlBody: "<p>Hi</p>",
      MessageStream: "outbound",
      Metadata: { message_id: "m-1" },
    };
    const sent = await call("POST", "/email", message);
    expect(sent.status).toBe(200);
    stray.push(...strayKeys(sent.json, "MessageSendingResponse", "POST /email"));
    const batch = await call("POST", "/email/batch", [message, { ...message, To: "hardbounce@bounce-testing.postmarkapp.com" }]);
    for (const [index, item] of batch.json.entries())
      stray.push(...strayKeys(item as Record<string, unknown>, "MessageSendingResponse", `POST /email/batch[${index}]`));
    const search = await call("GET", "/messages/outbound?count=10&offset=0&metadata_message_id=m-1");
    stray.push(...strayKeys(search.json, "OutboundMessages", "GET /messages/outbound"));
    const found = (search.json.Messages as Record<string, unknown>[]) ?? [];
    expect(found.length).toBeGreaterThan(0);
    for (const item of found) stray.push(...strayKeys(item, "OutboundMessage", "GET /messages/outbound Messages[]"));
    const suppressed = await call("POST", "/message-streams/outbound/suppressions", { Suppressions: [{ EmailAddress: "gone@example.com" }] });
    stray.push(...strayKeys(suppressed.json, "SuppressionStatuses", "POST suppressions"));
    for (const item of suppressed.json.Suppressions as Record<string, unknown>[]) stray.push(...strayKeys(item, "SuppressionStatus", "POST suppressions[]"));
    const dump = await call("GET", "/message-streams/outbound/suppressions/dump");
    stray.push(...strayKeys(dump.json, "Suppressions", "GET suppressions/dump"));
    for (const item of dump.json.Suppressions as Record<string, unknown>[]) stray.push(...strayKeys(item, "Suppression", "GET suppressions/dump[]"));
    const refused = await call("POST", "/email", { ...message, HtmlBody: undefined });
    expect(refused.status).toBe(422);
    stray.push(...strayKeys(refused.json, "DefaultResponse", "422"));
    expect(stray).toEqual([]);

    // Its webhooks, as it posts them: every kind, keys within the model and every required key present.
    const id = sent.json.MessageID as string;
    for (const action of ["open", "click", "bounce", "complain", "unsubscribe"]) {
      const response = await sim.fetch(
        new Request(`http://simulator.local/__sim/messages/${id}/${action}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(action === "click" ? { url: "https://shop.example.com" } : {}),
        }),
      );
      expect(response.status, action).toBeLessThan(300);
    }
    const modelOf: Record<string, string> = {
      Delivery: "DeliveryWebhook",
      Bounce: "BounceWebhook",
      SpamComplaint: "SpamComplaintWebhook",
      Open: "OpenWebhook",
      Click: "ClickWebhook",
      SubscriptionChange: "SubscriptionChangeWebhook",
    };
    const kinds = () => [...new Set(posted.map((payload) => String(payload.RecordType)))].sort();
    await expect.poll(kinds, { timeout: 20_000 }).toEqual(["Bounce", "Click", "Delivery", "Open", "SpamComplaint", "SubscriptionChange"]);
    for (const payload of posted) {
      const model = modelOf[String(payload.RecordType)];
      if (!model) throw new Error(`unknown RecordType ${String(payload.RecordType)}`);
      stray.push(...strayKeys(payload, model, String(payload.RecordType), ["Client", "OS", "Geo"]));
    }
    expect(stray).toEqual([]);
  });
});
