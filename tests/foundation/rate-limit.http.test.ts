import { afterAll, expect, test, vi } from "vitest";
import { ManualClock } from "../../lib/base/clock";
import { createHarness, describeResponse, type Harness, type ErrorEnvelope } from "../helpers/harness";
import { startUpstashFake } from "../helpers/upstash-fake";

const harnesses: Harness[] = [];
afterAll(async () => Promise.all(harnesses.map((h) => h.close())));

test("the 1,001st request in a window is 429 with Retry-After; other customers are unaffected", async () => {
  const clock = new ManualClock("2026-05-05T10:00:10Z");
  const h = await createHarness({ clock });
  harnesses.push(h);
  const c = await h.customer();
  const other = await h.customer();
  let last = null as Awaited<ReturnType<Harness["call"]>> | null;
  for (let i = 0; i < 1000; i++) {
    last = await h.call("GET", "/mail/v1/health", { key: i % 2 ? c.mailFull : c.mailReporting });
    if (last.status !== 200) throw new Error(`request ${i + 1}: ${describeResponse(last)}`);
  }
  expect(last?.headers.get("x-ratelimit-remaining")).toBe("0");
  expect(last?.headers.get("x-ratelimit-limit")).toBe("1000");
  const limited = await h.call<ErrorEnvelope>("GET", "/mail/v1/health", { key: c.mailFull });
  expect(limited.status, describeResponse(limited)).toBe(429);
  expect(limited.json.error.code).toBe("rate_limited");
  expect(limited.headers.get("retry-after")).toBe("50");
  expect(limited.headers.get("x-ratelimit-reset")).toBe("50");
  expect(limited.headers.get("ratelimit")).toBe('"per-customer";r=0;t=50');
  expect(limited.headers.get("ratelimit-policy")).toBe('"per-customer";q=1000;w=60');
  // The limit is per customer and service, not global.
  expect((await h.call("GET", "/mail/v1/health", { key: other.mailFull })).status).toBe(200);
  // 10 s into the next window, 5/6 of the previous window still counts (sliding window): 833 used.
  clock.advance(60_000);
  const after = await h.call("GET", "/mail/v1/health", { key: c.mailFull });
  expect(after.status, describeResponse(after)).toBe(200);
  expect(after.headers.get("x-ratelimit-remaining")).toBe("166");
});

test("Upstash unreachable: the limiter fails open after its timeout and sends no rate-limit headers", async () => {
  const upstash = await startUpstashFake({ hang: true });
  const h = await createHarness({
    env: { UPSTASH_REDIS_REST_URL: upstash.url, UPSTASH_REDIS_REST_TOKEN: "test-token", RATE_LIMIT_TIMEOUT_MS: "150" },
  });
  harnesses.push(h);
  try {
    const c = await h.customer();
    const r = await h.call("GET", "/mail/v1/health", { key: c.mailFull });
    expect(r.status, describeResponse(r)).toBe(200);
    for (const name of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "ratelimit", "ratelimit-policy"]) {
      expect(r.headers.get(name)).toBeNull();
    }
    expect(h.logLines.some((l) => l.includes("failing open"))).toBe(true);
    expect(h.logLines.join("\n")).not.toContain("test-token");
  } finally {
    await upstash.close();
  }
});

test("on Upstash (production limiter): the same headers, the request over the limit is 429, per customer", async () => {
  // @upstash/ratelimit takes the time from Date.now(): fixed 10 s into a minute, no window boundary mid-test.
  vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-05-05T10:00:10Z") });
  const upstash = await startUpstashFake();
  const h = await createHarness({ env: { UPSTASH_REDIS_REST_URL: upstash.url, UPSTASH_REDIS_REST_TOKEN: "test-token", RATE_LIMIT_PER_MINUTE: "5" } });
  harnesses.push(h);
  try {
    const c = await h.customer();
    const other = await h.customer();
    const remaining: (string | null)[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await h.call("GET", "/mail/v1/health", { key: c.mailFull });
      expect(r.status, describeResponse(r)).toBe(200);
      expect(r.headers.get("x-ratelimit-limit")).toBe("5");
      remaining.push(r.headers.get("x-ratelimit-remaining"));
    }
    expect(remaining).toEqual(["4", "3", "2", "1", "0"]);
    const limited = await h.call<ErrorEnvelope>("GET", "/mail/v1/health", { key: c.mailFull });
    expect(limited.status, describeResponse(limited)).toBe(429);
    expect(limited.json.error.code).toBe("rate_limited");
    const retryAfter = Number(limited.headers.get("retry-after"));
    // The window ends 50 s later.
    expect(retryAfter).toBe(50);
    expect(limited.headers.get("ratelimit-policy")).toBe('"per-customer";q=5;w=60');
    expect((await h.call("GET", "/mail/v1/health", { key: other.mailFull })).status).toBe(200);
    // Every decision came from Upstash: one script call per request, none of them failing open.
    expect(upstash.commands.filter(([name]) => name?.toLowerCase() === "evalsha")).toHaveLength(7);
    expect(h.logLines.some((l) => l.includes("failing open"))).toBe(false);
  } finally {
    vi.useRealTimers();
    await upstash.close();
  }
});
