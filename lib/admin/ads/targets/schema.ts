import { z } from "@hono/zod-openapi";
import { CustomerIdParam } from "../../customers/schema";

export const TargetKeyParams = CustomerIdParam.extend({
  key: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "key", in: "path" }, description: "Target key.", example: "demo" }),
});
