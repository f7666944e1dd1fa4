CREATE TABLE "mail_billing_reports" (
	"customer_id" uuid NOT NULL,
	"day" date NOT NULL,
	"accepted" integer NOT NULL,
	"body" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"posted_at" timestamp (3) with time zone,
	CONSTRAINT "mail_billing_reports_customer_id_day_pk" PRIMARY KEY("customer_id","day")
);
--> statement-breakpoint
CREATE TABLE "mail_send_job_recipients" (
	"send_job_id" uuid NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "mail_send_job_recipients_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"recipient_hash" text NOT NULL,
	"message_id" uuid NOT NULL,
	"email" text,
	"name" text,
	"data" text DEFAULT '{}' NOT NULL,
	CONSTRAINT "mail_send_job_recipients_send_job_id_seq_pk" PRIMARY KEY("send_job_id","seq")
);
--> statement-breakpoint
CREATE TABLE "mail_send_jobs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"customer_id" uuid NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"mode" text NOT NULL,
	"template_id" uuid NOT NULL,
	"params" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"from" jsonb NOT NULL,
	"reply_to" text,
	"scheduled_at" timestamp (3) with time zone,
	"subject" text,
	"compiled" jsonb,
	"pause_reason" text,
	"error" text,
	"run" integer DEFAULT 0 NOT NULL,
	"claim_cursor" bigint DEFAULT 0 NOT NULL,
	"total" integer DEFAULT 0 NOT NULL,
	"accepted" integer DEFAULT 0 NOT NULL,
	"suppressed" integer DEFAULT 0 NOT NULL,
	"invalid" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"unknown" integer DEFAULT 0 NOT NULL,
	"pending" integer DEFAULT 0 NOT NULL,
	"batches_completed" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp (3) with time zone,
	"completed_at" timestamp (3) with time zone,
	"last_progress_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "mail_billing_reports" ADD CONSTRAINT "mail_billing_reports_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_send_job_recipients" ADD CONSTRAINT "mail_send_job_recipients_send_job_id_mail_send_jobs_id_fk" FOREIGN KEY ("send_job_id") REFERENCES "public"."mail_send_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_send_jobs" ADD CONSTRAINT "mail_send_jobs_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mail_billing_reports_posted_at_index" ON "mail_billing_reports" USING btree ("posted_at");--> statement-breakpoint
CREATE UNIQUE INDEX "mail_send_job_recipients_send_job_id_recipient_hash_index" ON "mail_send_job_recipients" USING btree ("send_job_id","recipient_hash");--> statement-breakpoint
CREATE INDEX "mail_send_jobs_customer_id_created_at_index" ON "mail_send_jobs" USING btree ("customer_id","created_at");--> statement-breakpoint
CREATE INDEX "mail_send_jobs_status_scheduled_at_index" ON "mail_send_jobs" USING btree ("status","scheduled_at");