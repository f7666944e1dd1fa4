ALTER TABLE "mail_messages" SET (fillfactor = 50);
