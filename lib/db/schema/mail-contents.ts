import { index, integer, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { customers } from "./core";
import { mailMessages } from "./mail";

const at = () => timestamp({ withTimezone: true, mode: "date", precision: 3 });

/**
 * What a transactional message carried to Postmark, for the operator's message page: the HTML and text bodies as
 * sent (the recipient's own address replaced, since no address is kept) and the template's version then. Kept
 * `MESSAGE_CONTENT_DAYS` (lib/mail/messages/content.ts), then pruned; PostgreSQL compresses the body
 * (TOAST). Newsletters have no row: their recipients' values are transient, and the page renders the
 * job's stored template with its placeholders instead (docs/adr/0130).
 */
export const mailMessageContents = pgTable(
  "mail_message_contents",
  {
    messageId: uuid()
      .primaryKey()
      .references(() => mailMessages.id, { onDelete: "cascade" }),
    customerId: uuid()
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    templateVersion: integer().notNull(),
    html: text().notNull(),
    /** The text part as sent (`TextBody`), the address replaced likewise; null for mail sent before text parts were. */
    text: text(),
    createdAt: at().notNull(),
  },
  (t) => [index().on(t.createdAt)],
);
