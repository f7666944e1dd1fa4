import { sql } from "drizzle-orm";
import { index, integer, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { customers } from "./core";

const at = () => timestamp({ withTimezone: true, mode: "date", precision: 3 });

export const assetStatuses = ["pending", "ready", "failed"] as const;
/** Accepted upload types; published images are only ever JPEG or PNG. */
export const imageTypes = ["image/jpeg", "image/png", "image/webp", "image/gif"] as const;

/**
 * Image assets of the mail service (DESIGN §5). A row is announced `pending`, receives its raw upload
 * (straight into the blob store) and becomes `ready` with a content-addressed `pathname`/`url`, or
 * `failed` with the rejection `error`. Identical images share one published file, even across customers,
 * so `pathname` is indexed: a file is removed only when no row refers to it any more.
 */
export const mailAssets = pgTable(
  "mail_assets",
  {
    id: uuid().primaryKey().defaultRandom(),
    customerId: uuid()
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    filename: text().notNull(),
    /** The type announced at creation; the signed upload accepts only this one. */
    uploadContentType: text({ enum: imageTypes }).notNull(),
    status: text({ enum: assetStatuses }).notNull().default("pending"),
    uploadExpiresAt: at().notNull(),
    /**
     * Where the raw upload lands (`uploads/<id>-<random suffix>`), chosen at announcement and signed into
     * the upload URL; the suffix keeps the raw file (with its EXIF) unguessable on the public store.
     */
    uploadPathname: text().notNull(),
    /**
     * Embedded mode: set when the signed PUT claims the upload, which makes the URL single-use (a
     * conditional update from null). Vercel Blob refuses a second PUT while the first file exists, so it
     * stays null there (a PUT after the service removed the file is swept by the cleanup cron).
     */
    uploadedAt: at(),
    /** Published image; null until `ready`. */
    contentType: text({ enum: imageTypes }),
    pathname: text(),
    url: text(),
    width: integer(),
    height: integer(),
    bytes: integer(),
    /** Why `complete` rejected the upload; repeated on every later `complete`. */
    error: text(),
    createdAt: at().notNull().defaultNow(),
    completedAt: at(),
  },
  // The cleanup cron finds abandoned announcements by age among the (few) pending rows.
  (t) => [
    index().on(t.customerId, t.createdAt),
    index().on(t.pathname),
    index("mail_assets_pending_created_at_index").on(t.createdAt).where(sql`${t.status} = 'pending'`),
  ],
);
