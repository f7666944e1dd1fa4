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
ALTER TABLE "ads_insight_blocks" ADD CONSTRAINT "ads_insight_blocks_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ads_insight_snapshots" ADD CONSTRAINT "ads_insight_snapshots_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ads_insight_syncs" ADD CONSTRAINT "ads_insight_syncs_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ads_plan_selections" ADD CONSTRAINT "ads_plan_selections_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ads_insight_snapshots_ad_id_index" ON "ads_insight_snapshots" USING btree ("ad_id");