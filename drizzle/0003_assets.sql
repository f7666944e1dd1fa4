CREATE TABLE "mail_assets" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"customer_id" uuid NOT NULL,
	"filename" text NOT NULL,
	"upload_content_type" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"upload_expires_at" timestamp (3) with time zone NOT NULL,
	"uploaded_at" timestamp (3) with time zone,
	"content_type" text,
	"pathname" text,
	"url" text,
	"width" integer,
	"height" integer,
	"bytes" integer,
	"error" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "mail_assets" ADD CONSTRAINT "mail_assets_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mail_assets_customer_id_created_at_index" ON "mail_assets" USING btree ("customer_id","created_at");--> statement-breakpoint
CREATE INDEX "mail_assets_pathname_index" ON "mail_assets" USING btree ("pathname");