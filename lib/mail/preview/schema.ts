import { z } from "@hono/zod-openapi";
import { BlockReference, Values } from "../templates/schema";

export const PreviewRequest = z
  .object({
    blocks: z.array(BlockReference).min(1).max(100).openapi({ description: "The stack, 1–100 blocks." }),
    values: Values.optional().openapi({ description: "Global values merged into and overriding the block values." }),
  })
  .openapi("PreviewRequest");

export const RenderError = z
  .object({
    line: z.number().int().nullable().openapi({ description: "Line in `mjml`.", example: 12 }),
    message: z.string().openapi({ description: "What MJML reported.", example: "mj-column cannot be used inside mj-body" }),
    tagName: z.string().nullable().openapi({ description: "The MJML tag concerned.", example: "mj-column" }),
  })
  .openapi("RenderError");

export const Preview = z
  .object({
    mjml: z.string().openapi({ description: "The MJML document that was compiled.", example: "<mjml>…</mjml>" }),
    html: z.string().openapi({ description: "Compiled responsive HTML.", example: "<!doctype html>…" }),
    errors: z.array(RenderError).openapi({ description: "MJML findings; empty when clean." }),
    stub: z.boolean().openapi({ description: "Always false: this is the real renderer.", example: false }),
  })
  .openapi("Preview");
