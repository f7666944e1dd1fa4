ALTER TABLE "mail_messages" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "mail_send_job_chunks" ADD COLUMN "lease_until" timestamp (3) with time zone;--> statement-breakpoint
UPDATE "mail_messages" SET "attempts" = 1 WHERE "send_job_id" IS NOT NULL AND "status" IN ('sending', 'unknown');