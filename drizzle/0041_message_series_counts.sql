CREATE TABLE "mail_message_series_counts" (
	"customer_id" uuid NOT NULL,
	"hour" timestamp (3) with time zone NOT NULL,
	"series" text NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "mail_message_series_counts_customer_id_hour_series_pk" PRIMARY KEY("customer_id","hour","series")
);
--> statement-breakpoint
CREATE TABLE "mail_message_series_deltas" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"customer_id" uuid NOT NULL,
	"hour" timestamp (3) with time zone NOT NULL,
	"series" text NOT NULL,
	"delta" integer NOT NULL
);
--> statement-breakpoint
CREATE FUNCTION "mail_message_series_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "mail_message_series_deltas" ("customer_id", "hour", "series", "delta")
  SELECT n."customer_id", date_trunc('hour', t."at", 'UTC'), t."series", count(*) FROM "new_rows" n
    CROSS JOIN LATERAL (VALUES ('accepted', n."accepted_at"), ('delivered', n."delivered_at"), ('bounced', n."bounced_at"),
      ('complained', n."complained_at"), ('opened', n."first_opened_at"), ('clicked', n."first_clicked_at")) AS t("series", "at")
    WHERE t."at" IS NOT NULL GROUP BY 1, 2, 3;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION "mail_message_series_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "mail_message_series_deltas" ("customer_id", "hour", "series", "delta")
  SELECT "customer_id", "hour", "series", sum("d") FROM (
    SELECT o."customer_id", t."series", CASE WHEN s."side" = 1 THEN t."new_at" ELSE t."old_at" END AS "at", s."side" AS "d"
      FROM "old_rows" o JOIN "new_rows" n ON n."id" = o."id"
      CROSS JOIN LATERAL (VALUES ('accepted', o."accepted_at", n."accepted_at"), ('delivered', o."delivered_at", n."delivered_at"),
        ('bounced', o."bounced_at", n."bounced_at"), ('complained', o."complained_at", n."complained_at"),
        ('opened', o."first_opened_at", n."first_opened_at"), ('clicked', o."first_clicked_at", n."first_clicked_at")) AS t("series", "old_at", "new_at")
      CROSS JOIN LATERAL (VALUES (-1), (1)) AS s("side")
      WHERE t."old_at" IS DISTINCT FROM t."new_at"
  ) AS "changes"
  CROSS JOIN LATERAL (SELECT date_trunc('hour', "changes"."at", 'UTC') AS "hour") AS h
  WHERE "changes"."at" IS NOT NULL
  GROUP BY "customer_id", "hour", "series" HAVING sum("d") <> 0;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION "mail_message_series_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "mail_message_series_deltas" ("customer_id", "hour", "series", "delta")
  SELECT o."customer_id", date_trunc('hour', t."at", 'UTC'), t."series", -count(*) FROM "old_rows" o
    CROSS JOIN LATERAL (VALUES ('accepted', o."accepted_at"), ('delivered', o."delivered_at"), ('bounced', o."bounced_at"),
      ('complained', o."complained_at"), ('opened', o."first_opened_at"), ('clicked', o."first_clicked_at")) AS t("series", "at")
    WHERE t."at" IS NOT NULL GROUP BY 1, 2, 3;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "mail_message_series_on_insert" AFTER INSERT ON "mail_messages" REFERENCING NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "mail_message_series_inserted"();--> statement-breakpoint
CREATE TRIGGER "mail_message_series_on_update" AFTER UPDATE ON "mail_messages" REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "mail_message_series_updated"();--> statement-breakpoint
CREATE TRIGGER "mail_message_series_on_delete" AFTER DELETE ON "mail_messages" REFERENCING OLD TABLE AS "old_rows" FOR EACH STATEMENT EXECUTE FUNCTION "mail_message_series_deleted"();--> statement-breakpoint
INSERT INTO "mail_message_series_counts" ("customer_id", "hour", "series", "count")
SELECT m."customer_id", date_trunc('hour', t."at", 'UTC'), t."series", count(*) FROM "mail_messages" m
  CROSS JOIN LATERAL (VALUES ('accepted', m."accepted_at"), ('delivered', m."delivered_at"), ('bounced', m."bounced_at"),
    ('complained', m."complained_at"), ('opened', m."first_opened_at"), ('clicked', m."first_clicked_at")) AS t("series", "at")
  WHERE t."at" IS NOT NULL GROUP BY 1, 2, 3;--> statement-breakpoint
DROP INDEX IF EXISTS "mail_messages_customer_id_delivered_at_index";--> statement-breakpoint
DROP INDEX IF EXISTS "mail_messages_customer_id_bounced_at_index";--> statement-breakpoint
DROP INDEX IF EXISTS "mail_messages_customer_id_complained_at_index";--> statement-breakpoint
DROP INDEX IF EXISTS "mail_messages_customer_id_first_opened_at_index";--> statement-breakpoint
DROP INDEX IF EXISTS "mail_messages_customer_id_first_clicked_at_index";--> statement-breakpoint
DROP INDEX IF EXISTS "mail_messages_recipient_hash_customer_id_created_at_id_index";--> statement-breakpoint
DROP INDEX IF EXISTS "mail_messages_provider_message_id_index";--> statement-breakpoint
CREATE INDEX "mail_messages_recipient_hash_index" ON "mail_messages" USING hash ("recipient_hash");--> statement-breakpoint
CREATE INDEX "mail_messages_provider_message_id_index" ON "mail_messages" USING hash ("provider_message_id");
--> statement-breakpoint
DROP INDEX IF EXISTS "mail_messages_send_job_id_status_index";--> statement-breakpoint
CREATE INDEX "mail_messages_send_job_id_index" ON "mail_messages" USING btree ("send_job_id") WHERE "send_job_id" IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "mail_messages_created_at_index" ON "mail_messages" USING btree ("created_at") WHERE "send_job_id" IS NULL AND "accepted_at" IS NULL;
