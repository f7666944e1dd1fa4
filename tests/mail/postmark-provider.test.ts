import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ManualClock } from "../../lib/base/clock";
import { createPostmarkProvider, type OutgoingEmail } from "../../lib/mail/provider/postmark";
import { startPostmarkSimulator, type RunningPostmarkSimulator } from "../../lib/mail/provider/simulator";

/*
 * Our Postmark adapter against the simulator over loopback HTTP, through the real `postmark` client: the
 * Messages API search that reconciliation relies on, and outcomes whose texts never carry an address.
 */

const TOKEN = "provider-test-token";
const OTHER_TOKEN = "provider-other-token";
const streams = [
  { id: "outbound", type: "Transactional" as const },
  { id: "broadcast", type: "Broadcasts" as const },
];

let sim: RunningPostmarkSimulator;
const clock = new ManualClock(new Date("2026-11-24T10:00:00Z"));

beforeAll(async () => {
  sim = await startPostmarkSimulator({
    servers: [
      { token: TOKEN, streams },
      { token: OTHER_TOKEN, streams },
    ],
    webhooks: false,
    clock,
  });
});
afterAll(async () => sim.close());

const email = (to: string, metadata: Record<string, string>): OutgoingEmail => ({
  From: "news@example.com",
  To: to,
  Subject: "Hello",
  HtmlBody: "<p>Hello</p>",
  MessageStream: "outbound",
  Metadata: metadata,
});

describe("the Messages API search (GET /messages/outbound)", () => {
  test("finds what a batch delivered by its Metadata value, on this server only, with Postmark's MessageID and receive time", async () => {
    const provider = createPostmarkProvider({ apiUrl: sim.url });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const outcome = await provider.send(TOKEN, email(`reader${i}@example.com`, { batch_id: "batch-a", message_id: `m-${i}` }));
      if (outcome.kind !== "accepted") throw new Error(JSON.stringify(outcome));
      ids.push(outcome.providerMessageId);
    }
    await provider.send(TOKEN, email("other@example.com", { batch_id: "batch-b", message_id: "m-other" }));
    await provider.send(OTHER_TOKEN, email("foreign@example.com", { batch_id: "batch-a", message_id: "m-foreign" }));

    const found = await provider.searchByMetadata(TOKEN, "batch_id", "batch-a");
    if (found.kind !== "answered") throw new Error(JSON.stringify(found));
    expect(found.messages.map((m) => m.metadata.message_id).sort()).toEqual(["m-0", "m-1", "m-2"]);
    expect(found.messages.map((m) => m.providerMessageId).sort()).toEqual([...ids].sort());
    expect(found.messages.every((m) => m.receivedAt?.toISOString() === clock.now().toISOString())).toBe(true);
    expect(await provider.searchByMetadata(TOKEN, "batch_id", "no-such-batch")).toEqual({ kind: "answered", messages: [] });
  });

  test("pages through more than 500 matches", async () => {
    const provider = createPostmarkProvider({ apiUrl: sim.url });
    const batch = Array.from({ length: 500 }, (_, i) => email(`many${i}@example.com`, { batch_id: "batch-big", message_id: `big-${i}` }));
    const body = new TextEncoder().encode(JSON.stringify([...batch]));
    expect((await provider.sendBatchJson(TOKEN, body, 500)).every((o) => o.kind === "accepted")).toBe(true);
    await provider.send(TOKEN, email("many500@example.com", { batch_id: "batch-big", message_id: "big-500" }));
    const found = await provider.searchByMetadata(TOKEN, "batch_id", "batch-big");
    if (found.kind !== "answered") throw new Error(JSON.stringify(found));
    expect(new Set(found.messages.map((m) => m.metadata.message_id)).size).toBe(501);
  });

  test("the search lags as configured; a refused token or an unreachable Postmark is `unavailable`", async () => {
    const provider = createPostmarkProvider({ apiUrl: sim.url });
    await provider.send(TOKEN, email("late@example.com", { batch_id: "batch-late", message_id: "late-1" }));
    sim.simulator.setSearchDelay(60_000);
    expect(await provider.searchByMetadata(TOKEN, "batch_id", "batch-late")).toEqual({ kind: "answered", messages: [] });
    clock.set(new Date(clock.now().getTime() + 60_000));
    sim.simulator.setSearchDelay(0);
    expect(await provider.searchByMetadata(TOKEN, "batch_id", "batch-late")).toMatchObject({
      kind: "answered",
      messages: [{ metadata: { message_id: "late-1" } }],
    });

    expect((await provider.searchByMetadata("not-a-token", "batch_id", "batch-late")).kind).toBe("unavailable");
    const nowhere = createPostmarkProvider({ apiUrl: "http://127.0.0.1:9", timeoutSeconds: 2 });
    expect((await nowhere.searchByMetadata(TOKEN, "batch_id", "batch-late")).kind).toBe("unavailable");
  });

  test("Postmark's parameter rules: count 1–500 and offset required, count + offset ≤ 10,000, one metadata field", async () => {
    const get = (query: string) =>
      fetch(`${sim.url}/messages/outbound?${query}`, { headers: { accept: "application/json", "x-postmark-server-token": TOKEN } });
    expect((await get("offset=0")).status).toBe(422);
    expect((await get("count=501&offset=0")).status).toBe(422);
    expect((await get("count=500&offset=9600")).status).toBe(422);
    expect((await get("count=10&offset=0&metadata_a=1&metadata_b=2")).status).toBe(422);
    const ok = await get("count=2&offset=0&metadata_batch_id=batch-a");
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as { TotalCount: number; Messages: Record<string, unknown>[] };
    expect(body.TotalCount).toBe(3);
    expect(body.Messages).toHaveLength(2);
    expect(Object.keys(body.Messages[0] ?? {}).sort()).toEqual(
      [
        "Attachments",
        "Bcc",
        "Cc",
        "From",
        "MessageID",
        "MessageStream",
        "Metadata",
        "ReceivedAt",
        "Recipients",
        "Sandboxed",
        "Status",
        "Subject",
        "Tag",
        "To",
        "TrackLinks",
        "TrackOpens",
      ].sort(),
    );
  });
});

describe("outcomes carry no addresses", () => {
  test("406 (inactive) and 300 (invalid address) texts name no address", async () => {
    const provider = createPostmarkProvider({ apiUrl: sim.url });
    const suppressed = "gone.reader@example.com";
    await fetch(`${sim.url}/message-streams/outbound/suppressions`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", "x-postmark-server-token": TOKEN },
      body: JSON.stringify({ Suppressions: [{ EmailAddress: suppressed }] }),
    });
    const inactive = await provider.send(TOKEN, email(suppressed, { message_id: "s-1" }));
    expect(inactive.kind).toBe("suppressed");
    expect(JSON.stringify(inactive)).not.toContain(suppressed);
    expect(JSON.stringify(inactive)).toContain("[address]");

    const invalid = await provider.send(TOKEN, email("broken address@@example.com", { message_id: "s-2" }));
    expect(invalid.kind).toBe("invalid");
    expect(JSON.stringify(invalid)).not.toContain("example.com");

    const body = new TextEncoder().encode(JSON.stringify([email(suppressed, { message_id: "s-3" }), email("x@@example.org", { message_id: "s-4" })]));
    const batch = await provider.sendBatchJson(TOKEN, body, 2);
    expect(batch.map((o) => o.kind)).toEqual(["suppressed", "invalid"]);
    expect(JSON.stringify(batch)).not.toMatch(/example\.(com|org)/);
  });
});
