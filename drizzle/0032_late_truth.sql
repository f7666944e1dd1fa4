ALTER TABLE "mail_send_jobs" ADD COLUMN "sent_twice" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE TABLE "mail_send_job_rechecks" (
	"send_job_id" uuid NOT NULL,
	"batch_id" uuid NOT NULL,
	"customer_id" uuid NOT NULL,
	"message_ids" text NOT NULL,
	"check_after" timestamp (3) with time zone NOT NULL,
	"checks" integer DEFAULT 0 NOT NULL,
	"until" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "mail_send_job_rechecks_send_job_id_batch_id_pk" PRIMARY KEY("send_job_id","batch_id")
);
--> statement-breakpoint
ALTER TABLE "mail_send_job_rechecks" ADD CONSTRAINT "mail_send_job_rechecks_send_job_id_mail_send_jobs_id_fk" FOREIGN KEY ("send_job_id") REFERENCES "public"."mail_send_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_send_job_rechecks" ADD CONSTRAINT "mail_send_job_rechecks_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mail_send_job_rechecks_check_after_index" ON "mail_send_job_rechecks" USING btree ("check_after");--> statement-breakpoint
CREATE TABLE "mail_message_extra_copies" (
	"provider_message_id" text PRIMARY KEY NOT NULL,
	"message_id" uuid NOT NULL,
	"customer_id" uuid NOT NULL,
	"send_job_id" uuid,
	"mode" text NOT NULL,
	"accepted_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mail_message_extra_copies" ADD CONSTRAINT "mail_message_extra_copies_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_message_extra_copies" ADD CONSTRAINT "mail_message_extra_copies_send_job_id_mail_send_jobs_id_fk" FOREIGN KEY ("send_job_id") REFERENCES "public"."mail_send_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mail_message_extra_copies_customer_id_accepted_at_index" ON "mail_message_extra_copies" USING btree ("customer_id","accepted_at");
