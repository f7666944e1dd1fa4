import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";

/**
 * A view or input type written out by hand next to a schema drifts from it: the API answers one shape and
 * the service builds another. Every `type X = {` and `interface X {` under lib/ whose name, or whose name without a
 * `View`/`Input`/`Body`/`Response` ending, is an exported schema must be derived from it instead
 * (`z.infer`, `.pick`, `.partial`, `.extend`). The few listed below are different things that share a name.
 */
const root = join(import.meta.dirname, "../..");

const NOT_A_VIEW: Record<string, string> = {
  "lib/admin/audit/record.ts AuditEntryInput": "what the middleware records (a Date, camelCase ids), not the AuditEntry the API lists",
  "lib/mail/messages/stats.ts MailStatsInput": "the service's call arguments (Dates, an optional job id), not the MailStats answer",
  "lib/mail/setup/blocks.ts BlockInput": "the setup store's row input (the admin block schemas are derived from the store's row)",
  "lib/mail/provider/simulator/webhook-dispatcher.ts WebhookDelivery": "the Postmark simulator's own delivery log, not our API's WebhookDelivery",
  "lib/console/client/mail-templates.ts TemplateBody": "browser code: it cannot load zod schemas and takes its types from the generated client",
  "lib/mail/messages/stats.ts MailStats": "the schema is the operator API's (lib/admin/mail/stats); the mail service may not import admin",
  "lib/ads/insights/daily.ts AdSetDailyInsights": "the schema is the operator API's (lib/admin/ads/daily-insights); the ads service may not import admin",
};

function files(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return files(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Every exported schema name of the schema and fields files. */
function schemaNames(all: string[]): Set<string> {
  const schemas = new Set<string>();
  for (const file of all.filter((f) => f.endsWith("schema.ts") || f.endsWith("/fields.ts"))) {
    for (const match of readFileSync(join(root, file), "utf8").matchAll(/^export const ([A-Z]\w*) =/gm)) schemas.add(match[1] as string);
  }
  return schemas;
}

/** `file Name` for each `type Name = {` or `interface Name {` (exported or not) whose name is a schema's, or one with a view ending. */
function handWrittenViews(sources: Record<string, string>, schemas: Set<string>): string[] {
  const found: string[] = [];
  for (const [file, text] of Object.entries(sources)) {
    for (const match of text.matchAll(/^(?:export )?(?:type (\w+)(?:<[^>]*>)? = \{|interface (\w+)(?:<[^>]*>)?(?: extends [^{]+)? \{)/gm)) {
      const name = (match[1] ?? match[2]) as string;
      if (schemas.has(name) || schemas.has(name.replace(/(View|Input|Body|Response)$/, ""))) found.push(`${file} ${name}`);
    }
  }
  return found;
}

test("no hand-written view or input type where a schema of that name exists", () => {
  const all = files("lib");
  const schemas = schemaNames(all);
  expect(schemas.size).toBeGreaterThan(100);
  const handWritten = handWrittenViews(Object.fromEntries(all.map((file) => [file, readFileSync(join(root, file), "utf8")])), schemas);
  expect(handWritten.filter((entry) => !(entry in NOT_A_VIEW))).toEqual([]);
  // An entry that no longer matches is removed from the list, so the list stays the truth.
  expect(Object.keys(NOT_A_VIEW).filter((entry) => !handWritten.includes(entry))).toEqual([]);
});

test("the listing finds a hand-written type and interface of a schema's name (a probe)", () => {
  const schemas = schemaNames(files("lib"));
  expect(schemas.has("SendJob")).toBe(true);
  const probe = {
    "lib/mail/probe.ts":
      "export type SendJobView = {\n  id: string;\n};\ninterface SendJob {\n  id: string;\n}\nexport interface SendJobInput extends Base {\n}\ntype Unrelated = { a: 1 };\n",
  };
  expect(handWrittenViews(probe, schemas)).toEqual(["lib/mail/probe.ts SendJobView", "lib/mail/probe.ts SendJob", "lib/mail/probe.ts SendJobInput"]);
});
