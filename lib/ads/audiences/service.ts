import { randomInt } from "node:crypto";
import { and, desc, eq, sql } from "drizzle-orm";
import { ConflictError, NotFoundError, ValidationError } from "../../core/errors";
import type { Database } from "../../db/client";
import { adsAudiences, type AudienceLiveRecord } from "../../db/schema";
import type { AdsDeps } from "../deps";
import { connectAdAccount, connectCredentials } from "../onboarding/service";
import {
  AUDIENCE_USERS_MAX_ROWS,
  PlatformError,
  RESTRICTED_OPERATION_CODE,
  RESTRICTED_UPLOAD_SUBCODE,
  type CustomAudienceView,
  type GraphSession,
} from "../platform";
import { closeCompensations, compensateOnFailure, openCompensation } from "../compensations";
import { upstream } from "../upstream";
import { MATCH_SCHEMA, prepareContacts, type Contact } from "./contacts";
import type { z } from "zod";
import {
  MAX_CONTACTS_PER_CALL,
  type Audience,
  type ContactUpload,
  type CreateCustomAudience,
  type CreateLookalikeAudience,
  type UpdateAudience,
} from "./schema";

/**
 * Custom audiences from CRM contacts and lookalikes built on them. Contacts are normalised and hashed by
 * `prepareContacts` before anything else sees them; what is stored is the audience and counts, never a
 * contact. Status and size are the platform's: read live on the detail (kept `LIVE_TTL_MS` so a burst of
 * reads costs one call; `POPULATING_TTL_MS` while a lookalike is being built, so a poll sees READY soon
 * after the platform) and shown as last known in lists.
 */

type Row = typeof adsAudiences.$inferSelect;
export type AudienceType = Row["type"];
type AudienceStatus = AudienceLiveRecord["status"];

export const LIVE_TTL_MS = 60_000;
/** A lookalike being built is what clients poll: its status is asked again after this. */
export const POPULATING_TTL_MS = 5_000;
/** Invalid contacts listed back by index, at most this many (the counts are always complete). */
const MAX_LISTED_INVALID = 100;

/** The API's `Audience` schema (one schema per resource). */
export type AudienceView = z.infer<typeof Audience>;

/** The API's `ContactUpload` schema (one schema per resource). */
export type ContactUploadView = z.infer<typeof ContactUpload>;

/** The API's `CreateCustomAudience`, `CreateLookalikeAudience` and `UpdateAudience` requests. */
type CreateCustomInput = z.infer<typeof CreateCustomAudience>;
type CreateLookalikeInput = z.infer<typeof CreateLookalikeAudience>;
type UpdateAudienceInput = z.infer<typeof UpdateAudience>;

