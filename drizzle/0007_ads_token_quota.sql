CREATE TABLE "ads_publish_reservations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"customer_id" uuid NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ads_accounts" ADD COLUMN "token_invalid_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "ads_accounts" ADD COLUMN "token_error_code" integer;--> statement-breakpoint
ALTER TABLE "ads_accounts" ADD COLUMN "token_error_subcode" integer;--> statement-breakpoint
ALTER TABLE "ads_publish_reservations" ADD CONSTRAINT "ads_publish_reservations_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ads_publish_reservations_customer_id_created_at_index" ON "ads_publish_reservations" USING btree ("customer_id","created_at");