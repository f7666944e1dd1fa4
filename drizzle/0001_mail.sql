CREATE TABLE "mail_block_enablements" (
	"customer_id" uuid NOT NULL,
	"block_id" uuid NOT NULL,
	"enabled_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mail_block_enablements_customer_id_block_id_pk" PRIMARY KEY("customer_id","block_id")
);
--> statement-breakpoint
CREATE TABLE "mail_blocks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"mjml" text NOT NULL,
	"params" jsonb NOT NULL,
	"tags" jsonb NOT NULL,
	"series" jsonb,
	"version" integer DEFAULT 1 NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mail_design_rules" (
	"customer_id" uuid PRIMARY KEY NOT NULL,
	"overrides" jsonb NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mail_frames" (
	"customer_id" uuid PRIMARY KEY NOT NULL,
	"header_mjml" text,
	"newsletter_footer_mjml" text NOT NULL,
	"transactional_footer_mjml" text NOT NULL,
	"brand" jsonb NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mail_message_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"message_id" uuid NOT NULL,
	"customer_id" uuid NOT NULL,
	"type" text NOT NULL,
	"occurred_at" timestamp (3) with time zone NOT NULL,
	"identity" text NOT NULL,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"received_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mail_messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"customer_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"mode" text NOT NULL,
	"status" text NOT NULL,
	"template_id" uuid NOT NULL,
	"send_job_id" uuid,
	"subject" text NOT NULL,
	"recipient_hash" text NOT NULL,
	"provider_message_id" text,
	"bounce_type" text,
	"error" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"accepted_at" timestamp (3) with time zone,
	"delivered_at" timestamp (3) with time zone,
	"first_opened_at" timestamp (3) with time zone,
	"first_clicked_at" timestamp (3) with time zone,
	"bounced_at" timestamp (3) with time zone,
	"complained_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "mail_provider_configs" (
	"customer_id" uuid PRIMARY KEY NOT NULL,
	"server_token_sealed" text,
	"transactional_stream" text,
	"broadcast_stream" text,
	"verified_senders" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"verified_domains" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"default_newsletter_from" jsonb,
	"default_transactional_from" jsonb,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mail_suppressions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"customer_id" uuid NOT NULL,
	"stream" text NOT NULL,
	"email" text NOT NULL,
	"active" boolean NOT NULL,
	"reason" text NOT NULL,
	"changed_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mail_templates" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"customer_id" uuid NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"origin" text NOT NULL,
	"subject" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"params" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"blocks" jsonb,
	"from" jsonb,
	"values" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "mail_block_enablements" ADD CONSTRAINT "mail_block_enablements_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_block_enablements" ADD CONSTRAINT "mail_block_enablements_block_id_mail_blocks_id_fk" FOREIGN KEY ("block_id") REFERENCES "public"."mail_blocks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_design_rules" ADD CONSTRAINT "mail_design_rules_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_frames" ADD CONSTRAINT "mail_frames_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_message_events" ADD CONSTRAINT "mail_message_events_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_messages" ADD CONSTRAINT "mail_messages_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_provider_configs" ADD CONSTRAINT "mail_provider_configs_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_suppressions" ADD CONSTRAINT "mail_suppressions_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_templates" ADD CONSTRAINT "mail_templates_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "mail_message_events_message_id_identity_index" ON "mail_message_events" USING btree ("message_id","identity");--> statement-breakpoint
CREATE INDEX "mail_message_events_message_id_occurred_at_index" ON "mail_message_events" USING btree ("message_id","occurred_at");--> statement-breakpoint
CREATE INDEX "mail_messages_customer_id_accepted_at_index" ON "mail_messages" USING btree ("customer_id","accepted_at");--> statement-breakpoint
CREATE INDEX "mail_messages_send_job_id_status_index" ON "mail_messages" USING btree ("send_job_id","status");--> statement-breakpoint
CREATE UNIQUE INDEX "mail_suppressions_customer_id_stream_email_index" ON "mail_suppressions" USING btree ("customer_id","stream","email");--> statement-breakpoint
CREATE INDEX "mail_suppressions_customer_id_stream_changed_at_id_index" ON "mail_suppressions" USING btree ("customer_id","stream","changed_at","id");--> statement-breakpoint
CREATE INDEX "mail_templates_customer_id_created_at_index" ON "mail_templates" USING btree ("customer_id","created_at");