DROP TABLE "mail_send_job_recipients" CASCADE;--> statement-breakpoint
ALTER TABLE "mail_send_jobs" DROP COLUMN "claim_cursor";