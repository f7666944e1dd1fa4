import fc from "fast-check";
import { expect, test } from "vitest";
import { BLOCK_EPOCH, coverRange, MAX_LEVEL } from "../../lib/ads/insights/blocks";
import { addDays, daysBetween } from "../../lib/ads/insights/calendar";

/** The day blocks an insights query reads must cover its range exactly: every day once, no day outside. */
test("coverRange covers any range exactly with aligned blocks, at most 2·log2 + the 128-day blocks", () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 0, max: 1_200 }), (offset, length) => {
      const since = addDays(BLOCK_EPOCH, offset);
      const until = addDays(since, length);
      const blocks = coverRange(since, until);
      const days: string[] = [];
      for (const block of blocks) {
        const size = 2 ** block.level;
        expect(block.level).toBeLessThanOrEqual(MAX_LEVEL);
        expect(daysBetween(BLOCK_EPOCH, block.start) % size, "aligned").toBe(0);
        for (let i = 0; i < size; i++) days.push(addDays(block.start, i));
      }
      expect(days).toEqual(Array.from({ length: length + 1 }, (_, i) => addDays(since, i)));
      expect(blocks.length).toBeLessThanOrEqual(2 * MAX_LEVEL + Math.ceil((length + 1) / 2 ** MAX_LEVEL));
    }),
    { numRuns: 300 },
  );
});

test("a 90-day range needs at most 12 blocks", () => {
  for (let offset = 0; offset < 256; offset++) {
    const since = addDays("2026-01-01", offset);
    expect(coverRange(since, addDays(since, 89)).length).toBeLessThanOrEqual(12);
  }
});
