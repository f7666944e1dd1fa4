CREATE TABLE "mail_message_contents" (
	"message_id" uuid PRIMARY KEY NOT NULL,
	"customer_id" uuid NOT NULL,
	"template_version" integer NOT NULL,
	"html" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mail_message_contents" ADD CONSTRAINT "mail_message_contents_message_id_mail_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."mail_messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_message_contents" ADD CONSTRAINT "mail_message_contents_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_webhook_deliveries" ADD COLUMN "attempt_log" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "ads_webhook_deliveries" ADD COLUMN "attempt_log" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
CREATE INDEX "mail_message_contents_created_at_index" ON "mail_message_contents" USING btree ("created_at");
