import { Redis } from "@upstash/redis";
import { IDEMPOTENCY_TTL_MS, type ClaimResult, type IdempotencyScope, type IdempotencyStore, type StoredResponse } from "./store";

type Record = { fingerprint: string; response: StoredResponse | null };

const keyOf = (scope: IdempotencyScope) => `idem:${scope.customerId}:${scope.route}:${scope.key}`;

/** Production store: `SET NX PX` claims the key atomically across every function instance. */
export function createUpstashIdempotencyStore(redis: { url: string; token: string }): IdempotencyStore {
  const client = new Redis({ url: redis.url, token: redis.token, automaticDeserialization: false, enableTelemetry: false, enableAutoPipelining: false });
  return {
    // Every key is written with a TTL (`px`): Redis expires them itself.
    deleteExpired: async () => 0,
    async claim(scope, fingerprint): Promise<ClaimResult> {
      const record: Record = { fingerprint, response: null };
      const set = await client.set(keyOf(scope), JSON.stringify(record), { nx: true, px: IDEMPOTENCY_TTL_MS });
      if (set === "OK") return { kind: "claimed" };
      const raw = await client.get<string>(keyOf(scope));
      if (raw === null) return { kind: "in_progress" };
      const existing = JSON.parse(raw) as Record;
      if (existing.fingerprint !== fingerprint) return { kind: "mismatch" };
      if (existing.response === null) return { kind: "in_progress" };
      return { kind: "replay", response: existing.response };
    },
    async complete(scope, response) {
      const raw = await client.get<string>(keyOf(scope));
      const fingerprint = raw ? (JSON.parse(raw) as Record).fingerprint : "";
      await client.set(keyOf(scope), JSON.stringify({ fingerprint, response } satisfies Record), { px: IDEMPOTENCY_TTL_MS });
    },
    async release(scope) {
      await client.del(keyOf(scope));
    },
  };
}
