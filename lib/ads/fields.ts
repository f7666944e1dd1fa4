import { z } from "@hono/zod-openapi";

/** A platform (Graph) object id: digits only. */
export const graphId = (description: string, example: string) =>
  z
    .string()
    .regex(/^\d{1,30}$/, "Must be a numeric platform id.")
    .openapi({ description, example });

/** A short free text the operator enters (names of the advertiser): trimmed, 1–200 characters. */
export const text = (description: string, example: string) => z.string().trim().min(1).max(200).openapi({ description, example });
