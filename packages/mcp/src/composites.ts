import { type ApiResult, callApi, derivedIdempotencyKey, type Fetch } from "./api.js";
import type { Credential, ToolAnnotations } from "./operations.js";

/**
 * Tools for the questions one operation does not answer: a mail's story by its recipient, a test send of a
 * template with its example values, why an ad does not run. Each is built from the same HTTP operations a
 * tool of its own would call, with the same credential, so it can do nothing its credential cannot.
 */

type Context = { fetch: Fetch; baseUrl: string; token: string };
type ToolOutcome = { ok: true; text: string; data: Record<string, unknown> } | { ok: false; result: Extract<ApiResult, { ok: false }> };

export type CompositeTool = {
  name: string;
  description: string;
  inputSchema: Record<string, unknown> & { type: "object" };
  annotations: ToolAnnotations;
  run: (args: Record<string, unknown>, context: Context) => Promise<ToolOutcome>;
};

const READ_ONLY: Omit<ToolAnnotations, "title"> = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const invalid = (message: string, path: string): ToolOutcome => ({
  ok: false,
  result: { ok: false, status: 400, error: { code: "invalid_arguments", message, details: [{ path, message }] }, requestId: null },
});

type Message = {
  id: string;
  kind: string;
  mode: string;
  status: string;
  template_id: string;
  send_job_id: string | null;
  subject: string;
  error: string | null;
  bounce_type: string | null;
  created_at: string;
  events?: { type: string; at: string; details: Record<string, unknown> }[];
  timeline?: { type: string; at: string; details: Record<string, unknown> }[];
};

function eventLine(event: { type: string; at: string; details: Record<string, unknown> }): string {
  const details = Object.entries(event.details ?? {})
    .filter(([, value]) => value !== null && value !== undefined && value !== "")
    .map(([key, value]) => `${key}: ${typeof value === "object" ? JSON.stringify(value) : String(value)}`);
  return `  - ${event.at} ${event.type}${details.length > 0 ? ` (${details.join("; ")})` : ""}`;
}

function story(message: Message): string {
  const lines = [
    `Message ${message.id}: ${message.status} (${message.kind}, ${message.mode})`,
    `  subject: ${message.subject}`,
    `  template ${message.template_id}${message.send_job_id ? `, send job ${message.send_job_id}` : ", transactional"}; created ${message.created_at}`,
  ];
  if (message.error) lines.push(`  provider error: ${message.error}`);
  if (message.bounce_type) lines.push(`  bounce type: ${message.bounce_type}`);
  const events = message.timeline ?? message.events ?? [];
  lines.push(events.length > 0 ? "  events:" : "  no events recorded (history is kept 90 days)");
  lines.push(...events.map(eventLine));
  return lines.join("\n");
}

const storyInput = (operator: boolean) => ({
  type: "object" as const,
  properties: {
    ...(operator ? { customer_id: { type: "string", format: "uuid", description: "The customer whose mail to look at." } } : {}),
    recipient: { type: "string", minLength: 1, maxLength: 320, description: "The recipient's address, e.g. `anna@example.com` (matched exactly, any case)." },
    message_id: { type: "string", format: "uuid", description: "A message id, instead of a recipient." },
    limit: { type: "integer", minimum: 1, maximum: 10, default: 5, description: "How many of the newest messages to tell (default 5)." },
  },
  required: operator ? ["customer_id"] : [],
  additionalProperties: false,
});

