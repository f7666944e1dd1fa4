import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createHarness, describeResponse, type Admin, type Harness } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";
import { postEvent, postmarkEvent, sendTransactional } from "../helpers/postmark-events";

/**
 * The overview and the search box over the admin API: the overview's message figures (read from the
 * database-kept hourly counts) equal the message lists with the same state and period; a search by address
 * finds a message only under the customer that sent it.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

describe("GET /admin/v1/overview and /admin/v1/search", () => {
  test("figures equal the lists behind them; a delivery and a bounce move a message between states; the address finds only its sender's mail", async () => {
    const a = await readyMailCustomer(h, "Overview A");
    const b = await readyMailCustomer(h, "Overview B");
    const since = new Date(h.clock.now().getTime() - 3_600_000).toISOString();
    const first = await sendTransactional(h, a, "shared@example.com");
    const second = await sendTransactional(h, a, "other@example.com");
    await sendTransactional(h, b, "someone@example.com");
    const at = h.clock.now().toISOString();
    expect((await postEvent(h, postmarkEvent.delivery({ message_id: first }, at))).status).toBe(200);
    expect((await postEvent(h, postmarkEvent.bounce({ message_id: second }, { at }))).status).toBe(200);

    const overview = await h.admin<Admin["getOverview"]>("GET", `/v1/overview?since=${encodeURIComponent(since)}`);
    expect(overview.status, describeResponse(overview)).toBe(200);
    const mine = overview.json.data.mail.customers.find((c) => c.customer_id === a.id);
    expect(mine?.customer_name).toBe("Overview A");
    expect(mine?.counts.delivered).toBe(1);
    expect(mine?.counts.bounced).toBe(1);
    expect(mine?.rates.bounced).toBe(0.5);
    const { since: from, until } = overview.json.data;
    for (const status of ["delivered", "bounced", "accepted"] as const) {
      const list = await h.admin<Admin["listCustomerMessages"]>(
        "GET",
        `/v1/customers/${a.id}/mail/messages?status=${status}&since=${encodeURIComponent(from)}&until=${encodeURIComponent(until)}&limit=100`,
      );
      expect(list.json.data.length, status).toBe(mine?.counts[status]);
      const everyone = await h.admin<Admin["search"]>(
        "GET",
        `/v1/search?status=${status}&since=${encodeURIComponent(from)}&until=${encodeURIComponent(until)}&limit=100`,
      );
      // Across customers: every message on a database of this file alone; a full page where other files' mail shares it.
      expect(everyone.json.data.messages.length, status).toBe(Math.min(overview.json.data.mail.totals[status], 100));
    }

    const byAddress = await h.admin<Admin["search"]>("GET", "/v1/search?q=Shared%40Example.com");
    expect(byAddress.status, describeResponse(byAddress)).toBe(200);
    expect(byAddress.json.data.matched_by).toBe("address");
    expect(byAddress.json.data.messages.map((m) => [m.id, m.customer_name])).toEqual([[first, "Overview A"]]);
    expect(byAddress.text).not.toContain("shared@example.com");
    const byName = await h.admin<Admin["search"]>("GET", "/v1/search?q=overview%20b");
    expect(byName.json.data.customers.map((c) => c.id)).toEqual([b.id]);
    const byId = await h.admin<Admin["search"]>("GET", `/v1/search?q=${first}`);
    expect(byId.json.data.messages.map((m) => m.id)).toEqual([first]);
    const bad = await h.admin("GET", `/v1/overview?since=${encodeURIComponent(until)}&until=${encodeURIComponent(from)}`);
    expect(bad.status).toBe(422);
    expect((await h.admin("GET", "/v1/overview?since=yesterday")).status).toBe(422);
  });
});
