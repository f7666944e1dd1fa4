import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ServerClient } from "postmark";
import { afterAll, expect, test } from "vitest";
import { startPostmarkSimulator } from "../../lib/mail/provider/simulator";

/*
 * The embedded Postmark simulator keeps its state in the data directory: after a
 * restart its Messages API still finds what it received before, so the reconciler of in-doubt sends never
 * takes a restart for "Postmark never got it"; its suppressions and servers survive too. Through the real
 * `postmark` client over loopback HTTP.
 */

const dir = mkdtempSync(join(tmpdir(), "postmark-simulator-state-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOKEN = "state-server-token";
const SERVER = {
  token: TOKEN,
  streams: [
    { id: "outbound", type: "Transactional" as const },
    { id: "broadcast", type: "Broadcasts" as const },
  ],
};

test("messages, their Metadata counts, suppressions and servers survive a restart of the simulator; 429 and latency controls answer", async () => {
  const stateFile = join(dir, "postmark-simulator.jsonl");
  const first = await startPostmarkSimulator({ servers: [], stateFile, webhooks: false });
  first.simulator.addServer(SERVER);
  const client = (url: string) => new ServerClient(TOKEN, { useHttps: false, requestHost: new URL(url).host });
  const sent = await client(first.url).sendEmailBatch(
    Array.from({ length: 3 }, (_, i) => ({
      From: "news@demo.example.com",
      To: `kept${i}@example.com`,
      Subject: "Kept",
      HtmlBody: "<p>Hi</p>",
      MessageStream: "broadcast",
      Metadata: { batch_id: "b-1", message_id: `m-${i}` },
    })),
  );
  expect(sent.map((r) => r.ErrorCode)).toEqual([0, 0, 0]);
  await client(first.url).createSuppressions("broadcast", { Suppressions: [{ EmailAddress: "gone@example.com" }] });
  const serverId = first.simulator.servers.get(TOKEN)?.id;
  await first.close();

  const second = await startPostmarkSimulator({ servers: [], stateFile, webhooks: false });
  try {
    expect(second.simulator.servers.get(TOKEN)?.id).toBe(serverId);
    const found = await client(second.url).getOutboundMessages({ count: 10, offset: 0, metadata_batch_id: "b-1" } as never);
    expect(found.TotalCount).toBe(3);
    expect(found.Messages.map((m) => m.MessageID).sort()).toEqual(sent.map((r) => r.MessageID).sort());
    expect(second.simulator.metadataMessageIdCount("m-0")).toBe(1);
    const dump = await client(second.url).getSuppressions("broadcast");
    expect(dump.Suppressions.map((s) => s.EmailAddress)).toEqual(["gone@example.com"]);

    // A new message after the restart is journaled as well; a third start sees both generations.
    await client(second.url).sendEmail({
      From: "news@demo.example.com",
      To: "later@example.com",
      Subject: "Later",
      HtmlBody: "<p>x</p>",
      MessageStream: "broadcast",
    });

    // The controls of the matrix: 429 with Retry-After for a while, and a slow provider.
    await fetch(`${second.url}/__sim/throttle`, { method: "POST", body: JSON.stringify({ rate: 1, duration_ms: 60_000, retry_after_seconds: 7 }) });
    const throttled = await fetch(`${second.url}/email`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-postmark-server-token": TOKEN },
      body: JSON.stringify({ From: "news@demo.example.com", To: "x@example.com", Subject: "x", HtmlBody: "x", MessageStream: "broadcast" }),
    });
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get("retry-after")).toBe("7");
    expect(second.simulator.stats().throttled).toBe(1);
    expect((await (await fetch(`${second.url}/__sim/latency`, { method: "POST", body: JSON.stringify({ delay_ms: 250 }) })).json()) as unknown).toEqual({
      delay_ms: 250,
    });
  } finally {
    await second.close();
  }
  const third = await startPostmarkSimulator({ servers: [], stateFile, webhooks: false });
  try {
    expect(third.simulator.stats().received).toBe(4);
  } finally {
    await third.close();
  }
});
