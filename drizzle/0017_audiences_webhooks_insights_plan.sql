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
CREATE TABLE "ads_insight_blocks" (
	"customer_id" uuid NOT NULL,
	"breakdown" text NOT NULL,
	"entity_kind" text NOT NULL,
	"level" smallint NOT NULL,
	"block_start" date NOT NULL,
	"entity_id" uuid NOT NULL,
	"ad_set_id" uuid NOT NULL,
	"key1" text NOT NULL,
	"key2" text NOT NULL,
	"impressions" bigint NOT NULL,
	"reach" bigint NOT NULL,
	"clicks" bigint NOT NULL,
	"spend_minor" bigint NOT NULL,
	"conversions" bigint NOT NULL,
	"conversion_value_minor" bigint NOT NULL,
	CONSTRAINT "ads_insight_blocks_customer_id_breakdown_entity_kind_level_block_start_entity_id_key1_key2_pk" PRIMARY KEY("customer_id","breakdown","entity_kind","level","block_start","entity_id","key1","key2")
);
--> statement-breakpoint
CREATE TABLE "ads_insight_snapshots" (
	"customer_id" uuid NOT NULL,
	"dimension" text NOT NULL,
	"date" date NOT NULL,
	"ad_id" uuid NOT NULL,
	"ad_set_id" uuid NOT NULL,
	"value1" text NOT NULL,
	"value2" text NOT NULL,
	"impressions" bigint NOT NULL,
	"reach" bigint NOT NULL,
	"clicks" bigint NOT NULL,
	"spend_minor" bigint NOT NULL,
	"conversions" bigint NOT NULL,
	"conversion_value_minor" bigint NOT NULL,
	"pulled_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "ads_insight_snapshots_customer_id_dimension_date_ad_id_value1_value2_pk" PRIMARY KEY("customer_id","dimension","date","ad_id","value1","value2")
);
--> statement-breakpoint
CREATE TABLE "ads_insight_syncs" (
	"customer_id" uuid PRIMARY KEY NOT NULL,
	"timezone_name" text NOT NULL,
	"currency" text NOT NULL,
	"synced_through" date,
	"last_run_at" timestamp (3) with time zone,
	"last_error" text,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ads_plan_selections" (
	"customer_id" uuid NOT NULL,
	"effective_from" date NOT NULL,
	"stage" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ads_plan_selections_customer_id_effective_from_pk" PRIMARY KEY("customer_id","effective_from")
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
ALTER TABLE "ads_insight_blocks" ADD CONSTRAINT "ads_insight_blocks_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ads_insight_snapshots" ADD CONSTRAINT "ads_insight_snapshots_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ads_insight_syncs" ADD CONSTRAINT "ads_insight_syncs_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ads_plan_selections" ADD CONSTRAINT "ads_plan_selections_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "ads_audiences_customer_id_platform_audience_id_index" ON "ads_audiences" USING btree ("customer_id","platform_audience_id");--> statement-breakpoint
CREATE INDEX "ads_audiences_customer_id_created_at_index" ON "ads_audiences" USING btree ("customer_id","created_at");--> statement-breakpoint
CREATE INDEX "ads_status_changes_ad_id_created_at_index" ON "ads_status_changes" USING btree ("ad_id","created_at");--> statement-breakpoint
CREATE INDEX "ads_status_changes_customer_id_created_at_index" ON "ads_status_changes" USING btree ("customer_id","created_at");--> statement-breakpoint
CREATE INDEX "ads_webhook_deliveries_status_next_attempt_at_index" ON "ads_webhook_deliveries" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "ads_webhook_deliveries_webhook_id_index" ON "ads_webhook_deliveries" USING btree ("webhook_id");--> statement-breakpoint
CREATE INDEX "ads_webhooks_customer_id_created_at_index" ON "ads_webhooks" USING btree ("customer_id","created_at");--> statement-breakpoint
CREATE INDEX "ads_insight_snapshots_ad_id_index" ON "ads_insight_snapshots" USING btree ("ad_id");--> statement-breakpoint
CREATE INDEX "ads_ads_platform_ad_id_index" ON "ads_ads" USING btree ("platform_ad_id");