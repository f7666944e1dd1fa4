CREATE TABLE "mail_sender_check_runs" (
	"customer_id" uuid PRIMARY KEY NOT NULL,
	"checked_at" timestamp (3) with time zone NOT NULL,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "mail_sender_checks" (
	"customer_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"postmark_id" integer,
	"found_at_postmark" boolean NOT NULL,
	"confirmed" boolean NOT NULL,
	"return_path_verified" boolean,
	"spf_verified" boolean,
	"dns_records" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"checked_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "mail_sender_checks_customer_id_kind_name_pk" PRIMARY KEY("customer_id","kind","name")
);
--> statement-breakpoint
ALTER TABLE "mail_provider_configs" ADD COLUMN "account_token_sealed" text;--> statement-breakpoint
ALTER TABLE "mail_provider_configs" ADD COLUMN "reputation_guard" jsonb;--> statement-breakpoint
ALTER TABLE "mail_send_jobs" ADD COLUMN "guard_outcomes" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "mail_send_jobs" ADD COLUMN "guard_hard_bounces" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "mail_send_jobs" ADD COLUMN "guard_complaints" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "mail_sender_check_runs" ADD CONSTRAINT "mail_sender_check_runs_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_sender_checks" ADD CONSTRAINT "mail_sender_checks_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mail_sender_check_runs_checked_at_index" ON "mail_sender_check_runs" USING btree ("checked_at");