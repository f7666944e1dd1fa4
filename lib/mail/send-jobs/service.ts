import { listBulkRequests } from "./bulk-requests";
import type { z } from "@hono/zod-openapi";
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { mailMessages, mailSendJobs, unfinishedSendJobStatuses, type SendJobRender } from "../../db/schema";
import type { Principal } from "../../core/context";
import { ConflictError, NotFoundError, ValidationError, type PathDetail } from "../../core/errors";
import { beforeCursor, toPage, type Cursor } from "../../core/pagination";
import type { MailDeps } from "../deps";
import { assertContract } from "../render";
import { parseTemplate, TemplateSyntaxError, type TemplateNode } from "../render/syntax";
import { renderForCustomer } from "../render/customer";
import { parseRecipient } from "../sending/address";
import { getProviderConfig, notReadyError, providerReadiness, senderIsVerified } from "../setup/provider-config";
import type { CreateSendJob, SendJobDetail as SendJobDetailSchema } from "./schema";
import { getTemplateRow, type TemplateRow } from "../templates/service";
import { assertSendQuota, OPEN_JOB_STATUSES } from "../usage/quota";
import { CANCELLED, publishLanes, publishScheduledStart, releaseUnsent } from "./transitions";
import { timeOrderedUuid } from "./ids";
import { defaultJobName, getSendJobRow, ownJob, toSendJobView, type SendJob, type SendJobRow, type SendJobStatus } from "./model";
import { jobStats, jobTimeline } from "./statistics";
import { forgetAddressSet } from "./recipients";

/** Newest first; the cursor is (created_at, id) of the last item. */
export async function listSendJobs(db: Database, customerId: string, input: { status?: SendJobStatus; limit: number; after: Cursor | null }) {
  const after = beforeCursor(mailSendJobs.createdAt, mailSendJobs.id, input.after);
  const rows = await db
    .select()
    .from(mailSendJobs)
    .where(and(eq(mailSendJobs.customerId, customerId), input.status ? eq(mailSendJobs.status, input.status) : undefined, after))
    .orderBy(desc(mailSendJobs.createdAt), desc(mailSendJobs.id))
    .limit(input.limit + 1);
  return toPage(rows.map(toSendJobView), input.limit, (job) => ({ at: job.created_at, id: job.id }));
}

/** A template a job may still send from (started, scheduled or paused) cannot be deleted. */
export async function templateInUse(db: Database, customerId: string, templateId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: mailSendJobs.id })
    .from(mailSendJobs)
    .where(and(eq(mailSendJobs.customerId, customerId), eq(mailSendJobs.templateId, templateId), inArray(mailSendJobs.status, unfinishedSendJobStatuses)))
    .limit(1);
  return Boolean(row);
}

export type CreateSendJobInput = z.infer<typeof CreateSendJob>;

function sendableTemplate(template: TemplateRow): TemplateRow {
  if (template.status !== "active") {
    throw new ValidationError(`The template is ${template.status}; only active templates can be sent.`, [
      { path: "template_id", message: "Template is not active." },
    ]);
  }
  if (template.kind !== "newsletter") {
    throw new ValidationError("Transactional templates are sent one by one with POST /v1/templates/{id}/send.", [
      { path: "template_id", message: "Template is not a newsletter." },
    ]);
  }
  return template;
}

function subjectNames(nodes: readonly TemplateNode[], names: Set<string>): Set<string> {
  for (const node of nodes) {
    if (typeof node === "string" || node.kind === "verbatim") continue;
    names.add(node.name);
    if (node.kind === "section") subjectNames(node.children, names);
  }
  return names;
}

/**
 * Phase 1 of a job's template, without the job's params: they are defaults that recipient data overrides
 * in phase 2, so they must not be baked into the HTML.
 */
async function renderJobTemplate(db: Database, principal: Principal, template: TemplateRow): Promise<SendJobRender> {
  const rendered = await renderForCustomer(
    db,
    { id: principal.customerId, name: principal.customerName },
    { kind: "newsletter", stack: template.blocks ?? [], values: template.values },
  );
  return { html: rendered.compiled, values: template.values, templateVersion: template.version };
}

/**
 * Params must be names the template knows: its contract, the placeholders its HTML leaves to phase 2 and
 * those of its subject. Their values are then rendered once, as a recipient without data would get them,
 * so a bad value (a `javascript:` URL) is a 422 now rather than `about:blank` in every mail.
 */
