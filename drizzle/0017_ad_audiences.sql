CREATE TABLE "ads_audiences" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"customer_id" uuid NOT NULL,
	"type" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"platform_audience_id" text NOT NULL,
	"origin_audience_id" uuid,
	"lookalike_country" text,
	"lookalike_ratio_bp" integer,
	"contacts_sent" integer DEFAULT 0 NOT NULL,
	"contacts_removed" integer DEFAULT 0 NOT NULL,
	"contacts_invalid" integer DEFAULT 0 NOT NULL,
	"live" jsonb,
	"live_fetched_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ads_audiences" ADD CONSTRAINT "ads_audiences_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ads_audiences" ADD CONSTRAINT "ads_audiences_origin_audience_id_ads_audiences_id_fk" FOREIGN KEY ("origin_audience_id") REFERENCES "public"."ads_audiences"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "ads_audiences_customer_id_platform_audience_id_index" ON "ads_audiences" USING btree ("customer_id","platform_audience_id");--> statement-breakpoint
CREATE INDEX "ads_audiences_customer_id_created_at_index" ON "ads_audiences" USING btree ("customer_id","created_at");