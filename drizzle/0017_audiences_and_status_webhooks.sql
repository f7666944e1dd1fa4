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
CREATE TABLE "ads_status_changes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"customer_id" uuid NOT NULL,
	"ad_id" uuid NOT NULL,
	"previous_status" text NOT NULL,
	"effective_status" text NOT NULL,
	"reason" text,
	"source" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ads_webhook_deliveries" (
	"id" uuid PRIMARY KEY NOT NULL,
	"webhook_id" uuid NOT NULL,
	"customer_id" uuid NOT NULL,
	"event" text NOT NULL,
	"body" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp (3) with time zone NOT NULL,
	"last_attempt_at" timestamp (3) with time zone,
	"last_status_code" integer,
	"last_error" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "ads_webhooks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"customer_id" uuid NOT NULL,
	"url" text NOT NULL,
	"events" jsonb NOT NULL,
	"secret_sealed" text NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"deactivated_at" timestamp (3) with time zone,
	"deactivation_reason" text,
	"last_delivery_at" timestamp (3) with time zone,
	"failure_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mail_webhooks" ADD COLUMN "last_delivery_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "mail_webhooks" ADD COLUMN "failure_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "ads_audiences" ADD CONSTRAINT "ads_audiences_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ads_audiences" ADD CONSTRAINT "ads_audiences_origin_audience_id_ads_audiences_id_fk" FOREIGN KEY ("origin_audience_id") REFERENCES "public"."ads_audiences"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ads_status_changes" ADD CONSTRAINT "ads_status_changes_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ads_status_changes" ADD CONSTRAINT "ads_status_changes_ad_id_ads_ads_id_fk" FOREIGN KEY ("ad_id") REFERENCES "public"."ads_ads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ads_webhook_deliveries" ADD CONSTRAINT "ads_webhook_deliveries_webhook_id_ads_webhooks_id_fk" FOREIGN KEY ("webhook_id") REFERENCES "public"."ads_webhooks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ads_webhook_deliveries" ADD CONSTRAINT "ads_webhook_deliveries_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ads_webhooks" ADD CONSTRAINT "ads_webhooks_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "ads_audiences_customer_id_platform_audience_id_index" ON "ads_audiences" USING btree ("customer_id","platform_audience_id");--> statement-breakpoint
CREATE INDEX "ads_audiences_customer_id_created_at_index" ON "ads_audiences" USING btree ("customer_id","created_at");--> statement-breakpoint
CREATE INDEX "ads_status_changes_ad_id_created_at_index" ON "ads_status_changes" USING btree ("ad_id","created_at");--> statement-breakpoint
CREATE INDEX "ads_status_changes_customer_id_created_at_index" ON "ads_status_changes" USING btree ("customer_id","created_at");--> statement-breakpoint
CREATE INDEX "ads_webhook_deliveries_status_next_attempt_at_index" ON "ads_webhook_deliveries" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "ads_webhook_deliveries_webhook_id_index" ON "ads_webhook_deliveries" USING btree ("webhook_id");--> statement-breakpoint
CREATE INDEX "ads_webhooks_customer_id_created_at_index" ON "ads_webhooks" USING btree ("customer_id","created_at");--> statement-breakpoint
CREATE INDEX "ads_ads_platform_ad_id_index" ON "ads_ads" USING btree ("platform_ad_id");