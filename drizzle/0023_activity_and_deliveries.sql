DROP INDEX "mail_webhook_deliveries_webhook_id_index";--> statement-breakpoint
DROP INDEX "ads_webhook_deliveries_webhook_id_index";--> statement-breakpoint
ALTER TABLE "mail_webhook_deliveries" ADD COLUMN "last_latency_ms" integer;--> statement-breakpoint
ALTER TABLE "mail_webhook_deliveries" ADD COLUMN "last_response_excerpt" text;--> statement-breakpoint
ALTER TABLE "mail_webhook_deliveries" ADD COLUMN "redelivered_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "ads_webhook_deliveries" ADD COLUMN "last_latency_ms" integer;--> statement-breakpoint
ALTER TABLE "ads_webhook_deliveries" ADD COLUMN "last_response_excerpt" text;--> statement-breakpoint
ALTER TABLE "ads_webhook_deliveries" ADD COLUMN "redelivered_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "mail_messages_customer_id_created_at_id_index" ON "mail_messages" USING btree ("customer_id","created_at","id");--> statement-breakpoint
CREATE INDEX "mail_messages_customer_id_recipient_hash_created_at_id_index" ON "mail_messages" USING btree ("customer_id","recipient_hash","created_at","id");--> statement-breakpoint
CREATE INDEX "mail_webhook_deliveries_webhook_id_created_at_id_index" ON "mail_webhook_deliveries" USING btree ("webhook_id","created_at","id");--> statement-breakpoint
CREATE INDEX "ads_webhook_deliveries_webhook_id_created_at_id_index" ON "ads_webhook_deliveries" USING btree ("webhook_id","created_at","id");