async function checkParams(db: Database, principal: Principal, template: TemplateRow, params: Record<string, string>): Promise<void> {
  const render = await renderJobTemplate(db, principal, template);
  let subject = new Set<string>();
  try {
    subject = subjectNames(parseTemplate(template.subject), subject);
  } catch (error) {
    if (!(error instanceof TemplateSyntaxError)) throw error;
  }
  const known = new Set([...template.params.map((p) => p.name), ...render.html.placeholders, ...subject]);
  const unknown = Object.keys(params).filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new ValidationError(
      `Unknown template parameters; this template knows ${[...known].sort().join(", ") || "none"}.`,
      unknown.map((name): PathDetail => ({ path: `params.${name}`, message: "Not a parameter of this template." })),
    );
  }
  assertContract(template.params, params);
  await renderForCustomer(
    db,
    { id: principal.customerId, name: principal.customerName },
    { kind: "newsletter", stack: template.blocks ?? [], values: template.values, params },
  );
}

function plainAddress(value: string, path: string): string {
  const parsed = parseRecipient(value);
  if (!parsed || parsed.name !== null || parsed.address !== value.trim()) {
    throw new ValidationError(`\`${path}\` must be a plain e-mail address.`, [{ path, message: "Not a valid e-mail address." }]);
  }
  return parsed.address;
}

export async function createSendJob(deps: MailDeps, principal: Principal, input: CreateSendJobInput): Promise<SendJob> {
  const { db } = deps;
  const customerId = principal.customerId;
  const template = sendableTemplate(await getTemplateRow(db, customerId, input.template_id));
  const params = input.params ?? {};
  await checkParams(db, principal, template, params);

  const provider = await getProviderConfig(db, customerId);
  const fallback = template.from ?? provider.default_newsletter_from;
  let from: { email: string; name: string };
  if (input.from) {
    const email = plainAddress(input.from.email, "from.email");
    if (!senderIsVerified(email, { verifiedSenders: provider.verified_senders, verifiedDomains: provider.verified_domains })) {
      throw new ValidationError(
        "`from.email` must be on one of the account's verified domains (only the part before @ may change) or a verified sender address.",
        [{ path: "from.email", message: "Not on a verified domain." }],
      );
    }
    from = { email, name: input.from.name ?? fallback?.name ?? "" };
  } else {
    if (!fallback)
      throw new ValidationError("No default newsletter sender is configured for this account; pass `from`.", [
        { path: "from", message: "Required: no default sender." },
      ]);
    from = fallback;
  }
  const replyTo = input.reply_to ? plainAddress(input.reply_to, "reply_to") : null;

  const [row] = await db
    .insert(mailSendJobs)
    .values({
      // Time-ordered, so jobs created within one millisecond still list newest first.
      id: timeOrderedUuid(),
      customerId,
      name: input.name ?? defaultJobName(template.name, deps.clock.now()),
      mode: principal.mail?.mode ?? "live",
      templateId: template.id,
      params,
      from,
      replyTo,
      scheduledAt: input.scheduled_at ? new Date(input.scheduled_at) : null,
      subject: template.subject,
      createdAt: deps.clock.now(),
      updatedAt: deps.clock.now(),
    })
    .returning();
  if (!row) throw new Error("send job insert returned nothing");
  return toSendJobView(row);
}

function notStartable(job: SendJobRow): ConflictError {
  switch (job.status) {
    case "scheduled":
      return new ConflictError(`The job is already scheduled for ${job.scheduledAt?.toISOString() ?? "later"}; cancel it to stop it.`, {
        reason: "already_scheduled",
        status: job.status,
      });
    case "running":
      return new ConflictError("The job is already running.", { reason: "already_running", status: job.status });
    default:
      return new ConflictError(`The job is ${job.status}; a finished job cannot be started again. Create a new job.`, {
        reason: "job_finished",
        status: job.status,
      });
  }
}

/**
 * draft → running (no or a past `scheduled_at`) or scheduled; paused → running (resume). Everything that
 * can refuse comes before the state changes: readiness (403), the template and its rendering (422),
 * quotas (429). The render is stored with the job; batches only personalise it.
 */
