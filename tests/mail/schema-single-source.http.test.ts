import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { blockParamTypes } from "../../lib/db/schema";
import { createHarness, type Harness } from "../helpers/harness";

/**
 * One schema per resource: the admin API's mail views are derived from the customer API's, so the two
 * documents name the same fields and the same value types. Read from the documents the app serves.
 */
type SchemaObject = { properties?: Record<string, { enum?: string[] }>; required?: string[] };
type Document = { components: { schemas: Record<string, SchemaObject> } };

let h: Harness;
let mail: Document;
let admin: Document;

beforeAll(async () => {
  h = await createHarness();
  mail = (await h.call<Document>("GET", "/mail/v1/openapi.json")).json;
  admin = (await h.call<Document>("GET", "/admin/v1/openapi.json")).json;
});
afterAll(async () => h.close());

const fields = (doc: Document, name: string) => {
  const schema = doc.components.schemas[name];
  if (!schema?.properties) throw new Error(`no object schema ${name}`);
  return Object.keys(schema.properties).sort();
};

describe("admin mail schemas derive from the customer ones", () => {
  test.each([
    ["Template", "MailTemplate"],
    ["TemplateParam", "MailTemplateParam"],
    ["BlockParam", "MailBlockParam"],
    ["BlockTag", "MailBlockTag"],
    ["Sender", "MailSender"],
    ["BlockReference", "MailBlockReference"],
  ])("%s and %s have the same fields", (customer, operator) => {
    expect(fields(admin, operator)).toEqual(fields(mail, customer));
  });

  test("MailBlock has every field of Block but the customer's tile link, plus the operator's MJML and lifecycle", () => {
    const block = fields(mail, "Block").filter((f) => f !== "tile_url");
    expect(fields(admin, "MailBlock")).toEqual([...block, "active", "created_at", "mjml", "updated_at"].sort());
  });

  test.each([
    ["mail", "BlockParam"],
    ["mail", "TemplateParam"],
    ["admin", "MailBlockParam"],
    ["admin", "MailTemplateParam"],
  ] as const)("%s document, %s.type: the one enum the database and the renderer use", (which, name) => {
    const doc = which === "mail" ? mail : admin;
    expect(doc.components.schemas[name]?.properties?.type?.enum).toEqual([...blockParamTypes]);
  });
});
