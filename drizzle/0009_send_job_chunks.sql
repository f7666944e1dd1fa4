CREATE TABLE "mail_send_job_address_sets" (
	"send_job_id" uuid PRIMARY KEY NOT NULL,
	"entries" text NOT NULL,
	"count" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mail_send_job_chunks" (
	"send_job_id" uuid NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "mail_send_job_chunks_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"recipients" text NOT NULL,
	CONSTRAINT "mail_send_job_chunks_send_job_id_seq_pk" PRIMARY KEY("send_job_id","seq")
);
--> statement-breakpoint
ALTER TABLE "mail_send_job_address_sets" ADD CONSTRAINT "mail_send_job_address_sets_send_job_id_mail_send_jobs_id_fk" FOREIGN KEY ("send_job_id") REFERENCES "public"."mail_send_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_send_job_chunks" ADD CONSTRAINT "mail_send_job_chunks_send_job_id_mail_send_jobs_id_fk" FOREIGN KEY ("send_job_id") REFERENCES "public"."mail_send_jobs"("id") ON DELETE cascade ON UPDATE no action;