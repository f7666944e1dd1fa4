CREATE TABLE "ads_accounts" (
	"customer_id" uuid PRIMARY KEY NOT NULL,
	"access_token_sealed" text,
	"app_secret_sealed" text,
	"token_verified_at" timestamp (3) with time zone,
	"ad_account_id" text,
	"page_id" text,
	"instagram_account_id" text,
	"dsa_beneficiary" text,
	"dsa_payor" text,
	"legal_name" text,
	"ad_set_name_pattern" text,
	"ad_name_pattern" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ads_ad_sets" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"customer_id" uuid NOT NULL,
	"target_id" uuid NOT NULL,
	"name" text NOT NULL,
	"daily_budget_cents" bigint,
	"lifetime_budget_cents" bigint,
	"start_time" timestamp (3) with time zone,
	"end_time" timestamp (3) with time zone,
	"targeting" jsonb NOT NULL,
	"status" text NOT NULL,
	"platform_ad_set_id" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ads_ads" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"customer_id" uuid NOT NULL,
	"ad_set_id" uuid NOT NULL,
	"creative_id" uuid NOT NULL,
	"name" text NOT NULL,
	"status" text NOT NULL,
	"effective_status" text NOT NULL,
	"disapproval_reason" text,
	"status_checked_at" timestamp (3) with time zone,
	"platform_ad_id" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ads_creatives" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"customer_id" uuid NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"status" text NOT NULL,
	"image_hashes" jsonb,
	"video_ids" jsonb,
	"thumbnail_hashes" jsonb,
	"platform_creative_id" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ads_images" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"customer_id" uuid NOT NULL,
	"image_hash" text NOT NULL,
	"url" text NOT NULL,
	"width" integer NOT NULL,
	"height" integer NOT NULL,
	"bytes" integer NOT NULL,
	"format" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ads_name_sequences" (
	"customer_id" uuid NOT NULL,
	"scope" text NOT NULL,
	"value" integer NOT NULL,
	CONSTRAINT "ads_name_sequences_customer_id_scope_pk" PRIMARY KEY("customer_id","scope")
);
--> statement-breakpoint
CREATE TABLE "ads_targets" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"customer_id" uuid NOT NULL,
	"key" text NOT NULL,
	"platform_campaign_id" text NOT NULL,
	"status" text NOT NULL,
	"config" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ads_videos" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"customer_id" uuid NOT NULL,
	"platform_video_id" text NOT NULL,
	"status" text NOT NULL,
	"title" text,
	"processed_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ads_accounts" ADD CONSTRAINT "ads_accounts_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ads_ad_sets" ADD CONSTRAINT "ads_ad_sets_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ads_ad_sets" ADD CONSTRAINT "ads_ad_sets_target_id_ads_targets_id_fk" FOREIGN KEY ("target_id") REFERENCES "public"."ads_targets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ads_ads" ADD CONSTRAINT "ads_ads_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ads_ads" ADD CONSTRAINT "ads_ads_ad_set_id_ads_ad_sets_id_fk" FOREIGN KEY ("ad_set_id") REFERENCES "public"."ads_ad_sets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ads_ads" ADD CONSTRAINT "ads_ads_creative_id_ads_creatives_id_fk" FOREIGN KEY ("creative_id") REFERENCES "public"."ads_creatives"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ads_creatives" ADD CONSTRAINT "ads_creatives_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ads_images" ADD CONSTRAINT "ads_images_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ads_name_sequences" ADD CONSTRAINT "ads_name_sequences_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ads_targets" ADD CONSTRAINT "ads_targets_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ads_videos" ADD CONSTRAINT "ads_videos_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ads_ad_sets_customer_id_created_at_index" ON "ads_ad_sets" USING btree ("customer_id","created_at");--> statement-breakpoint
CREATE INDEX "ads_ads_customer_id_created_at_index" ON "ads_ads" USING btree ("customer_id","created_at");--> statement-breakpoint
CREATE INDEX "ads_ads_ad_set_id_index" ON "ads_ads" USING btree ("ad_set_id");--> statement-breakpoint
CREATE INDEX "ads_creatives_customer_id_created_at_index" ON "ads_creatives" USING btree ("customer_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "ads_images_customer_id_image_hash_index" ON "ads_images" USING btree ("customer_id","image_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "ads_targets_customer_id_key_index" ON "ads_targets" USING btree ("customer_id","key");--> statement-breakpoint
CREATE UNIQUE INDEX "ads_videos_customer_id_platform_video_id_index" ON "ads_videos" USING btree ("customer_id","platform_video_id");--> statement-breakpoint
CREATE INDEX "ads_videos_customer_id_created_at_index" ON "ads_videos" USING btree ("customer_id","created_at");