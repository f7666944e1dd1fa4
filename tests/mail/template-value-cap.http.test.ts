import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { demoBlocks } from "../../lib/mail/blocks/library";
import { TEMPLATE_VALUE_MAX } from "../../lib/mail/templates/schema";
import { createHarness, describeResponse, type ErrorEnvelope, type Harness, type Admin, type Mail } from "../helpers/harness";
import { readyMailCustomer } from "../helpers/mail";

/** One schema per resource: a template value is capped at the same length in the customer and the admin API. */
let h: Harness;
let c: Awaited<ReturnType<typeof readyMailCustomer>>;
const text = demoBlocks.find((b) => b.slug === "text")?.id ?? "";

beforeAll(async () => {
  h = await createHarness();
  c = await readyMailCustomer(h, "Cap Co");
});
afterAll(async () => h.close());

const stack = (body: string) => [{ block_id: text, values: { body } }];
const atCap = "x".repeat(TEMPLATE_VALUE_MAX);
const overCap = "x".repeat(TEMPLATE_VALUE_MAX + 1);

// `update` is read for its refusal only.
const apis = {
  customer: {
    create: (body: Record<string, unknown>) => h.call<Mail["createTemplate"]>("POST", "/mail/v1/templates", { key: c.mailFull, body }),
    update: (id: string, body: Record<string, unknown>) => h.call<ErrorEnvelope>("PUT", `/mail/v1/templates/${id}`, { key: c.mailFull, body }),
  },
  admin: {
    create: (body: Record<string, unknown>) => h.admin<Admin["createCustomerMailTemplate"]>("POST", `/v1/customers/${c.id}/mail/templates`, body),
    update: (id: string, body: Record<string, unknown>) => h.admin<ErrorEnvelope>("PATCH", `/v1/customers/${c.id}/mail/templates/${id}`, body),
  },
};

describe.each(Object.entries(apis))("the %s API", (_name, api) => {
  test(`takes a block value or a global value of ${TEMPLATE_VALUE_MAX} characters and refuses one more with 422 naming the field`, async () => {
    const created = await api.create({ name: "At the cap", subject: "Hi", blocks: stack(atCap), values: { note: atCap } });
    expect(created.status, describeResponse(created)).toBe(201);
    expect(created.json.data.blocks?.[0]?.values?.body).toHaveLength(TEMPLATE_VALUE_MAX);

    const overBlock = await api.create({ name: "Over", subject: "Hi", blocks: stack(overCap) });
    expect(overBlock.status, describeResponse(overBlock)).toBe(422);
    const { error } = overBlock.json as unknown as ErrorEnvelope;
    expect(error.code).toBe("validation_error");
    expect(error.details).toEqual([expect.objectContaining({ path: "blocks.0.values.body" })]);

    const overGlobal = await api.update(created.json.data.id, { values: { note: overCap } });
    expect(overGlobal.status, describeResponse(overGlobal)).toBe(422);
    expect(overGlobal.json.error.details).toEqual([expect.objectContaining({ path: "values.note" })]);
  });
});
