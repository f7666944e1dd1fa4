import { z } from "@hono/zod-openapi";
import { creativeStatuses } from "../../db/schema/index";

export const Creative = z
  .object({
    id: z.uuid().openapi({ description: "Creative id (UUID); the `creative_id` of POST /v1/ads.", example: "3c2b1a09-8f7e-4d6c-9b5a-4f3e2d1c0b9a" }),
    name: z.string().openapi({ description: "Name, 1–200 characters.", example: "Summer sale square" }),
    type: z.enum(["IMAGE", "VIDEO"]).openapi({ description: "Medium type.", example: "IMAGE" }),
    status: z.enum(creativeStatuses).openapi({
      description: "`DRAFT` until an ad is built from it, then `ACTIVE` (final, with `platform_creative_id`); `ARCHIVED` after DELETE.",
      example: "DRAFT",
    }),
    image_hash: z
      .string()
      .nullable()
      .openapi({ description: "Image of an IMAGE creative (used for all three placement ratios).", example: "2b4c3d8e9f10a1b2c3d4e5f60718293a" }),
    video_id: z.string().nullable().openapi({ description: "Platform video id of a VIDEO creative.", example: null }),
    thumbnail_hash: z.string().nullable().openapi({ description: "Thumbnail image of a VIDEO creative; null = the platform's generated one.", example: null }),
    platform_creative_id: z
      .string()
      .nullable()
      .openapi({ description: "The platform's creative id; present only after an ad was built from the draft.", example: null }),
    created_at: z.string().openapi({ description: "Creation time (ISO 8601).", example: "2026-01-15T10:00:00.000Z" }),
    updated_at: z.string().openapi({ description: "Last change (ISO 8601).", example: "2026-01-15T10:00:00.000Z" }),
  })
  .openapi("Creative");

const name = z.string().trim().min(1).max(200);

export const CreateCreative = z
  .strictObject({
    image_hash: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .openapi({ description: "Hash from POST /v1/media/images; exactly one of `image_hash` and `video_id`.", example: "2b4c3d8e9f10a1b2c3d4e5f60718293a" }),
    video_id: z
      .string()
      .regex(/^\d+$/, "Must be a platform video id.")
      .optional()
      .openapi({ description: "`video_id` from POST /v1/media/videos; exactly one of `image_hash` and `video_id`.", example: "120210000000000123" }),
    thumbnail_hash: z.string().min(1).max(64).optional().openapi({
      description: "Only with `video_id`: an uploaded image as thumbnail. Without it the video must already be READY.",
      example: "5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b",
    }),
    name: name.optional().openapi({ description: "1–200 characters; default `Image <hash prefix>` or `Video <video id>`.", example: "Summer sale square" }),
  })
  .openapi("CreateCreative");

export const UpdateCreative = z
  .strictObject({
    name: name.openapi({ description: "New name, 1–200 characters.", example: "Summer sale square v2" }),
  })
  .openapi("UpdateCreative");
