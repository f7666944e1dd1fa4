import { loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { defaultFrame, demoBlocks, toBlockDefinition } from "../lib/mail/blocks/library";
import { compileStack, createFragmentCache, createMjmlCache, createPersonaliser, defaultDesignTokens, textPartOf } from "../lib/mail/render";
import type { CompileStackInput, RecipientData } from "../lib/mail/render";

/**
 * DESIGN §6 rendering targets: preview of a 12-block stack (p50 ≤ 10 ms; repeats ~1 ms through the
 * compiled-MJML cache) and phase-2 personalisation under 10 µs per recipient; and the text part a
 * transactional send makes from its HTML (`textPartOf`, one per send).
 *
 * Three previews: a document never compiled whose blocks were never compiled either (no cache: the first
 * preview after a start, or of a new design); a document never compiled whose blocks were (the cold
 * preview of a running server: the fragment cache holds the blocks, one block changed by a layout value
 * in every run, so one body fragment is compiled each time); and a document compiled before (warm).
 */

const previewRuns = 50;
const warmUpRuns = 10;
const recipients = 100_000;

function percentile(samples: readonly number[], fraction: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
}

function twelveBlockNewsletter(): CompileStackInput {
  const blocks = demoBlocks.map(toBlockDefinition);
  const slugs = ["header-logo", "heading", "text", "image", "button", "two-columns", "divider", "heading", "text", "image", "button", "text"];
  // Some texts address the recipient, so phase 2 has slots and a section to fill.
  const personal: Record<string, Record<string, string>> = {
    heading: { title: "Hello {{first_name}}, here is the news" },
    text: { body: "{{#city}}Greetings to {{city}}!\n{{/city}}Lorem ipsum dolor sit amet, consectetur adipiscing elit." },
  };
  return {
    kind: "newsletter",
    blocks,
    stack: slugs.map((slug) => {
      const block = blocks.find((candidate) => candidate.slug === slug);
      if (block === undefined) throw new Error(`demo block ${slug} missing`);
      const examples = Object.fromEntries(block.params.map((param) => [param.name, param.example]));
      return { block_id: block.id, values: { ...examples, ...personal[slug] } };
    }),
    tokens: defaultDesignTokens,
    frame: defaultFrame,
  };
}

interface Samples {
  wall: number[];
  cpu: number[];
}

/** Wall and CPU time of each run. On a machine shared with other work the wall time mostly measures the
 * wait for a core; the CPU time a compilation takes (this process, every thread) grows far less with load. */
async function timed(runs: number, run: (index: number) => Promise<unknown>): Promise<Samples> {
  const samples: Samples = { wall: [], cpu: [] };
  for (let index = 0; index < runs; index++) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    await run(index);
    samples.wall.push(performance.now() - started);
    const used = process.cpuUsage(cpu);
    samples.cpu.push((used.user + used.system) / 1000);
  }
  return samples;
}

/** The stack with the header's logo width (a layout value, so part of the MJML) set per run. */
function withLogoWidth(input: CompileStackInput, width: number): CompileStackInput {
  return { ...input, stack: input.stack.map((entry, index) => (index === 0 ? { ...entry, values: { ...entry.values, logo_width: `${width}px` } } : entry)) };
}

export async function benchRender(): Promise<void> {
  const input = twelveBlockNewsletter();

  // Untimed runs first: the figures are for a warm server process, not for the JIT's first minutes.
  for (let run = 0; run < warmUpRuns; run++) await compileStack(input);
  const cold = await timed(previewRuns, () => compileStack(input));

  const fragments = createFragmentCache();
  for (let run = 0; run < warmUpRuns; run++) await compileStack(withLogoWidth(input, 100 + run), { fragments });
  const coldFragments = await timed(previewRuns, (run) => compileStack(withLogoWidth(input, 200 + run), { fragments }));

  const cache = createMjmlCache();
  await compileStack(input, { cache });
  const warm = await timed(previewRuns, (run) =>
    // A builder edit: other values, same blocks, so the MJML document (and the cache key) stays the same.
    compileStack({ ...input, values: { title: `Edit ${run}` } }, { cache }),
  );

  const { compiled, html } = await compileStack(input, { cache });
  const personalise = createPersonaliser(compiled);
  const data: RecipientData[] = Array.from({ length: 1000 }, (_, index) => ({
    first_name: index % 3 === 0 ? `Zoë <${index}>` : `Ann ${index}`,
    city: index % 2 === 0 ? "Köln & Bonn" : "",
  }));
  const jobParams: RecipientData = { first_name: "Customer" };
  let characters = 0;
  let started = performance.now();
  for (let index = 0; index < recipients; index++) characters += personalise(data[index % data.length], jobParams).length;
  const buildMicros = ((performance.now() - started) * 1000) / recipients;
  // `+=` leaves a rope; anything that reads the HTML (serialising the provider request) flattens it into
  // one contiguous string first. Reading a character in the middle forces that flattening here.
  let probe = 0;
  started = performance.now();
  for (let index = 0; index < recipients; index++) {
    const personalised = personalise(data[index % data.length], jobParams);
    probe += personalised.charCodeAt(personalised.length >> 1);
  }
  const flatMicros = ((performance.now() - started) * 1000) / recipients;

  const sample = personalise(data[1], jobParams);
  for (let run = 0; run < warmUpRuns; run++) textPartOf(sample);
  const textRuns: number[] = [];
  for (let run = 0; run < previewRuns * 4; run++) {
    const begun = performance.now();
    textPartOf(sample);
    textRuns.push(performance.now() - begun);
  }

  console.log("## Rendering (12-block newsletter stack, demo library)");
  const figures = (label: string, samples: Samples, target: string) => {
    const ms = (values: number[], fraction: number) => percentile(values, fraction).toFixed(2);
    console.log(
      `${label.padEnd(62)}p50 ${ms(samples.wall, 0.5)} ms, p95 ${ms(samples.wall, 0.95)} ms; CPU p50 ${ms(samples.cpu, 0.5)} ms, p95 ${ms(samples.cpu, 0.95)} ms${target}`,
    );
  };
  figures(`preview cold, no block compiled before, ${previewRuns} runs:`, cold, "");
  figures(`preview cold, blocks compiled before (1 of 14 new), ${previewRuns} runs:`, coldFragments, " (target p50 ≤ 10 ms)");
  figures(`preview warm (document compiled before), ${previewRuns} runs:`, warm, " (target ~1 ms)");
  console.log(`load average (1 min) ${loadavg()[0]?.toFixed(1)}; fragment cache ${fragments.size} entries, ${(fragments.calculatedSize / 1024).toFixed(0)} KB`);
  console.log(
    `compiled HTML: ${(Buffer.byteLength(html) / 1024).toFixed(1)} KB, ${compiled.nodes.length} nodes, placeholders: ${compiled.placeholders.join(", ")}`,
  );
  console.log(
    `personalisation, ${recipients.toLocaleString("en")} recipients: ${buildMicros.toFixed(2)} µs each as a rope, ${flatMicros.toFixed(2)} µs each flattened (target < 10 µs)`,
  );
  console.log(
    `text part from the HTML (html-to-text), ${previewRuns * 4} runs: p50 ${percentile(textRuns, 0.5).toFixed(2)} ms, p95 ${percentile(textRuns, 0.95).toFixed(2)} ms; ${(Buffer.byteLength(textPartOf(sample)) / 1024).toFixed(1)} KB of text`,
  );
  console.log(`(checksum ${characters + probe})`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await benchRender();