/** "Did our mail to anna@… arrive?": the newest messages to an address (or one message), each with its events. */
function messageStory(operator: boolean): CompositeTool {
  return {
    name: "message_story",
    description: `Finds ${operator ? "a customer's" : "this account's"} messages to a recipient (newest first) or one message by id, and tells each one's story: state, template, send job, provider errors and every event (delivered, bounced with its type, opened, clicked…). Give \`recipient\` or \`message_id\`. The address itself is never returned.`,
    inputSchema: storyInput(operator),
    annotations: { title: "Find a message and tell its story", ...READ_ONLY },
    run: async (args, { fetch, baseUrl, token }) => {
      const recipient = typeof args.recipient === "string" ? args.recipient : undefined;
      const messageId = typeof args.message_id === "string" ? args.message_id : undefined;
      if (!recipient && !messageId) return invalid("Give `recipient` or `message_id`.", "recipient");
      const limit = typeof args.limit === "number" ? args.limit : 5;
      const service = operator ? "admin" : "mail";
      const base = operator ? "/v1/customers/{id}/mail/messages" : "/v1/messages";
      const pathParams = operator ? { id: args.customer_id } : {};
      let ids: string[];
      if (messageId) ids = [messageId];
      else {
        const found = await callApi(fetch, baseUrl, token, { service, method: "GET", path: base, pathParams, query: { recipient, limit } });
        if (!found.ok) return { ok: false, result: found };
        ids = ((found.body as { data: { id: string }[] }).data ?? []).map((item) => item.id);
      }
      const messages: Message[] = [];
      for (const id of ids) {
        const one = operator
          ? await callApi(fetch, baseUrl, token, { service, method: "GET", path: `${base}/{messageId}`, pathParams: { ...pathParams, messageId: id } })
          : await callApi(fetch, baseUrl, token, { service, method: "GET", path: `${base}/{id}`, pathParams: { id } });
        if (!one.ok) return { ok: false, result: one };
        messages.push((one.body as { data: Message }).data);
      }
      const text = messages.length === 0 ? `No message to ${recipient} was found${operator ? " for this customer" : ""}.` : messages.map(story).join("\n\n");
      return { ok: true, text, data: { messages } };
    },
  };
}

type Template = { id: string; name: string; status: string; kind: string; params: { name: string; required: boolean; example: string }[] };