function toAudienceView(row: Row): AudienceView {
  const live = row.live;
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    type: row.type,
    status: live?.status ?? null,
    status_description: live?.description ?? null,
    approximate_size: live?.lower_bound ?? null,
    approximate_size_upper_bound: live?.upper_bound ?? null,
    platform_audience_id: row.platformAudienceId,
    origin_audience_id: row.originAudienceId,
    lookalike: row.lookalikeCountry && row.lookalikeRatioBp !== null ? { country: row.lookalikeCountry, ratio: row.lookalikeRatioBp / 10_000 } : null,
    contacts: row.type === "CUSTOM" ? { sent: row.contactsSent, removed: row.contactsRemoved, invalid: row.contactsInvalid } : null,
    status_checked_at: row.liveFetchedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The platform's two status objects as one state; unknown codes read as UNAVAILABLE rather than guessed. */
function liveRecord(view: CustomAudienceView): AudienceLiveRecord {
  const operation = view.operation_status?.code ?? null;
  const delivery = view.delivery_status?.code ?? null;
  const bound = (value: number | undefined) => (value === undefined || value < 0 ? null : value);
  let status: AudienceStatus = "UNAVAILABLE";
  if (operation === RESTRICTED_OPERATION_CODE || operation === 470) status = "RESTRICTED";
  else if (operation === 441 || operation === 434) status = "POPULATING";
  else if (delivery === 200) status = "READY";
  else if (delivery === 300) status = "TOO_SMALL";
  const description = (operation !== null && operation !== 200 ? view.operation_status?.description : view.delivery_status?.description) ?? null;
  return {
    status,
    description,
    lower_bound: bound(view.approximate_count_lower_bound),
    upper_bound: bound(view.approximate_count_upper_bound),
    operation_code: operation,
    delivery_code: delivery,
  };
}

function restrictedConflict(): ConflictError {
  return new ConflictError(
    "The platform has restricted this audience (operation status 471): its members cannot change until the restriction is resolved in the platform's Audience Manager; or create a new audience.",
    { reason: "audience_restricted" },
  );
}

/** Graph's 100/33: the object does not exist (any more) or is out of the token's reach. */
const isGone = (error: unknown) => error instanceof PlatformError && error.code === 100 && error.subcode === 33;

function goneConflict(): ConflictError {
  return new ConflictError("The platform does not know this audience any more (deleted in its own tools?); delete it here too, or create a new one.", {
    reason: "audience_gone",
  });
}

/**
 * A restricted audience refuses membership changes with subcode 1713230, and an audience deleted in the
 * platform's own tools answers 100/33 to calls on its id (`onAudience`): both are 409s the customer can
 * act on. On an account-level call 100/33 stays what it is, a problem with the ad account's access.
 */
async function platformCall<T>(deps: AdsDeps, customerId: string, action: string, call: () => Promise<T>, options: { onAudience?: boolean } = {}): Promise<T> {
  return upstream({ logger: deps.logger, customerId, action }, () =>
    call().catch((error: unknown) => {
      if (error instanceof PlatformError && error.subcode === RESTRICTED_UPLOAD_SUBCODE) throw restrictedConflict();
      if (options.onAudience && isGone(error)) throw goneConflict();
      throw error;
    }),
  );
}

async function findRow(db: Database, customerId: string, id: string): Promise<Row | undefined> {
  const [row] = await db
    .select()
    .from(adsAudiences)
    .where(and(eq(adsAudiences.customerId, customerId), eq(adsAudiences.id, id)));
  return row;
}

async function requireRow(db: Database, customerId: string, id: string): Promise<Row> {
  const row = await findRow(db, customerId, id);
  if (!row) throw new NotFoundError("Audience");
  return row;
}

const GONE: AudienceLiveRecord = {
  status: "UNAVAILABLE",
  description: "The platform does not know this audience any more (deleted in its own tools?); delete it here too.",
  lower_bound: null,
  upper_bound: null,
  operation_code: null,
  delivery_code: null,
};

async function refreshLive(deps: AdsDeps, customerId: string, session: GraphSession, row: Row): Promise<Row> {
  const live = await platformCall(deps, customerId, "read audience", () =>
    session.getCustomAudience(row.platformAudienceId).then(liveRecord, (error: unknown) => {
      if (isGone(error)) return GONE;
      throw error;
    }),
  );
  const now = deps.clock.now();
  const [updated] = await deps.db
    .update(adsAudiences)
    .set({ live, liveFetchedAt: now })
    .where(and(eq(adsAudiences.customerId, customerId), eq(adsAudiences.id, row.id)))
    .returning();
  return updated ?? row;
}

/**
 * The status read right after a create is a courtesy: the audience exists by then, so a failed read must
 * not turn the create into an error the caller would retry (making a second audience). It answers with
 * `status: null` instead; the next detail read asks again.
 */
async function firstStatus(deps: AdsDeps, customerId: string, session: GraphSession, row: Row): Promise<Row> {
  try {
    return await refreshLive(deps, customerId, session, row);
  } catch (error) {
    deps.logger.warn("status read after creating an audience failed; answered without status", {
      customer_id: customerId,
      audience_id: row.id,
      error: error instanceof Error ? error.message : String(error),
    });
    return row;
  }
}

/**
 * Sends prepared rows in sessions of at most 10,000 rows per request (`batch_seq` from 1, the last one
 * flagged), as the platform asks for large uploads. Returns the platform's counts summed over the batches.
 */
async function sendRows(deps: AdsDeps, customerId: string, session: GraphSession, platformAudienceId: string, operation: "add" | "remove", rows: string[][]) {
  let received = 0;
  let invalid = 0;
  if (rows.length === 0) return { received, invalid };
  // Only the match keys the upload uses go into the schema (an e-mail list sends `["EMAIL"]`), the same for
  // every batch of the session.
  const used = MATCH_SCHEMA.map((_, column) => rows.some((row) => row[column] !== ""));
  const schema = MATCH_SCHEMA.filter((_, column) => used[column]);
  const project = schema.length === MATCH_SCHEMA.length ? (row: string[]) => row : (row: string[]) => row.filter((_, column) => used[column]);
  // Graph's session ids are 64-bit integers; a random one within JSON's safe range cannot collide in practice.
  const sessionId = randomInt(1, 2 ** 48);
  const batches = Math.ceil(rows.length / AUDIENCE_USERS_MAX_ROWS);
  for (let index = 0; index < batches; index++) {
    const data = rows.slice(index * AUDIENCE_USERS_MAX_ROWS, (index + 1) * AUDIENCE_USERS_MAX_ROWS).map(project);
    const result = await platformCall(
      deps,
      customerId,
      operation === "add" ? "add audience contacts" : "remove audience contacts",
      () =>
        session.audienceUsers(platformAudienceId, operation, {
          schema,
          data,
          session: { session_id: sessionId, batch_seq: index + 1, last_batch_flag: index === batches - 1, estimated_num_total: rows.length },
        }),
      { onAudience: true },
    );
    received += result.num_received;
    invalid += result.num_invalid_entries;
  }
  return { received, invalid };
}

async function applyContacts(
  deps: AdsDeps,
  customerId: string,
  session: GraphSession,
  row: Row,
  operation: "add" | "remove",
  contacts: Contact[],
): Promise<ContactUploadView> {
  const prepared = prepareContacts(contacts, deps.clock.now());
  const platform = await sendRows(deps, customerId, session, row.platformAudienceId, operation, prepared.rows);
  const sent = prepared.rows.length - platform.invalid;
  const invalid = prepared.skipped.length + platform.invalid;
  await deps.db
    .update(adsAudiences)
    .set({
      ...(operation === "add"
        ? { contactsSent: sql`${adsAudiences.contactsSent} + ${sent}` }
        : { contactsRemoved: sql`${adsAudiences.contactsRemoved} + ${sent}` }),
      contactsInvalid: sql`${adsAudiences.contactsInvalid} + ${invalid}`,
      // Membership changed: the next detail read asks the platform again.
      liveFetchedAt: null,
      updatedAt: deps.clock.now(),
    })
    .where(and(eq(adsAudiences.customerId, customerId), eq(adsAudiences.id, row.id)));
  return {
    audience_id: row.id,
    operation,
    received: contacts.length,
    sent,
    invalid,
    invalid_contacts: prepared.skipped.slice(0, MAX_LISTED_INVALID),
    partial_contacts: prepared.partial.slice(0, MAX_LISTED_INVALID),
    platform_received: platform.received,
    platform_invalid: platform.invalid,
  };
}

function checkContactCount(contacts: readonly Contact[]): void {
  if (contacts.length > MAX_CONTACTS_PER_CALL) {
    throw new ValidationError(`At most ${MAX_CONTACTS_PER_CALL} contacts per call; send the rest with POST /v1/audiences/{id}/contacts.`, [
      { path: "contacts", message: `Has ${contacts.length} contacts; the limit is ${MAX_CONTACTS_PER_CALL}.` },
    ]);
  }
}

/** Records an audience just created upstream; if that fails, the platform's audience is deleted again (no orphan). */
async function recordAudience(deps: AdsDeps, session: GraphSession, values: typeof adsAudiences.$inferInsert): Promise<Row> {
  const pending = await openCompensation(deps, session, { customerId: values.customerId, kind: "audience", platformId: values.platformAudienceId });
  return compensateOnFailure(deps, session, [pending], () =>
    deps.db.transaction(async (tx) => {
      const [row] = await tx.insert(adsAudiences).values(values).returning();
      if (!row) throw new Error("audience insert returned nothing");
      await closeCompensations(tx, [pending]);
      return row;
    }),
  );
}

/**
 * Creates the audience upstream, records it, uploads the contacts and reads its status. Should the upload
 * fail, the new audience is deleted again (upstream and here), so a failed create leaves nothing behind
 * and can simply be repeated.
 */
export async function createCustomAudience(deps: AdsDeps, customerId: string, input: CreateCustomInput): Promise<AudienceView & { upload: ContactUploadView }> {
  checkContactCount(input.contacts);
  const { session, adAccountId } = await connectAdAccount(deps, customerId);
  const created = await platformCall(deps, customerId, "create custom audience", () =>
    session.createCustomAudience(adAccountId, {
      name: input.name,
      description: input.description,
      subtype: "CUSTOM",
      customer_file_source: "USER_PROVIDED_ONLY",
    }),
  );
  const now = deps.clock.now();
  const row = await recordAudience(deps, session, {
    customerId,
    type: "CUSTOM",
    name: input.name,
    description: input.description ?? null,
    platformAudienceId: created.id,
    createdAt: now,
    updatedAt: now,
  });
  let upload: ContactUploadView;
  try {
    upload = await applyContacts(deps, customerId, session, row, "add", input.contacts);
  } catch (error) {
    await session.deleteCustomAudience(created.id).catch((cleanup: unknown) => {
      deps.logger.warn("could not delete a custom audience whose first upload failed", {
        customer_id: customerId,
        platform_audience_id: created.id,
        error: cleanup instanceof Error ? cleanup.message : String(cleanup),
      });
    });
    await deps.db.delete(adsAudiences).where(eq(adsAudiences.id, row.id));
    throw error;
  }
  return { ...toAudienceView(await firstStatus(deps, customerId, session, row)), upload };
}

export async function createLookalikeAudience(deps: AdsDeps, customerId: string, input: CreateLookalikeInput): Promise<AudienceView> {
  const origin = await findRow(deps.db, customerId, input.origin_audience_id);
  if (origin?.type !== "CUSTOM") {
    throw new ValidationError("The lookalike has invalid fields; see details.", [
      { path: "origin_audience_id", message: origin ? "Must be a custom audience, not a lookalike." : "No custom audience with this id." },
    ]);
  }
  const { session, adAccountId } = await connectAdAccount(deps, customerId);
  const created = await platformCall(deps, customerId, "create lookalike audience", () =>
    session.createLookalikeAudience(adAccountId, {
      name: input.name,
      description: input.description,
      subtype: "LOOKALIKE",
      origin_audience_id: origin.platformAudienceId,
      lookalike_spec: { country: input.country, ratio: input.ratio, type: "custom_ratio" },
    }),
  );
  const now = deps.clock.now();
  const row = await recordAudience(deps, session, {
    customerId,
    type: "LOOKALIKE",
    name: input.name,
    description: input.description ?? null,
    platformAudienceId: created.id,
    originAudienceId: origin.id,
    lookalikeCountry: input.country,
    lookalikeRatioBp: Math.round(input.ratio * 10_000),
    createdAt: now,
    updatedAt: now,
  });
  return toAudienceView(await firstStatus(deps, customerId, session, row));
}

export async function listAudiences(db: Database, customerId: string, query: { type?: AudienceType; limit: number; offset: number }): Promise<AudienceView[]> {
  const rows = await db
    .select()
    .from(adsAudiences)
    .where(and(eq(adsAudiences.customerId, customerId), query.type ? eq(adsAudiences.type, query.type) : undefined))
    .orderBy(desc(adsAudiences.createdAt), desc(adsAudiences.id))
    .limit(query.limit)
    .offset(query.offset);
  return rows.map(toAudienceView);
}

/** Live from the platform unless it was asked within `LIVE_TTL_MS` (`POPULATING_TTL_MS` while populating). */
export async function getAudience(deps: AdsDeps, customerId: string, id: string): Promise<AudienceView> {
  const row = await requireRow(deps.db, customerId, id);
  const ttl = row.live?.status === "POPULATING" ? POPULATING_TTL_MS : LIVE_TTL_MS;
  if (row.liveFetchedAt && deps.clock.now().getTime() - row.liveFetchedAt.getTime() < ttl) return toAudienceView(row);
  const session = await connectCredentials(deps, customerId);
  return toAudienceView(await refreshLive(deps, customerId, session, row));
}

export async function updateAudience(deps: AdsDeps, customerId: string, id: string, input: UpdateAudienceInput): Promise<AudienceView> {
  const row = await requireRow(deps.db, customerId, id);
  if (input.name === undefined && input.description === undefined) return toAudienceView(row);
  const session = await connectCredentials(deps, customerId);
  await platformCall(
    deps,
    customerId,
    "update audience",
    () =>
      session.updateCustomAudience(row.platformAudienceId, {
        ...(input.name !== undefined && { name: input.name }),
        ...(input.description !== undefined && { description: input.description ?? "" }),
      }),
    { onAudience: true },
  );
  const [updated] = await deps.db
    .update(adsAudiences)
    .set({
      ...(input.name !== undefined && { name: input.name }),
      ...(input.description !== undefined && { description: input.description }),
      updatedAt: deps.clock.now(),
    })
    .where(and(eq(adsAudiences.customerId, customerId), eq(adsAudiences.id, id)))
    .returning();
  if (!updated) throw new NotFoundError("Audience");
  return toAudienceView(updated);
}

/**
 * Deletes upstream, then here. An audience already gone upstream (deleted in the platform's own tools:
 * Graph answers 100/33) is deleted here all the same. Lookalikes built on it stay, without an origin.
 */
export async function deleteAudience(deps: AdsDeps, customerId: string, id: string): Promise<{ id: string; deleted: true }> {
  const row = await requireRow(deps.db, customerId, id);
  const session = await connectCredentials(deps, customerId);
  await platformCall(deps, customerId, "delete audience", () =>
    session.deleteCustomAudience(row.platformAudienceId).catch((error: unknown) => {
      if (!isGone(error)) throw error;
    }),
  );
  await deps.db.delete(adsAudiences).where(and(eq(adsAudiences.customerId, customerId), eq(adsAudiences.id, id)));
  return { id, deleted: true };
}

export async function changeContacts(
  deps: AdsDeps,
  customerId: string,
  id: string,
  operation: "add" | "remove",
  contacts: Contact[],
): Promise<ContactUploadView> {
  checkContactCount(contacts);
  const row = await requireRow(deps.db, customerId, id);
  if (row.type !== "CUSTOM") {
    throw new ConflictError("Contacts can only be added to or removed from a custom audience; a lookalike follows its origin.", {
      reason: "not_a_custom_audience",
    });
  }
  const session = await connectCredentials(deps, customerId);
  try {
    return await applyContacts(deps, customerId, session, row, operation, contacts);
  } catch (error) {
    // The platform restricted the audience since we last looked: the next detail read shows it.
    if (error instanceof ConflictError)
      await deps.db
        .update(adsAudiences)
        .set({ liveFetchedAt: null })
        .where(and(eq(adsAudiences.customerId, customerId), eq(adsAudiences.id, id)));
    throw error;
  }
}
