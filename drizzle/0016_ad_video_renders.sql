CREATE TABLE "ads_video_renders" (
	"creative_id" uuid PRIMARY KEY NOT NULL,
	"customer_id" uuid NOT NULL,
	"template_id" uuid NOT NULL,
	"status" text NOT NULL,
	"params" jsonb NOT NULL,
	"reason" text,
	"output_urls" jsonb,
	"video_ids" jsonb,
	"leased_until" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ads_video_renders" ADD CONSTRAINT "ads_video_renders_creative_id_ads_creatives_id_fk" FOREIGN KEY ("creative_id") REFERENCES "public"."ads_creatives"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ads_video_renders" ADD CONSTRAINT "ads_video_renders_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ads_video_renders_status_updated_at_index" ON "ads_video_renders" USING btree ("status","updated_at");