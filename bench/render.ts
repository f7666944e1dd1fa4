import { loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { defaultFrame, demoBlocks, toBlockDefinition } from "../lib/mail/blocks/library";
import { compileStack, createMjmlCache, createPersonaliser, defaultDesignTokens, textPartOf } from "../lib/mail/render";
import type { CompileStackInput, RecipientData } from "../lib/mail/render";

/**
 * DESIGN §6 rendering targets: preview of a 12-block stack (p50 ≤ 10 ms; repeats ~1 ms through the
 * compiled-MJML cache) and phase-2 personalisation under 10 µs per recipient; and the text part a
 * transactional send makes from its HTML (`textPartOf`, one per send).
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

export async function benchRender(): Promise<void> {
  const input = twelveBlockNewsletter();

  // Untimed runs first: the figures are for a warm server process, not for the JIT's first minutes.
  for (let run = 0; run < warmUpRuns; run++) await compileStack(input);
  const cold: number[] = [];
  // CPU time beside wall time: on a machine shared with other work the wall time mostly measures the wait
  // for a core; the CPU time a compilation takes (this process, every thread) does not grow with the load.
  const coldCpu: number[] = [];
  for (let run = 0; run < previewRuns; run++) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    await compileStack(input);
    cold.push(performance.now() - started);
    const used = process.cpuUsage(cpu);
    coldCpu.push((used.user + used.system) / 1000);
  }
  const cache = createMjmlCache();
  await compileStack(input, { cache });
  const warm: number[] = [];
  for (let run = 0; run < previewRuns; run++) {
    // A builder edit: other values, same blocks, so the MJML document (and the cache key) stays the same.
    const edited = { ...input, values: { title: `Edit ${run}` } };
    const started = performance.now();
    await compileStack(edited, { cache });
    warm.push(performance.now() - started);
  }

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
  console.log(
    `preview cold (MJML compile), ${previewRuns} runs: p50 ${percentile(cold, 0.5).toFixed(2)} ms, p95 ${percentile(cold, 0.95).toFixed(2)} ms (target p50 ≤ 10 ms; load average ${loadavg()[0]?.toFixed(1)})`,
  );
  console.log(
    `preview cold, CPU time:      ${previewRuns} runs: p50 ${percentile(coldCpu, 0.5).toFixed(2)} ms, p95 ${percentile(coldCpu, 0.95).toFixed(2)} ms`,
  );
  console.log(
    `preview warm (cache hit),    ${previewRuns} runs: p50 ${percentile(warm, 0.5).toFixed(2)} ms, p95 ${percentile(warm, 0.95).toFixed(2)} ms (target ~1 ms)`,
  );
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
