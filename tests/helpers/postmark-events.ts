import { and, eq } from "drizzle-orm";
import { mailMessages, mailTemplates } from "../../lib/db/schema";
import { createPostmarkProvider } from "../../lib/mail/provider/postmark";
import { DEMO_TRANSACTIONAL_TEMPLATE } from "../../lib/mail/seed";
import type { IngestResult } from "../../lib/mail/events/ingest";
import { describeResponse, type Envelope, type Harness, type Mail, type Admin } from "./harness";
import type { readyMailCustomer } from "./mail";

/**
 * Postmark webhook bodies as Postmark documents them (field names and casing of the webhook pages,
 * PROVIDER-FACTS P3–P10), for posting straight to our receiver. Timestamps are strings as Postmark writes
 * them; tests pass 7-digit fractions and offsets on purpose.
 */
type Meta = { message_id?: string } & Record<string, unknown>;

/** The fields Bounce and SpamComplaint share (P4). */
function bounceFields(metadata: Meta, options: { at: string; id: number; stream?: string; email?: string }) {
  return {
    ID: options.id,
    Tag: "Test",
    MessageID: "883953f4-6105-42a2-a16a-77a8eac79483",
    ServerID: 23,
    MessageStream: options.stream ?? "outbound",
    Details: "Test details",
    Email: options.email ?? "john@example.com",
    From: "sender@example.com",
    BouncedAt: options.at,
    DumpAvailable: true,
    Subject: "Test subject",
    Content: "Test content",
    Metadata: metadata,
  };
}

export const postmarkEvent = {
  delivery: (metadata: Meta, at: string, stream = "outbound", recipient = "jane@example.com") => ({
    RecordType: "Delivery",
    ServerID: 23,
    MessageStream: stream,
    MessageID: "883953f4-6105-42a2-a16a-77a8eac79483",
    Recipient: recipient,
    Tag: "welcome-email",
    DeliveredAt: at,
    Details: "Test delivery webhook details",
    Metadata: metadata,
  }),
  bounce: (metadata: Meta, options: { at: string; type?: string; typeCode?: number; inactive?: boolean; id?: number; stream?: string; email?: string }) => ({
    RecordType: "Bounce",
    // biome-ignore lint/correctness/noPrecisionLoss: Postmark's documented example id, beyond 2^53 like real ones; JSON readers see it rounded too.
    ...bounceFields(metadata, { ...options, id: options.id ?? 4323372036854775807 }),
    Type: options.type ?? "HardBounce",
    TypeCode: options.typeCode ?? 1,
    Name: "Hard bounce",
    Description: "The server was unable to deliver your message (ex: unknown user, mailbox not found).",
    Inactive: options.inactive ?? true,
    CanActivate: true,
  }),
  complaint: (metadata: Meta, options: { at: string; id?: number; stream?: string; email?: string }) => ({
    RecordType: "SpamComplaint",
    ...bounceFields(metadata, { ...options, id: options.id ?? 42 }),
    Type: "SpamComplaint",
    // Postmark's own webhook example sends 512 here (P6); receivers must not rely on it.
    TypeCode: 512,
    Name: "Spam complaint",
    Description: "",
    Inactive: true,
    CanActivate: false,
  }),
  open: (metadata: Meta, options: { at: string; firstOpen?: boolean; stream?: string }) => ({
    RecordType: "Open",
    MessageStream: options.stream ?? "broadcast",
    Metadata: metadata,
    FirstOpen: options.firstOpen ?? true,
    Client: { Name: "Chrome 35.0.1916.153", Company: "Google", Family: "Chrome" },
    OS: { Name: "OS X 10.7 Lion", Company: "Apple Computer, Inc.", Family: "OS X 10" },
    Platform: "WebMail",
    UserAgent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_7_5)",
    ReadSeconds: 5,
    Geo: {
      CountryISOCode: "RS",
      Country: "Serbia",
      RegionISOCode: "VO",
      Region: "Autonomna Pokrajina Vojvodina",
      City: "Novi Sad",
      Zip: "21000",
      Coords: "45.2517,19.8369",
      IP: "188.2.95.4",
    },
    MessageID: "883953f4-6105-42a2-a16a-77a8eac79483",
    ReceivedAt: options.at,
    Tag: "welcome-email",
    Recipient: "john@example.com",
  }),
  click: (metadata: Meta, options: { at: string; url?: string; stream?: string }) => ({
    RecordType: "Click",
    MessageStream: options.stream ?? "broadcast",
    ClickLocation: "HTML",
    Client: { Name: "Chrome 35.0.1916.153", Company: "Google", Family: "Chrome" },
    OS: { Name: "OS X 10.7 Lion", Company: "Apple Computer, Inc.", Family: "OS X 10" },
    Platform: "Desktop",
    UserAgent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_7_5)",
    OriginalLink: options.url ?? "https://example.com",
    Geo: {
      CountryISOCode: "RS",
      Country: "Serbia",
      RegionISOCode: "VO",
      Region: "Autonomna Pokrajina Vojvodina",
      City: "Novi Sad",
      Zip: "21000",
      Coords: "45.2517,19.8369",
      IP: "8.8.8.8",
    },
    MessageID: "00000000-0000-0000-0000-000000000000",
    Metadata: metadata,
    ReceivedAt: options.at,
    Tag: "welcome-email",
    Recipient: "john@example.com",
  }),
  subscriptionChange: (options: {
    metadata?: Meta;
    at: string;
    suppress: boolean;
    reason?: "HardBounce" | "SpamComplaint" | "ManualSuppression" | null;
    origin?: "Recipient" | "Customer" | "Admin";
    stream?: string;
    recipient?: string;
    messageId?: string | null;
  }) => ({
    RecordType: "SubscriptionChange",
    MessageID: options.messageId === undefined ? "883953f4-6105-42a2-a16a-77a8eac79483" : options.messageId,
    ServerID: 123456,
    MessageStream: options.stream ?? "broadcast",
    ChangedAt: options.at,
    Recipient: options.recipient ?? "bounced-address@wildbit.com",
    Origin: options.origin ?? "Recipient",
    SuppressSending: options.suppress,
    // P7: a reactivation has null reason and tag and `{}` metadata.
    SuppressionReason: options.suppress ? (options.reason ?? "ManualSuppression") : null,
    Tag: options.suppress ? "my-tag" : null,
    Metadata: options.metadata ?? {},
  }),
};

