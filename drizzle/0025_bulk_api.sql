CREATE TABLE "mail_send_job_bulk_requests" (
	"request_id" text PRIMARY KEY NOT NULL,
	"job_id" uuid NOT NULL,
	"batch_id" text NOT NULL,
	"status" text NOT NULL,
	"total_messages" integer NOT NULL,
	"percentage_completed" integer DEFAULT 0 NOT NULL,
	"submitted_at" timestamp (3) with time zone,
	"checked_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mail_provider_configs" ADD COLUMN "bulk_api_enabled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "mail_send_job_bulk_requests" ADD CONSTRAINT "mail_send_job_bulk_requests_job_id_mail_send_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."mail_send_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mail_send_job_bulk_requests_job_id_checked_at_index" ON "mail_send_job_bulk_requests" USING btree ("job_id","checked_at");