import { eq, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mailFrames, type BrandRecord } from "../../db/schema";
import { assertNewsletterFooter } from "../render";
import { checkPlaceholderSyntax } from "./syntax";
import type { Frame } from "../render/types";

export type FrameRecord = Frame & { version: number; updated_at: string | null };

export type FrameInput = {
  header_mjml: string | null;
  newsletter_footer_mjml: string;
  transactional_footer_mjml: string;
  brand: BrandRecord;
};

export async function getFrame(db: Database, customerId: string): Promise<FrameRecord | null> {
  const [row] = await db.select().from(mailFrames).where(eq(mailFrames.customerId, customerId));
  if (!row) return null;
  return {
    header_mjml: row.headerMjml,
    newsletter_footer_mjml: row.newsletterFooterMjml,
    transactional_footer_mjml: row.transactionalFooterMjml,
    brand: row.brand,
    version: row.version,
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The newsletter footer must link Postmark's `{{{ pm:unsubscribe }}}`; every fragment must parse. */
export async function setFrame(db: Database, customerId: string, input: FrameInput, now: Date): Promise<FrameRecord> {
  assertNewsletterFooter(input.newsletter_footer_mjml, "newsletter_footer_mjml");
  checkPlaceholderSyntax([
    ["header_mjml", input.header_mjml ?? ""],
    ["newsletter_footer_mjml", input.newsletter_footer_mjml],
    ["transactional_footer_mjml", input.transactional_footer_mjml],
  ]);
  const values = {
    headerMjml: input.header_mjml,
    newsletterFooterMjml: input.newsletter_footer_mjml,
    transactionalFooterMjml: input.transactional_footer_mjml,
    brand: input.brand,
    updatedAt: now,
  };
  await db
    .insert(mailFrames)
    .values({ customerId, ...values })
    .onConflictDoUpdate({ target: mailFrames.customerId, set: { ...values, version: sql`${mailFrames.version} + 1` } });
  const frame = await getFrame(db, customerId);
  if (!frame) throw new Error("frame vanished");
  return frame;
}
