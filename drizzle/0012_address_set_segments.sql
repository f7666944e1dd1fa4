ALTER TABLE "mail_send_job_address_sets" ADD COLUMN "seq" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "mail_send_job_address_sets" DROP CONSTRAINT "mail_send_job_address_sets_pkey";--> statement-breakpoint
ALTER TABLE "mail_send_job_address_sets" ADD CONSTRAINT "mail_send_job_address_sets_send_job_id_seq_pk" PRIMARY KEY("send_job_id","seq");