export async function startSendJob(deps: MailDeps, principal: Principal, id: string): Promise<SendJob> {
  const { db, clock } = deps;
  const customerId = principal.customerId;
  const job = await getSendJobRow(db, customerId, id);
  if (job.status !== "draft" && job.status !== "paused") throw notStartable(job);
  if (job.pauseReason === "bounce_rate" || job.pauseReason === "complaint_rate") {
    // The reputation guard protects the account every customer sends through: only an operator resumes.
    throw new ConflictError(
      `The job was paused because its ${job.pauseReason === "bounce_rate" ? "hard-bounce" : "spam-complaint"} rate passed the threshold; an operator of the service must review and resume it (or cancel it).`,
      { reason: "paused_by_reputation_guard", pause_reason: job.pauseReason },
    );
  }
  if (job.status === "draft" && job.total === 0) {
    throw new ConflictError("The job has no recipients; add them with POST /v1/send-jobs/{id}/recipients first.", { reason: "no_recipients" });
  }
  const readiness = await providerReadiness(db, deps.secrets, customerId);
  if (!readiness.ready) throw notReadyError(readiness.missing);
  const mode = job.status === "draft" ? (principal.mail?.mode ?? job.mode) : job.mode;
  const limits = { monthlyLimit: principal.mail?.monthlyLimit ?? 0, maxPerJob: principal.mail?.maxPerJob ?? 0 };
  const now = clock.now();

  if (job.status === "paused") {
    // The job's own pending recipients are part of the reservation already.
    await assertSendQuota(db, { customerId, mode, jobPending: job.pending, limits, now });
    const [resumed] = await db
      .update(mailSendJobs)
      .set({ status: "running", pauseReason: null, run: sql`${mailSendJobs.run} + 1`, lastProgressAt: now, updatedAt: now })
      .where(and(ownJob(customerId, id), eq(mailSendJobs.status, "paused")))
      .returning();
    if (!resumed) throw notStartable(await getSendJobRow(db, customerId, id));
    await publishLanes(deps, resumed);
    return toSendJobView(resumed);
  }

  let template: TemplateRow;
  try {
    template = sendableTemplate(await getTemplateRow(db, customerId, job.templateId));
  } catch (error) {
    if (error instanceof NotFoundError)
      throw new ValidationError("The job's template was deleted.", [{ path: "template_id", message: "Template no longer exists." }]);
    throw error;
  }
  assertContract(template.params, job.params);
  const render = await renderJobTemplate(db, principal, template);
  await assertSendQuota(db, { customerId, mode, jobPending: job.pending, limits, now });

  const scheduled = job.scheduledAt !== null && job.scheduledAt.getTime() > now.getTime();
  const started = await db.transaction(async (tx) => {
    const [row] = await tx
      .update(mailSendJobs)
      .set({
        status: scheduled ? "scheduled" : "running",
        mode,
        compiled: render,
        subject: template.subject,
        ...(scheduled ? {} : { run: sql`${mailSendJobs.run} + 1`, startedAt: now }),
        lastProgressAt: now,
        updatedAt: now,
      })
      .where(and(ownJob(customerId, id), eq(mailSendJobs.status, "draft")))
      .returning();
    // A sandbox switch between create and start: the messages follow the job.
    if (row && mode !== job.mode) await tx.update(mailMessages).set({ mode }).where(eq(mailMessages.sendJobId, id));
    return row;
  });
  if (!started) throw notStartable(await getSendJobRow(db, customerId, id));
  // No adds after this: the job's duplicate set (32 MB for a million recipients) is not kept through the send.
  forgetAddressSet(deps.caches, id);
  if (scheduled) await publishScheduledStart(deps, started);
  else await publishLanes(deps, started);
  return toSendJobView(started);
}

/**
 * draft|scheduled|running|paused → cancelled. Recipients not yet handed to the provider end `failed`
 * with error `cancelled`; a batch already in flight is recorded as it comes back. Addresses are deleted.
 */
export async function cancelSendJob(deps: MailDeps, customerId: string, id: string): Promise<SendJob> {
  const now = deps.clock.now();
  const cancelled = await deps.db.transaction(async (tx) => {
    const [locked] = await tx
      .update(mailSendJobs)
      .set({ status: "cancelled", pauseReason: null, completedAt: now, updatedAt: now })
      .where(and(ownJob(customerId, id), inArray(mailSendJobs.status, [...OPEN_JOB_STATUSES])))
      .returning({ id: mailSendJobs.id });
    if (!locked) return null;
    return releaseUnsent(tx, id, CANCELLED);
  });
  if (!cancelled) {
    const job = await getSendJobRow(deps.db, customerId, id);
    throw new ConflictError(`The job is already ${job.status}; only draft, scheduled, running or paused jobs can be cancelled.`, {
      reason: "job_finished",
      status: job.status,
    });
  }
  return toSendJobView(cancelled);
}

export type SendJobDetail = z.infer<typeof SendJobDetailSchema>;

export async function getSendJobDetail(db: Database, customerId: string, id: string): Promise<SendJobDetail> {
  const row = await getSendJobRow(db, customerId, id);
  const job = toSendJobView(row);
  if (row.status === "draft") {
    return {
      ...job,
      bulk_requests: [],
      stats: { delivered: 0, bounces: 0, complaints: 0, opens: 0, unique_opens: 0, clicks: 0, unique_clicks: 0 },
      timeline: [],
    };
  }
  return { ...job, bulk_requests: await listBulkRequests(db, id), stats: await jobStats(db, customerId, id), timeline: await jobTimeline(db, customerId, id) };
}
