CREATE TABLE "mail_provider_health" (
	"customer_id" uuid PRIMARY KEY NOT NULL,
	"healthy_since" timestamp (3) with time zone,
	"last_answer_at" timestamp (3) with time zone,
	"last_failure_at" timestamp (3) with time zone,
	"probe_sent_at" timestamp (3) with time zone,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mail_provider_health" ADD CONSTRAINT "mail_provider_health_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "mail_send_job_chunks" ADD COLUMN "evidence_from" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "mail_send_job_chunks" ADD COLUMN "evidence_after" timestamp (3) with time zone;
