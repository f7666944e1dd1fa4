import { randomFillSync } from "node:crypto";

/**
 * UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then a counter and random bits. Message ids of
 * a job are created 5,000 at a time; time-ordered ids land at the right edge of the primary-key and event
 * indexes instead of at random pages, which makes those bulk inserts markedly cheaper. They are ordinary
 * UUIDs to every reader.
 */
let lastMs = 0;
let sequence = 0;
const pool = Buffer.alloc(16 * 256);
let poolOffset = pool.length;

export function timeOrderedUuid(now = Date.now()): string {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + 16);
  poolOffset += 16;
  // A 12-bit counter keeps the ids one process makes within a millisecond in creation order (up to 4,096).
  if (now > lastMs) {
    lastMs = now;
    sequence = bytes[6] & 0x07;
  } else {
    sequence = (sequence + 1) & 0xfff;
  }
  const ms = lastMs;
  bytes[0] = Math.floor(ms / 2 ** 40) & 0xff;
  bytes[1] = Math.floor(ms / 2 ** 32) & 0xff;
  bytes[2] = (ms >>> 24) & 0xff;
  bytes[3] = (ms >>> 16) & 0xff;
  bytes[4] = (ms >>> 8) & 0xff;
  bytes[5] = ms & 0xff;
  bytes[6] = 0x70 | (sequence >>> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
