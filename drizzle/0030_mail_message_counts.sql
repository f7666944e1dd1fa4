CREATE TABLE "mail_message_count_deltas" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"customer_id" uuid NOT NULL,
	"hour" timestamp (3) with time zone NOT NULL,
	"mode" text NOT NULL,
	"status" text NOT NULL,
	"delta" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mail_message_counts" (
	"customer_id" uuid NOT NULL,
	"hour" timestamp (3) with time zone NOT NULL,
	"mode" text NOT NULL,
	"status" text NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "mail_message_counts_customer_id_hour_mode_status_pk" PRIMARY KEY("customer_id","hour","mode","status")
);
--> statement-breakpoint
ALTER TABLE "mail_send_jobs" ADD COLUMN "name" text;--> statement-breakpoint
CREATE INDEX "mail_message_counts_hour_index" ON "mail_message_counts" USING btree ("hour");--> statement-breakpoint
CREATE INDEX "mail_messages_recipient_hash_index" ON "mail_messages" USING btree ("recipient_hash");--> statement-breakpoint
CREATE FUNCTION "mail_message_counts_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "mail_message_count_deltas" ("customer_id", "hour", "mode", "status", "delta")
  SELECT "customer_id", date_trunc('hour', "created_at", 'UTC'), "mode", "status", count(*) FROM "new_rows" GROUP BY 1, 2, 3, 4;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION "mail_message_counts_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "mail_message_count_deltas" ("customer_id", "hour", "mode", "status", "delta")
  SELECT "customer_id", "hour", "mode", "status", sum("d") FROM (
    SELECT o."customer_id", date_trunc('hour', o."created_at", 'UTC') AS "hour", o."mode", o."status", -1 AS "d"
      FROM "old_rows" o JOIN "new_rows" n ON n."id" = o."id" WHERE o."status" IS DISTINCT FROM n."status" OR o."mode" IS DISTINCT FROM n."mode"
    UNION ALL
    SELECT n."customer_id", date_trunc('hour', n."created_at", 'UTC'), n."mode", n."status", 1
      FROM "old_rows" o JOIN "new_rows" n ON n."id" = o."id" WHERE o."status" IS DISTINCT FROM n."status" OR o."mode" IS DISTINCT FROM n."mode"
  ) AS "changes" GROUP BY 1, 2, 3, 4 HAVING sum("d") <> 0;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION "mail_message_counts_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "mail_message_count_deltas" ("customer_id", "hour", "mode", "status", "delta")
  SELECT "customer_id", date_trunc('hour', "created_at", 'UTC'), "mode", "status", -count(*) FROM "old_rows" GROUP BY 1, 2, 3, 4;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "mail_message_counts_on_insert" AFTER INSERT ON "mail_messages" REFERENCING NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "mail_message_counts_inserted"();--> statement-breakpoint
CREATE TRIGGER "mail_message_counts_on_update" AFTER UPDATE ON "mail_messages" REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "mail_message_counts_updated"();--> statement-breakpoint
CREATE TRIGGER "mail_message_counts_on_delete" AFTER DELETE ON "mail_messages" REFERENCING OLD TABLE AS "old_rows" FOR EACH STATEMENT EXECUTE FUNCTION "mail_message_counts_deleted"();--> statement-breakpoint
INSERT INTO "mail_message_counts" ("customer_id", "hour", "mode", "status", "count")
SELECT "customer_id", date_trunc('hour', "created_at", 'UTC'), "mode", "status", count(*) FROM "mail_messages" GROUP BY 1, 2, 3, 4;
