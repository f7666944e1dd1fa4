ALTER TABLE "mail_send_job_chunks" ADD COLUMN "batch_id" uuid;--> statement-breakpoint
ALTER TABLE "mail_send_job_chunks" ADD COLUMN "claimed_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "mail_send_job_chunks_claimed_at_index" ON "mail_send_job_chunks" USING btree ("claimed_at");