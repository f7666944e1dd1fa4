import { afterAll, expect, test } from "vitest";
import { createSafeFetch } from "../../lib/core/outbound/safe-fetch";
import { SALE_BANNER } from "../../lib/ads/templates/demo";
import { renderRatio, resolveValues } from "../../lib/ads/templates/render";
import { renderWorkerCount, setIdleRelease } from "../../lib/ads/templates/render-pool";

/*
 * Render workers hold satori, resvg, sharp and the fonts in heaps of their own: a pool with nothing to draw
 * ends them after its idle time, so a server that rendered once does not keep that memory while it waits.
 * The idle time is shortened here; the worker threads are counted until they have exited (not only until
 * the pool forgets them), and a drawing after the release starts a new pool and gives the same bytes.
 */

const deps = { safeFetch: createSafeFetch({ allowLoopbackForTests: false }) };
const IDLE_MS = 300;
const defaultIdle = setIdleRelease(IDLE_MS);
// Files of one worker may share this module: the others get the server's idle time back.
afterAll(() => setIdleRelease(defaultIdle));

async function workersAfter(waitUntil: (count: number) => boolean, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let count = await renderWorkerCount();
  while (!waitUntil(count) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    count = await renderWorkerCount();
  }
  return count;
}

test("render workers end when idle, and a drawing after that starts them again with the same result", async () => {
  const values = await resolveValues(deps, SALE_BANNER, {}, { useExamples: true });

  const first = await renderRatio(SALE_BANNER, values, "4:5");
  expect(await renderWorkerCount()).toBeGreaterThanOrEqual(1);
  // Still within the idle time a few milliseconds later: the pool stays.
  expect(await renderWorkerCount()).toBeGreaterThanOrEqual(1);

  // After the idle time every worker thread has exited (generous bound: a loaded machine ends threads slowly).
  expect(await workersAfter((count) => count === 0, 20_000)).toBe(0);

  const again = await renderRatio(SALE_BANNER, values, "4:5");
  expect(await renderWorkerCount()).toBeGreaterThanOrEqual(1);
  expect(again.equals(first)).toBe(true);

  // A pool kept busy is not released mid-work: drawings closer together than the idle time keep it.
  for (let i = 0; i < 3; i++) {
    await renderRatio(SALE_BANNER, values, "1:1");
    expect(await renderWorkerCount()).toBeGreaterThanOrEqual(1);
  }
  expect(await workersAfter((count) => count === 0, 20_000)).toBe(0);
}, 120_000);
