CREATE TABLE "ads_rendered_images" (
	"content_hash" text PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ads_template_assignments" (
	"customer_id" uuid NOT NULL,
	"template_id" uuid NOT NULL,
	"preview_values" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ads_template_assignments_customer_id_template_id_pk" PRIMARY KEY("customer_id","template_id")
);
--> statement-breakpoint
CREATE TABLE "ads_templates" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"type" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"params" jsonb NOT NULL,
	"layouts" jsonb NOT NULL,
	"highlight" jsonb,
	"revision" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ads_creatives" ADD COLUMN "template_id" uuid;--> statement-breakpoint
ALTER TABLE "ads_creatives" ADD COLUMN "formats" jsonb;--> statement-breakpoint
ALTER TABLE "ads_template_assignments" ADD CONSTRAINT "ads_template_assignments_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ads_template_assignments" ADD CONSTRAINT "ads_template_assignments_template_id_ads_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."ads_templates"("id") ON DELETE cascade ON UPDATE no action;