CREATE TABLE "mail_postmark_webhook_credentials" (
	"customer_id" uuid PRIMARY KEY NOT NULL,
	"username" text NOT NULL,
	"password_sealed" text NOT NULL,
	"previous_password_sealed" text,
	"previous_valid_until" timestamp (3) with time zone,
	"rotated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mail_messages" ADD COLUMN "bounce_final" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "mail_postmark_webhook_credentials" ADD CONSTRAINT "mail_postmark_webhook_credentials_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mail_messages_provider_message_id_index" ON "mail_messages" USING btree ("provider_message_id");--> statement-breakpoint
-- Until now every recorded bounce outranked a delivery: keep that meaning for the bounces already stored.
UPDATE "mail_messages" SET "bounce_final" = true WHERE "bounced_at" IS NOT NULL;
