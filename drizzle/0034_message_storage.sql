DROP INDEX IF EXISTS "mail_messages_customer_id_recipient_hash_created_at_id_index";--> statement-breakpoint
DROP INDEX IF EXISTS "mail_messages_recipient_hash_index";--> statement-breakpoint
ALTER TABLE "mail_messages" ALTER COLUMN "recipient_hash" SET DATA TYPE bytea USING CASE WHEN "recipient_hash" ~ '^[0-9a-f]{64}$' THEN decode("recipient_hash", 'hex') ELSE sha256(convert_to("recipient_hash", 'UTF8')) END;--> statement-breakpoint
CREATE INDEX "mail_messages_recipient_hash_customer_id_created_at_id_index" ON "mail_messages" USING btree ("recipient_hash","customer_id","created_at","id");
