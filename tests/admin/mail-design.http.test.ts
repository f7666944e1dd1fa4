import { afterAll, beforeAll, expect, test } from "vitest";
import { defaultDesignTokens } from "../../lib/mail/render/tokens";
import {
  createHarness,
  describeResponse,
  type Harness,
  type ErrorEnvelope,
  type Admin,
  type ErrorDetail,
  type Mail,
  type OpenApiDocument,
} from "../helpers/harness";

type Rules = Admin["getCustomerDesignRules"];

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

test("without own rules: empty overrides, complete default tokens, version 0", async () => {
  const c = await h.customer();
  const r = await h.admin<Rules>("GET", `/v1/customers/${c.id}/mail/design-rules`);
  expect(r.status, describeResponse(r)).toBe(200);
  expect(r.json.data).toEqual({ overrides: {}, tokens: { ...defaultDesignTokens }, version: 0 });
});

test("a partial override resolves over the defaults, for the admin and the customer alike", async () => {
  const c = await h.customer();
  const put = await h.admin<Rules>("PUT", `/v1/customers/${c.id}/mail/design-rules`, {
    overrides: { color_primary: "#e11d48", button_radius: "0px", color_success: "#166534" },
  });
  expect(put.status, describeResponse(put)).toBe(200);
  const expected = { ...defaultDesignTokens, color_primary: "#e11d48", button_radius: "0px", color_success: "#166534" };
  expect(put.json.data).toEqual({ overrides: { color_primary: "#e11d48", button_radius: "0px", color_success: "#166534" }, tokens: expected, version: 1 });
  expect((await h.admin<Admin["getCustomerDesignRules"]>("GET", `/v1/customers/${c.id}/mail/design-rules`)).json.data).toEqual(put.json.data);

  const customerView = await h.call<Mail["getDesignRules"]>("GET", "/mail/v1/design-rules", { key: c.mailReporting });
  expect(customerView.status, describeResponse(customerView)).toBe(200);
  expect(customerView.json.data).toEqual(expected);

  // PUT replaces the overrides: what is left out falls back to the default.
  const replaced = await h.admin<Rules>("PUT", `/v1/customers/${c.id}/mail/design-rules`, { overrides: { font_size_base: "15px" } });
  expect(replaced.json.data, describeResponse(replaced)).toMatchObject({ overrides: { font_size_base: "15px" }, version: 2 });
  expect(replaced.json.data.tokens.color_primary).toBe(defaultDesignTokens.color_primary);
  const reset = await h.admin<Rules>("PUT", `/v1/customers/${c.id}/mail/design-rules`, { overrides: {} });
  expect(reset.json.data.tokens, describeResponse(reset)).toEqual({ ...defaultDesignTokens });
});

test("a bad colour answers 422 naming the field; every bad value is reported; nothing is stored", async () => {
  const c = await h.customer();
  const bad = await h.admin<ErrorEnvelope<ErrorDetail[]>>("PUT", `/v1/customers/${c.id}/mail/design-rules`, {
    overrides: { color_primary: "red", font_size_base: "90px", colour_sky: "#ffffff" },
  });
  expect(bad.status, describeResponse(bad)).toBe(422);
  expect(bad.json.error.code).toBe("validation_error");
  const paths = bad.json.error.details.map((d: { path: string }) => d.path);
  expect(paths).toEqual(expect.arrayContaining(["overrides.color_primary", "overrides.font_size_base", "overrides.colour_sky"]));
  expect((await h.admin<Admin["getCustomerDesignRules"]>("GET", `/v1/customers/${c.id}/mail/design-rules`)).json.data.version).toBe(0);

  const notString = await h.admin<ErrorEnvelope<ErrorDetail[]>>("PUT", `/v1/customers/${c.id}/mail/design-rules`, { overrides: { color_primary: 12 } });
  expect(notString.status, describeResponse(notString)).toBe(422);
  expect(notString.json.error.details[0].path).toBe("overrides.color_primary");
  // A value that would break out of an attribute or a CSS declaration never gets in.
  const injection = await h.admin("PUT", `/v1/customers/${c.id}/mail/design-rules`, { overrides: { font_body: 'Arial" onload="x' } });
  expect(injection.status, describeResponse(injection)).toBe(422);
  expect((await h.admin("PUT", `/v1/customers/${c.id}/mail/design-rules`, {})).status).toBe(400);
});

test("the route description documents every token with its group", async () => {
  const doc = await h.call<OpenApiDocument>("GET", "/admin/v1/openapi.json");
  const description: string = doc.json.paths["/v1/customers/{id}/mail/design-rules"].get.description;
  for (const key of Object.keys(defaultDesignTokens)) expect(description).toContain(`\`${key}\``);
  expect(description).toContain("Status colours");
  expect(description).toContain("Components");
  expect(description).not.toContain("**Other**");
  const schema = doc.json.components.schemas.MailDesignTokens;
  expect(Object.keys(schema.properties ?? {}).sort()).toEqual(Object.keys(defaultDesignTokens).sort());
});
