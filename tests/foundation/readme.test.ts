import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { describeEnvironment } from "../../lib/core/config";

const readme = readFileSync("README.md", "utf8");

test("the README documents every environment variable of the config schema", () => {
  const missing = describeEnvironment()
    .map((v) => v.name)
    .filter((name) => !readme.includes(`| \`${name}\` |`));
  expect(missing).toEqual([]);
});

test("the README shows the two quick-start commands", () => {
  expect(readme).toContain("npm install && npm start");
  expect(readme).toContain("npm install && npm test");
});
