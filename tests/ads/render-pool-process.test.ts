import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { expect, test } from "vitest";
import { repoRoot } from "../helpers/processes";

/*
 * The render pool's workers do not keep an idle process alive, but one with drawings in flight must: a script
 * that awaits a render with nothing else on its event loop (a bench, a CLI) used to end before the drawing
 * came back — `npm run bench` stopped silently, exit 0, in the middle of its ad-template part.
 */

const script = `
const { SALE_BANNER } = await import("./lib/ads/templates/demo.ts");
const { checkValues, renderTemplate } = await import("./lib/ads/templates/render.ts");
const { text, color } = checkValues(SALE_BANNER, { headline: "Spring sale", price: "€ 49.90", brand_color: "#0f766e", cta: "Shop now" }, { useExamples: false });
const rendered = await renderTemplate(SALE_BANNER, { text, color, image: new Map() });
console.log("rendered", Object.keys(rendered).length);
`;

test("a script awaiting a render in the worker pool, with nothing else to do, gets the drawing and then exits", async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: repoRoot,
    timeout: 120_000,
  });
  // Before the fix the process ended (exit 0, no output) while the drawing was in flight; \`execFile\`
  // resolving at all also says the idle workers let it exit afterwards.
  expect(stdout).toMatch(/^rendered [1-9]/m);
}, 150_000);
