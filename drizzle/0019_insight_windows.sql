CREATE TABLE "ads_insight_windows" (
	"customer_id" uuid NOT NULL,
	"breakdown" text NOT NULL,
	"entity_kind" text NOT NULL,
	"since" date NOT NULL,
	"until" date NOT NULL,
	"version" integer NOT NULL,
	"rows" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ads_insight_windows_customer_id_breakdown_entity_kind_since_until_pk" PRIMARY KEY("customer_id","breakdown","entity_kind","since","until")
);
--> statement-breakpoint
ALTER TABLE "ads_insight_syncs" ADD COLUMN "blocks_version" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "ads_insight_windows" ADD CONSTRAINT "ads_insight_windows_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;