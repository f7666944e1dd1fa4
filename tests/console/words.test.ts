import { beforeAll, describe, expect, test } from "vitest";
import { servedDocuments } from "../../lib/commands/client-documents";
import { WORDS, operationLabel, say, type Vocabulary } from "../../lib/console/client/words";

/*
 * The console's words (lib/console/client/words.ts) against the admin OpenAPI document as served: every value
 * the document allows for a field the console shows has its phrase, so a state added to the API fails here
 * before it reaches a page as code. Each vocabulary names the fields (schema, then property path) it covers.
 */
const FIELDS: Record<Vocabulary, string[]> = {
  messageStatus: ["MailMessageSummary.status", "Message.status", "SearchResults.messages.status"],
  messageKind: ["MailMessageSummary.kind", "Message.kind", "SearchResults.messages.kind", "MailTemplate.kind"],
  mailMode: ["AdminMailSettings.mode", "MailMessageSummary.mode", "SendJob.mode"],
  sendJobStatus: ["SendJob.status", "SearchResults.send_jobs.status"],
  pauseReason: ["SendJob.pause_reason"],
  accountState: ["AdminAdsSettings.account_state", "PlanUsage.state"],
  stage: ["AdminAdsSettings.stage", "PlanUsage.stage", "PlanUsage.expected_stage"],
  role: ["Operator.role", "CurrentOperator.role", "CreateOperator.role"],
  actorType: ["AuditEntry.actor.type", "CurrentOperator.actor"],
  readinessItem: ["MailReadinessItem.item"],
  readinessStatus: ["MailReadinessItem.status"],
  keyScope: ["ApiKey.scope", "CreateApiKey.scope"],
  service: ["ApiKey.service", "Overview.webhooks_failing.service"],
  deliveryStatus: ["WebhookDelivery.status", "AdsWebhookDelivery.status"],
  webhookStatus: ["Webhook.status"],
  webhookEvent: ["Webhook.events", "WebhookDelivery.event"],
  suppressionReason: ["SuppressionEntry.reason"],
  stream: ["SuppressionEntry.stream"],
  adStatus: ["Ad.status", "AdSet.status"],
  effectiveStatus: [],
  tokenStatus: ["AdsOnboarding.token_status"],
  onboardingItem: ["AdsOnboarding.missing", "AdsOnboarding.present"],
  templateStatus: ["MailTemplate.status"],
  jobMetric: [],
};

type Node = { $ref?: string; enum?: unknown[]; properties?: Record<string, Node>; items?: Node; allOf?: Node[]; anyOf?: Node[]; oneOf?: Node[] };
let schemas: Record<string, Node>;
let operationIds: string[];

beforeAll(async () => {
  const admin = (await servedDocuments()).admin as unknown as {
    components: { schemas: Record<string, Node> };
    paths: Record<string, Record<string, { operationId?: string }>>;
  };
  schemas = admin.components.schemas;
  operationIds = Object.values(admin.paths).flatMap((item) => Object.values(item).flatMap((op) => (op?.operationId ? [op.operationId] : [])));
}, 120_000);

/** The nodes a name leads to from `node`, through `$ref`, arrays and compositions. */
function step(node: Node, name: string | null): Node[] {
  if (node.$ref) return step(schemas[node.$ref.split("/").pop() as string] as Node, name);
  const parts = [...(node.allOf ?? []), ...(node.anyOf ?? []), ...(node.oneOf ?? [])].flatMap((n) => step(n, name));
  if (node.items) parts.push(...step(node.items, name));
  if (name === null) return [node, ...parts];
  const own = node.properties?.[name];
  return own ? [own, ...parts] : parts;
}

function enumAt(pointer: string): string[] {
  const [schema, ...path] = pointer.split(".");
  let nodes = [schemas[schema as string] as Node];
  expect(nodes[0], `schema ${schema}`).toBeDefined();
  for (const name of path) nodes = nodes.flatMap((n) => step(n, name));
  const values = nodes.flatMap((n) => step(n, null)).flatMap((n) => n.enum ?? []);
  return [...new Set(values.filter((v): v is string => typeof v === "string"))];
}

describe("every enum value the admin document exposes has words", () => {
  for (const [vocabulary, pointers] of Object.entries(FIELDS) as [Vocabulary, string[]][]) {
    for (const pointer of pointers) {
      test(`${vocabulary}: ${pointer}`, () => {
        const values = enumAt(pointer);
        expect(values.length, `${pointer} has enum values in the document`).toBeGreaterThan(0);
        const words = WORDS[vocabulary] as Record<string, string>;
        expect(values.filter((v) => !(v in words))).toEqual([]);
      });
    }
  }

  test("a send job's counters each have a column header in words", () => {
    const stats = step(schemas.SendJobStats as Node, null);
    const names = stats.flatMap((n) => Object.keys(n.properties ?? {}));
    expect(names).toContain("unique_opens");
    expect(names.filter((name) => !(name in WORDS.jobMetric))).toEqual([]);
    expect(say("jobMetric", "unique_opens")).toBe("Unique opens");
  });

  test("no phrase is the code itself", () => {
    for (const [vocabulary, words] of Object.entries(WORDS)) {
      for (const [value, phrase] of Object.entries(words)) {
        expect(phrase.includes("_"), `${vocabulary}.${value}: ${phrase}`).toBe(false);
        if (value.length > 3) expect(phrase, `${vocabulary}.${value}`).not.toBe(value);
      }
    }
  });
});

test("every operation of the admin document reads as words in the audit log", () => {
  expect(operationIds.length).toBeGreaterThan(50);
  for (const id of [...operationIds, "signIn", "signInFailed", "signOut"]) {
    const label = operationLabel(id);
    expect(label, id).toMatch(/^[A-Z][A-Za-z0-9-]*( [A-Za-z0-9-]+)*$/);
    expect(label, id).not.toMatch(/[a-z][A-Z]/);
  }
  expect(operationLabel("updateCustomer")).toBe("Update customer");
  expect(operationLabel("revokeApiKey")).toBe("Revoke API key");
  expect(operationLabel("signInFailed")).toBe("Sign-in failed");
});

test("an unknown value reads as words, never as a code", () => {
  expect(say("messageStatus", "some_new_state")).toBe("some new state");
  expect(say("messageStatus", null)).toBe("—");
});
