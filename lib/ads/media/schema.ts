import { z } from "@hono/zod-openapi";
import { videoStatuses } from "../../db/schema/index";

const httpsUrl = (description: string, example: string) =>
  z
    .url({ protocol: /^https$/, error: "Must be an https URL." })
    .max(2048)
    .openapi({ description, example, format: "uri" });

export const MediaImage = z
  .object({
    id: z.uuid().openapi({ description: "Our id of the uploaded image (UUID).", example: "7d8f2a40-1c3b-4e5f-9a6b-2c1d0e9f8a7b" }),
    image_hash: z
      .string()
      .openapi({ description: "The platform's hash of the image; use it as `image_hash` of a creative.", example: "2b4c3d8e9f10a1b2c3d4e5f60718293a" }),
    url: z.string().openapi({
      description: "The platform's URL of the stored image (not the source URL, which may carry a signature).",
      example: "https://scontent.xx.fbcdn.net/v/t45.1600-4/2b4c3d8e.jpg",
    }),
  })
  .openapi("MediaImage");

export const MediaImageItem = z
  .object({
    image_hash: z.string().openapi({ description: "The platform's hash of the image.", example: "2b4c3d8e9f10a1b2c3d4e5f60718293a" }),
    url: z.string().openapi({ description: "The platform's URL of the image.", example: "https://scontent.xx.fbcdn.net/v/t45.1600-4/2b4c3d8e.jpg" }),
    width: z.number().int().openapi({ description: "Width in pixels.", example: 1080 }),
    height: z.number().int().openapi({ description: "Height in pixels.", example: 1080 }),
    name: z.string().openapi({ description: "File name on the platform.", example: "2b4c3d8e9f10a1b2c3d4e5f60718293a.jpeg" }),
    created_time: z
      .string()
      .nullable()
      .openapi({ description: "Upload time, ISO 8601 with numeric offset; null when the platform does not report it.", example: "2026-01-15T10:00:00+00:00" }),
  })
  .openapi("MediaImageItem");

export const CreateMediaImage = z
  .strictObject({
    url: httpsUrl(
      "Public https URL of a JPG, PNG or WebP file of at most 30 MB with ratio 1:1, 4:5, 9:16 or 1.91:1 (±3 %). Redirects are not followed.",
      "https://cdn.example.com/ads/summer-1080.jpg",
    ),
  })
  .openapi("CreateMediaImage");

const VideoStatus = z
  .enum(videoStatuses)
  .openapi({ description: "`PROCESSING` until the platform has transcoded the file, then `READY` or `FAILED`.", example: "PROCESSING" });

export const MediaVideo = z
  .object({
    id: z.uuid().openapi({ description: "Our id of the video (UUID); poll GET /v1/media/videos/{id}.", example: "4b3c2d1e-0f9a-4b8c-9d7e-6f5a4b3c2d1e" }),
    video_id: z.string().openapi({ description: "The platform's video id; use it as `video_id` of a creative.", example: "120210000000000123" }),
    status: VideoStatus,
    title: z.string().nullable().openapi({ description: "Title, taken from the URL's file name.", example: "summer-15s.mp4" }),
    processed_at: z
      .string()
      .nullable()
      .openapi({ description: "When we first saw the platform report READY or FAILED (ISO 8601); null while PROCESSING.", example: null }),
    created_at: z.string().openapi({ description: "When the video was handed over (ISO 8601).", example: "2026-01-15T10:00:00.000Z" }),
  })
  .openapi("MediaVideo");

export const MediaVideoItem = z
  .object({
    id: z
      .uuid()
      .nullable()
      .openapi({ description: "Our id, or null for a video not created through this API.", example: "4b3c2d1e-0f9a-4b8c-9d7e-6f5a4b3c2d1e" }),
    video_id: z.string().openapi({ description: "The platform's video id.", example: "120210000000000123" }),
    title: z.string().openapi({ description: "Title on the platform.", example: "summer-15s.mp4" }),
    status: VideoStatus,
    length: z.number().int().openapi({ description: "Length in seconds, rounded.", example: 15 }),
    created_time: z.string().nullable().openapi({
      description: "Creation time on the platform, ISO 8601 with numeric offset; null when the platform does not report it.",
      example: "2026-01-15T10:00:00+00:00",
    }),
  })
  .openapi("MediaVideoItem");

export const CreateMediaVideo = z
  .strictObject({
    url: httpsUrl(
      "Public https URL of an MP4 or MOV file (H.264 + AAC, at most 4 GB, ratio 1:1, 4:5, 9:16 or 16:9). The platform fetches it, so a signed URL should stay valid for at least an hour.",
      "https://cdn.example.com/ads/summer-15s.mp4",
    ),
  })
  .openapi("CreateMediaVideo");
