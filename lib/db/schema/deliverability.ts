import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { customers } from "./core";

const at = () => timestamp({ withTimezone: true, mode: "date", precision: 3 });

/** A DNS record Postmark asks to publish (host, type, value), as the admin API shows it. */
export type DnsRecord = { purpose: "dkim" | "return_path" | "spf" | "dmarc"; host: string; type: "TXT" | "CNAME"; value: string };

export const senderCheckKinds = ["sender", "domain"] as const;

/**
 * What Postmark's Account API last said about one sender address or domain of a customer (the customer's
 * verified senders and domains, and the domains of its default senders). `confirmed` is a sender signature's
 * `Confirmed`, or for a domain `DKIMVerified`; `foundAtPostmark` false means the account has no such sender
 * signature or domain. Rewritten as a whole by each check (lib/mail/setup/sender-checks.ts).
 */
export const mailSenderChecks = pgTable(
  "mail_sender_checks",
  {
    customerId: uuid()
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    kind: text({ enum: senderCheckKinds }).notNull(),
    /** The address (kind `sender`) or domain (kind `domain`), lower-case. */
    name: text().notNull(),
    postmarkId: integer(),
    foundAtPostmark: boolean().notNull(),
    confirmed: boolean().notNull(),
    /** Domains: `ReturnPathDomainVerified`; null for senders. */
    returnPathVerified: boolean(),
    /** Domains: `SPFVerified`; null for senders. */
    spfVerified: boolean(),
    /** The records still to publish (DKIM pending, Return-Path CNAME, DMARC); empty when all is in place. */
    dnsRecords: jsonb().$type<DnsRecord[]>().notNull().default([]),
    checkedAt: at().notNull(),
  },
  (t) => [primaryKey({ columns: [t.customerId, t.kind, t.name] })],
);

/**
 * The last check of a customer's senders with Postmark: when, and the error if Postmark could not be asked
 * (the previous rows in `mail_sender_checks` stay as they were then).
 */
export const mailSenderCheckRuns = pgTable(
  "mail_sender_check_runs",
  {
    customerId: uuid()
      .primaryKey()
      .references(() => customers.id, { onDelete: "cascade" }),
    checkedAt: at().notNull(),
    error: text(),
  },
  (t) => [index().on(t.checkedAt)],
);