/** The customer's webhook credentials as an admin reveals them, as an `Authorization` header. */
export async function webhookAuthorization(h: Harness, customerId: string): Promise<string> {
  const r = await h.admin<Admin["revealCustomerPostmarkWebhook"]>("POST", `/v1/customers/${customerId}/mail/postmark-webhook/reveal`);
  if (r.status !== 200) throw new Error(describeResponse(r));
  return `Basic ${Buffer.from(`${r.json.data.username}:${r.json.data.password}`).toString("base64")}`;
}

/**
 * Posts one body to a customer's receiver URL with that customer's credentials (or the given
 * Authorization), as Postmark would. The customer defaults to the owner of `Metadata.message_id`.
 */
export async function postEvent<T = Envelope<IngestResult>>(
  h: Harness,
  body: unknown,
  options: { customerId?: string; authorization?: string | null; headers?: Record<string, string>; raw?: string | Uint8Array<ArrayBuffer> } = {},
) {
  let customerId = options.customerId;
  if (!customerId) {
    const messageId = (body as { Metadata?: { message_id?: unknown } } | null)?.Metadata?.message_id;
    const [message] =
      typeof messageId === "string" ? await h.db.select({ customerId: mailMessages.customerId }).from(mailMessages).where(eq(mailMessages.id, messageId)) : [];
    if (!message) throw new Error("postEvent: pass customerId for an event without a known Metadata.message_id");
    customerId = message.customerId;
  }
  const authorization = options.authorization === undefined ? await webhookAuthorization(h, customerId) : options.authorization;
  const headers: Record<string, string> = { "content-type": "application/json", ...options.headers };
  if (authorization) headers.authorization = authorization;
  const path = `/api/postmark/webhook/${customerId}`;
  return options.raw !== undefined ? h.call<T>("POST", path, { rawBody: options.raw, headers }) : h.call<T>("POST", path, { body, headers });
}

type MailCustomer = Awaited<ReturnType<typeof readyMailCustomer>>;

/** A transactional message accepted by the simulator, through the real send endpoint. */
export async function sendTransactional(h: Harness, c: MailCustomer, to = "jane@example.com"): Promise<string> {
  const [template] = await h.db
    .select()
    .from(mailTemplates)
    .where(and(eq(mailTemplates.customerId, c.id), eq(mailTemplates.name, DEMO_TRANSACTIONAL_TEMPLATE)));
  if (!template) throw new Error("no seeded template");
  const r = await h.call<Mail["sendTemplate"]>("POST", `/mail/v1/templates/${template.id}/send`, {
    key: c.mailFull,
    body: { to, params: { order_number: "A-1", order_url: "https://shop.example.com/o/A-1" } },
  });
  if (r.status !== 200) throw new Error(describeResponse(r));
  return r.json.data.message_id as string;
}

/**
 * A newsletter message as the send-job worker leaves it (a factory: jobs are another resource), in
 * `accepted` unless told otherwise.
 */
export async function newsletterMessage(h: Harness, customerId: string, status: "accepted" | "unknown" | "sending" = "accepted"): Promise<string> {
  const now = h.clock.now();
  const [row] = await h.db
    .insert(mailMessages)
    .values({
      customerId,
      kind: "newsletter",
      mode: "live",
      status,
      templateId: crypto.randomUUID(),
      sendJobId: crypto.randomUUID(),
      subject: "Spring news",
      recipientHash: "0".repeat(64),
      createdAt: now,
      acceptedAt: status === "accepted" ? now : null,
    })
    .returning({ id: mailMessages.id });
  if (!row) throw new Error("message insert returned nothing");
  return row.id;
}

/**
 * A newsletter as the send-job worker sends it: our message row, then Postmark (the simulator) on the
 * customer's broadcast stream with our id in Metadata. Returns both ids; the provider id drives the
 * simulator's reader actions (open, click, unsubscribe, complain).
 */
export async function newsletterThroughSimulator(h: Harness, c: MailCustomer, to: string): Promise<{ messageId: string; providerMessageId: string }> {
  const messageId = await newsletterMessage(h, c.id, "sending");
  const outcome = await createPostmarkProvider({ apiUrl: h.deps.providers.postmarkApiUrl }).send(c.serverToken, {
    From: "Demo GmbH <news@demo.example.com>",
    To: to,
    Subject: "Spring news",
    HtmlBody: "<p>Spring news</p>",
    MessageStream: "broadcast",
    Metadata: { message_id: messageId },
  });
  if (outcome.kind !== "accepted") throw new Error(`newsletter not accepted: ${JSON.stringify(outcome)}`);
  await h.db
    .update(mailMessages)
    .set({ status: "accepted", acceptedAt: h.clock.now(), providerMessageId: outcome.providerMessageId })
    .where(eq(mailMessages.id, messageId));
  return { messageId, providerMessageId: outcome.providerMessageId };
}
