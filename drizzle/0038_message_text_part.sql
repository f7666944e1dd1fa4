ALTER TABLE "mail_message_contents" ADD COLUMN "text" text;
