import type { z } from "@hono/zod-openapi";
import type { MailTemplate } from "../schema";

export type MailTemplateResponse = z.infer<typeof MailTemplate>;

export const tags = ["Mail templates"];

export const stackRule =
  "The stack may reference only blocks enabled and active for the customer (403 `forbidden` with `details.block_ids` otherwise, the same answer the customer API gives) and no block tagged `footer` (422: the footer comes from the frame).";
