import type { Database } from "../../db/client";
import { NotFoundError } from "../../core/errors";
import { getCustomer, type CustomerRecord } from "../customers";

/** Every per-customer mail route answers 404 for an unknown customer before it touches anything else. */
export async function requireCustomer(db: Database, id: string): Promise<CustomerRecord> {
  const customer = await getCustomer(db, id);
  if (!customer) throw new NotFoundError("Customer");
  return customer;
}
