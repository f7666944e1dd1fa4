import type { Reporter, TestCase } from "vitest/node";

/**
 * Prints every skipped test with its full name at the end of the run: the names carry the reason
 * (`… — skipped: DATABASE_URL is not set …`), so a skip is never silent.
 */
export class SkipReporter implements Reporter {
  readonly #skipped: string[] = [];

  onTestCaseResult(testCase: TestCase): void {
    if (testCase.result().state === "skipped") this.#skipped.push(`${testCase.module.moduleId.split("/tests/").at(-1)} > ${testCase.fullName}`);
  }

  onTestRunEnd(): void {
    if (this.#skipped.length === 0) return;
    process.stdout.write(`\nSkipped (${this.#skipped.length}), with the reason in each name:\n${this.#skipped.map((name) => `  - ${name}`).join("\n")}\n`);
  }
}
