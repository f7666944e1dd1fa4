import type { z } from "@hono/zod-openapi";
import type { BlockRow } from "../../../../mail/setup/blocks";
import type { MailBlock, MailEnabledBlock } from "../schema";

export type MailBlockResponse = z.infer<typeof MailBlock>;
export type MailEnabledBlockResponse = z.infer<typeof MailEnabledBlock>;

export function toMailBlockView(row: BlockRow): MailBlockResponse {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    description: row.description ?? null,
    mjml: row.mjml,
    params: row.params,
    tags: row.tags,
    series: row.series ?? null,
    version: row.version,
    active: row.active,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export const tags = ["Mail blocks"];

/** The global block library and its enablement per customer. */
