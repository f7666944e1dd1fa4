ALTER TABLE "api_keys" ADD COLUMN "label" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "last_used_at" timestamp (3) with time zone;