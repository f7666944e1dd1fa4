-- Rows announced before this column existed uploaded to `uploads/<id>`; backfilled so the column can be NOT NULL.
ALTER TABLE "mail_assets" ADD COLUMN "upload_pathname" text;--> statement-breakpoint
UPDATE "mail_assets" SET "upload_pathname" = 'uploads/' || "id";--> statement-breakpoint
ALTER TABLE "mail_assets" ALTER COLUMN "upload_pathname" SET NOT NULL;--> statement-breakpoint
CREATE INDEX "mail_assets_pending_created_at_index" ON "mail_assets" USING btree ("created_at") WHERE "mail_assets"."status" = 'pending';