/** "Send a test of the order confirmation to me": the template sent once to `to`, with its example values. */
const sendTemplateTest: CompositeTool = {
  name: "send_template_test",
  description:
    "Sends one transactional template to `to`, filling every parameter with the template's example value unless `params` gives it. For checking how a template looks in a real inbox. A retried call with the same arguments sends once (its Idempotency-Key is derived from them).",
  inputSchema: {
    type: "object",
    properties: {
      template_id: { type: "string", format: "uuid", description: "The template to send." },
      to: { type: "string", minLength: 3, maxLength: 320, description: "Where to send the test, e.g. `Me <me@example.com>`." },
      params: { type: "object", additionalProperties: { type: "string" }, description: "Values that replace the examples." },
    },
    required: ["template_id", "to"],
    additionalProperties: false,
  },
  annotations: { title: "Send a test of a template", readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  run: async (args, { fetch, baseUrl, token }) => {
    const template = await callApi(fetch, baseUrl, token, { service: "mail", method: "GET", path: "/v1/templates/{id}", pathParams: { id: args.template_id } });
    if (!template.ok) return { ok: false, result: template };
    const data = (template.body as { data: Template }).data;
    const given = (args.params ?? {}) as Record<string, string>;
    const params = Object.fromEntries(data.params.map((param) => [param.name, given[param.name] ?? param.example]));
    for (const [name, value] of Object.entries(given)) params[name] = value;
    const examples = data.params.filter((param) => given[param.name] === undefined).map((param) => param.name);
    const sent = await callApi(fetch, baseUrl, token, {
      service: "mail",
      method: "POST",
      path: "/v1/templates/{id}/send",
      pathParams: { id: data.id },
      body: { to: args.to, params },
      idempotencyKey: await derivedIdempotencyKey("send_template_test", args),
    });
    if (!sent.ok) return { ok: false, result: sent };
    const result = (sent.body as { data: Record<string, unknown> }).data;
    const text = [
      `Sent "${data.name}" to ${String(args.to)}: ${String(result.status ?? "accepted")} (message ${String(result.message_id ?? "")}).`,
      examples.length > 0 ? `Example values used for: ${examples.join(", ")}.` : "Every parameter was given.",
    ].join("\n");
    return { ok: true, text, data: { template: { id: data.id, name: data.name }, params, example_values_for: examples, result } };
  },
};

type Ad = { id: string; ad_set_id: string; name: string; status: string; effective_status: string; disapproval_reason: string | null };
type AdSet = { id: string; name: string; status: string; effective_status: string; start_time: string | null; end_time: string | null; target: string };

/** Every item of a list that pages with `limit`/`offset`, up to `cap` items, or the first error. */
async function findInList<T extends { id: string }>(context: Context, path: string, id: string, cap = 5_000): Promise<T | null | ApiResult> {
  for (let offset = 0; offset < cap; offset += 100) {
    const page = await callApi(context.fetch, context.baseUrl, context.token, { service: "ads", method: "GET", path, query: { limit: 100, offset } });
    if (!page.ok) return page;
    const items = (page.body as { data: T[] }).data ?? [];
    const found = items.find((item) => item.id === id);
    if (found) return found;
    if (items.length < 100) return null;
  }
  return null;
}

/** "Why is the spring campaign's ad not running?": the ad's live status, its own and its ad set's settings, and what they mean. */
const whyIsAdNotRunning: CompositeTool = {
  name: "why_is_ad_not_running",
  description:
    "Explains whether an ad delivers and, if not, why: its live status from the platform (review, disapproval with the policy's feedback), its own configured status, its ad set's status and schedule, and the campaign (target). Reads only.",
  inputSchema: {
    type: "object",
    properties: { ad_id: { type: "string", format: "uuid", description: "The ad's id." } },
    required: ["ad_id"],
    additionalProperties: false,
  },
  annotations: { title: "Why is an ad not running", ...READ_ONLY, openWorldHint: true },
  run: async (args, context) => {
    const adId = String(args.ad_id);
    const live = await callApi(context.fetch, context.baseUrl, context.token, {
      service: "ads",
      method: "GET",
      path: "/v1/status/{ad_id}",
      pathParams: { ad_id: adId },
    });
    if (!live.ok) return { ok: false, result: live };
    const status = (live.body as { data: { status: string; effective_status: string; disapproval_reason: string | null; checked_at: string } }).data;
    const ad = await findInList<Ad>(context, "/v1/ads", adId);
    if (ad && "ok" in ad) return { ok: false, result: ad as Extract<ApiResult, { ok: false }> };
    const adSet = ad ? await findInList<AdSet>(context, "/v1/adsets", (ad as Ad).ad_set_id) : null;
    if (adSet && "ok" in adSet) return { ok: false, result: adSet as Extract<ApiResult, { ok: false }> };
    const set = adSet as AdSet | null;
    const reasons: string[] = [];
    const now = Date.now();
    if (status.status === "ARCHIVED") reasons.push("The ad is archived; archived ads never deliver again.");
    else if (status.status === "PAUSED") reasons.push("The ad is paused (its own status): set it to ACTIVE with update_ad.");
    if (status.effective_status === "DISAPPROVED")
      reasons.push(`The platform's review disapproved it: ${status.disapproval_reason ?? "no feedback given"}. Change the creative and submit again.`);
    if (status.effective_status === "PENDING_REVIEW" || status.effective_status === "IN_PROCESS")
      reasons.push("The platform is still reviewing it (usually within 24 hours).");
    if (set) {
      if (set.status === "PAUSED" || status.effective_status === "ADSET_PAUSED") reasons.push(`Its ad set "${set.name}" is paused.`);
      if (set.status === "ARCHIVED") reasons.push(`Its ad set "${set.name}" is archived.`);
      if (set.effective_status === "CAMPAIGN_PAUSED" || status.effective_status === "CAMPAIGN_PAUSED")
        reasons.push(`Its campaign (target "${set.target}") is paused by an operator.`);
      if (set.start_time && Date.parse(set.start_time) > now) reasons.push(`Its ad set starts only at ${set.start_time}.`);
      if (set.end_time && Date.parse(set.end_time) <= now) reasons.push(`Its ad set ended at ${set.end_time}.`);
    }
    const running = status.effective_status === "ACTIVE" && reasons.length === 0;
    if (!running && reasons.length === 0) reasons.push(`The platform reports the delivery status ${status.effective_status}.`);
    const text = [
      running
        ? `The ad is running (ACTIVE, checked ${status.checked_at}).`
        : `The ad is not running (${status.effective_status}, checked ${status.checked_at}):`,
      ...reasons.map((reason) => `- ${reason}`),
    ].join("\n");
    return { ok: true, text, data: { running, reasons, live_status: status, ad, ad_set: set } };
  },
};

/** The composite tools `credential` may use: only where every operation they call is allowed to it. */
export function compositeTools(credential: Credential): CompositeTool[] {
  if (credential.kind === "operator") return [messageStory(true)];
  if (credential.service === "mail") return credential.scope === "full" ? [messageStory(false), sendTemplateTest] : [messageStory(false)];
  return [whyIsAdNotRunning];
}
