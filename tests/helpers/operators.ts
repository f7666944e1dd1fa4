import type { Admin, Harness } from "./harness";

type OperatorRole = Admin["createOperator"]["data"]["role"];

export type TestOperator = { id: string; email: string; password: string; token: string; role: OperatorRole };

/**
 * A fresh operator of the role with an API token, made through the admin API with the harness's shared
 * token (bootstrap on a fresh database, break-glass once an owner exists: the harness turns it on).
 */
export async function makeOperator(h: Harness, role: OperatorRole): Promise<TestOperator> {
  const email = `${role}-${crypto.randomUUID()}@operators.example`;
  const password = `pw-${crypto.randomUUID()}`;
  const created = await h.admin<Admin["createOperator"]>("POST", "/v1/operators", { email, role, password });
  if (created.status !== 201) throw new Error(`operator create failed: ${created.text}`);
  const issued = await h.admin<Admin["issueOperatorToken"]>("POST", `/v1/operators/${created.json.data.id}/tokens`, { label: "test" });
  if (issued.status !== 201) throw new Error(`operator token failed: ${issued.text}`);
  return { id: created.json.data.id, email, password, token: issued.json.data.token, role };
}
