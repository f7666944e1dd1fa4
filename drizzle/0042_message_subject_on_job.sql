ALTER TABLE "mail_messages" ALTER COLUMN "subject" DROP NOT NULL;
