CREATE TABLE "mail_message_rechecks" (
	"message_id" uuid PRIMARY KEY NOT NULL,
	"customer_id" uuid NOT NULL,
	"check_after" timestamp (3) with time zone NOT NULL,
	"checks" integer DEFAULT 0 NOT NULL,
	"until" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mail_message_rechecks" ADD CONSTRAINT "mail_message_rechecks_message_id_mail_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."mail_messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_message_rechecks" ADD CONSTRAINT "mail_message_rechecks_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mail_message_rechecks_check_after_index" ON "mail_message_rechecks" USING btree ("check_after");
