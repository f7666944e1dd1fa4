import type { WebhookTarget } from "./webhook-dispatcher";
import type { DeliveryType, Metadata, StreamType, Suppression, SuppressionOrigin, SuppressionReason } from "./postmark-shapes";
import type { ValidatedMessage } from "./outbound";
import type { TestOutcome } from "./test-addresses";
import { displayNames, parseAddressList } from "./addresses";

export type SimulatorStream = { id: string; type: StreamType };

export type SimulatorServer = {
  id: number;
  token: string;
  name: string;
  deliveryType: DeliveryType;
  streams: Map<string, SimulatorStream>;
  /** Where this server's events go (Postmark configures webhooks per server); unset = the simulator's default. */
  webhook?: WebhookTarget | null;
};

/**
 * What the simulator keeps for every accepted message, kept small on purpose: 100,000 of these must fit
 * comfortably. Bodies live in `SimulatorStore.#bodies`, bounded separately.
 */
export type StoredMessage = Pick<ValidatedMessage, "from" | "to" | "cc" | "bcc" | "subject" | "tag" | "metadata" | "trackOpens" | "trackLinks"> & {
  id: string;
  server: SimulatorServer;
  stream: SimulatorStream;
  /** Bare addresses that were accepted (inactive ones of a partial 406 are left out). */
  recipients: string[];
  receivedAtMs: number;
  /** True once Delivery/Bounce outcomes ran; a reader's action first settles a message still in flight. */
  settled: boolean;
  /** Aligned with `recipients`; only present when a recipient is a test address. */
  testOutcomes?: (TestOutcome | null)[];
  /** Lower-cased recipients that opened; drives `FirstOpen`. */
  opened?: Set<string>;
  /** `recipient\nurl` pairs already clicked: Postmark posts one Click per unique link per recipient (P10). */
  clicked?: Set<string>;
};

/** A message's bodies and the headers it went out with (kept for the latest `maxStoredMessages` only). */
export type MessageBodies = { HtmlBody: string | null; TextBody: string | null; Headers?: { Name: string; Value: string }[] };

/** The control API's view of a message (Postmark casing, like the Messages API). */
export type SimulatedMessage = {
  MessageID: string;
  ServerID: number;
  MessageStream: string;
  From: string;
  To: string;
  Cc: string;
  Bcc: string;
  Recipients: string[];
  Subject: string;
  Tag: string;
  Metadata: Metadata;
  ReceivedAt: string;
  Sandboxed: boolean;
  /** Null once the body was evicted (only the latest `maxStoredMessages` bodies are kept). */
  HtmlBody: string | null;
};

/**
 * `Headers`: the message's headers as delivered: the caller's custom headers, plus on a broadcast stream the
 * `List-Unsubscribe` / `List-Unsubscribe-Post` pair Postmark adds itself (docs/provider-facts.md,
 * "One-click unsubscribe"); empty once evicted with the bodies.
 */
export type SimulatedMessageDetail = SimulatedMessage & { TextBody: string | null; Headers: { Name: string; Value: string }[] };

export type MessageFilter = {
  to?: string;
  stream?: string;
  tag?: string;
  serverId?: number;
  metadataKey?: string;
  metadataValue?: string;
  limit?: number;
  offset?: number;
};

/** A search of the Messages API (`GET /messages/outbound`): Postmark's filters, as the simulator applies them. */
export type OutboundSearch = {
  serverId: number;
  count: number;
  offset: number;
  recipient?: string;
  tag?: string;
  stream?: string;
  fromEmail?: string;
  subject?: string;
  /** At most one `metadata_<key>=<value>` pair per search, as Postmark allows. */
  metadata?: { key: string; value: string };
  /** Messages received after this instant are not visible yet (the search index lags behind the send). */
  visibleBeforeMs: number;
};

/** One message as the Messages API lists it (postmark.js `OutboundMessage`). */
export type OutboundMessageView = {
  Tag: string;
  MessageID: string;
  MessageStream: string;
  To: { Email: string; Name: string | null }[];
  Cc: { Email: string; Name: string | null }[];
  Bcc: { Email: string; Name: string | null }[];
  Recipients: string[];
  ReceivedAt: string;
  From: string;
  Subject: string;
  Attachments: string[];
  Status: "Sent";
  TrackOpens: boolean;
  TrackLinks: string;
  Metadata: Metadata;
  Sandboxed: boolean;
};

export const METADATA_MESSAGE_ID_KEY = "message_id";
const DEFAULT_LIST_LIMIT = 100;
const MAX_LIST_LIMIT = 1000;

function suppressionKey(server: SimulatorServer, stream: SimulatorStream): string {
  return `${server.id}/${stream.id}`;
}

/** Spam complaints outrank every other reason: they can never be lifted (P6). */
function outranks(next: SuppressionReason, current: SuppressionReason): boolean {
  return next === "SpamComplaint" && current !== "SpamComplaint";
}

/** All state of one simulator: messages, bounded bodies, per-stream suppressions and counters. */
export class SimulatorStore {
  /** In arrival order (a Map iterates in insertion order), the latest `#maxMessages`. */
  #messages = new Map<string, StoredMessage>();
  #maxMessages: number;
  #bodies = new Map<string, MessageBodies>();
  #maxBodies: number;
  #suppressions = new Map<string, Map<string, Suppression>>();
  #metadataIdCounts = new Map<string, number>();
  #duplicates = new Map<string, number>();
  received = 0;
  rejected = 0;
  apiTest = 0;

  constructor(maxStoredMessages: number, maxTrackedMessages: number) {
    this.#maxBodies = maxStoredMessages;
    this.#maxMessages = Math.max(maxTrackedMessages, maxStoredMessages, 1);
  }

  record(message: StoredMessage, bodies: MessageBodies): void {
    this.#messages.set(message.id, message);
    // The oldest message is forgotten (a message still in flight keeps its delivery: its timer holds it).
    if (this.#messages.size > this.#maxMessages) this.#messages.delete(this.#messages.keys().next().value as string);
    this.received += 1;
    if (this.#maxBodies > 0) {
      this.#bodies.set(message.id, bodies);
      // Maps iterate in insertion order, so the first key is the oldest body.
      if (this.#bodies.size > this.#maxBodies) this.#bodies.delete(this.#bodies.keys().next().value as string);
    }
    const metadataId = message.metadata[METADATA_MESSAGE_ID_KEY];
    if (typeof metadataId === "string") {
      const count = (this.#metadataIdCounts.get(metadataId) ?? 0) + 1;
      this.#metadataIdCounts.set(metadataId, count);
      if (count > 1) this.#duplicates.set(metadataId, count);
    }
  }

  /** The kept messages, oldest first (for the journal's rewrite). */
  kept(): StoredMessage[] {
    return [...this.#messages.values()];
  }

  get(id: string): StoredMessage | undefined {
    return this.#messages.get(id);
  }

  /** How many accepted messages carried `Metadata.message_id === id`; exactly-once tests expect 1. */
  metadataMessageIdCount(id: string): number {
    return this.#metadataIdCounts.get(id) ?? 0;
  }

  duplicatesByMetadataMessageId(): Record<string, number> {
    return Object.fromEntries(this.#duplicates);
  }

  view(message: StoredMessage): SimulatedMessageDetail {
    const bodies = this.#bodies.get(message.id);
    return {
      MessageID: message.id,
      ServerID: message.server.id,
      MessageStream: message.stream.id,
      From: message.from,
      To: message.to,
      Cc: message.cc,
      Bcc: message.bcc,
      Recipients: message.recipients,
      Subject: message.subject,
      Tag: message.tag,
      Metadata: message.metadata,
      ReceivedAt: new Date(message.receivedAtMs).toISOString(),
      Sandboxed: message.server.deliveryType === "Sandbox",
      HtmlBody: bodies?.HtmlBody ?? null,
      TextBody: bodies?.TextBody ?? null,
      Headers: bodies?.Headers ?? [],
    };
  }

  /** Newest first, like Postmark's Messages API. */
  list(filter: MessageFilter): { total: number; messages: SimulatedMessage[] } {
    const to = filter.to?.toLowerCase();
    const matches = (message: StoredMessage): boolean =>
      (to === undefined || message.recipients.some((recipient) => recipient.toLowerCase() === to)) &&
      (filter.stream === undefined || message.stream.id === filter.stream) &&
      (filter.tag === undefined || message.tag === filter.tag) &&
      (filter.serverId === undefined || message.server.id === filter.serverId) &&
      (filter.metadataKey === undefined ||
        (filter.metadataKey in message.metadata &&
          (filter.metadataValue === undefined || String(message.metadata[filter.metadataKey]) === filter.metadataValue)));
    const limit = Math.min(Math.max(filter.limit ?? DEFAULT_LIST_LIMIT, 1), MAX_LIST_LIMIT);
    const { total, page } = this.#newestFirst(matches, Math.max(filter.offset ?? 0, 0), limit, (message) => {
      const { TextBody: _text, Headers: _headers, ...summary } = this.view(message);
      return summary;
    });
    return { total, messages: page };
  }

  /** The matching messages' count, and one page of them (newest first) as `view` shows them. */
  #newestFirst<T>(
    matches: (message: StoredMessage) => boolean,
    offset: number,
    limit: number,
    view: (message: StoredMessage) => T,
  ): { total: number; page: T[] } {
    const page: T[] = [];
    let total = 0;
    const order = [...this.#messages.values()];
    for (let index = order.length - 1; index >= 0; index -= 1) {
      const message = order[index];
      if (!message || !matches(message)) continue;
      if (total >= offset && page.length < limit) page.push(view(message));
      total += 1;
    }
    return { total, page };
  }

  /**
   * The Messages API search, newest first, over the messages this simulator keeps (the latest
   * `maxTrackedMessages`; Postmark keeps 45 days). `TotalCount` counts every match.
   */
  outbound(search: OutboundSearch): { TotalCount: number; Messages: OutboundMessageView[] } {
    const recipient = search.recipient?.toLowerCase();
    const fromEmail = search.fromEmail?.toLowerCase();
    const matches = (message: StoredMessage): boolean =>
      message.server.id === search.serverId &&
      message.receivedAtMs <= search.visibleBeforeMs &&
      (recipient === undefined || message.recipients.some((r) => r.toLowerCase() === recipient)) &&
      (search.tag === undefined || message.tag === search.tag) &&
      (search.stream === undefined || message.stream.id === search.stream) &&
      (fromEmail === undefined || message.from.toLowerCase().includes(fromEmail)) &&
      (search.subject === undefined || message.subject.includes(search.subject)) &&
      (search.metadata === undefined || (search.metadata.key in message.metadata && String(message.metadata[search.metadata.key]) === search.metadata.value));
    const { total, page } = this.#newestFirst(matches, search.offset, search.count, outboundView);
    return { TotalCount: total, Messages: page };
  }

  suppression(server: SimulatorServer, stream: SimulatorStream, address: string): Suppression | undefined {
    return this.#suppressions.get(suppressionKey(server, stream))?.get(address.toLowerCase());
  }

  /** Adds or strengthens a suppression; returns the entry when something changed, null when not. */
  suppress(
    server: SimulatorServer,
    stream: SimulatorStream,
    address: string,
    reason: SuppressionReason,
    origin: SuppressionOrigin,
    at: Date,
  ): Suppression | null {
    const key = suppressionKey(server, stream);
    let entries = this.#suppressions.get(key);
    if (!entries) {
      entries = new Map();
      this.#suppressions.set(key, entries);
    }
    const current = entries.get(address.toLowerCase());
    if (current && !outranks(reason, current.SuppressionReason)) return null;
    const entry: Suppression = { EmailAddress: address, SuppressionReason: reason, Origin: origin, CreatedAt: at.toISOString() };
    entries.set(address.toLowerCase(), entry);
    return entry;
  }

  unsuppress(server: SimulatorServer, stream: SimulatorStream, address: string): Suppression | undefined {
    const entries = this.#suppressions.get(suppressionKey(server, stream));
    const current = entries?.get(address.toLowerCase());
    if (current) entries?.delete(address.toLowerCase());
    return current;
  }

  suppressions(server: SimulatorServer, stream: SimulatorStream): Suppression[] {
    return [...(this.#suppressions.get(suppressionKey(server, stream))?.values() ?? [])];
  }

  reset(): void {
    this.#messages.clear();
    this.#bodies.clear();
    this.#suppressions.clear();
    this.#metadataIdCounts.clear();
    this.#duplicates.clear();
    this.received = 0;
    this.rejected = 0;
    this.apiTest = 0;
  }
}

function outboundView(message: StoredMessage): OutboundMessageView {
  // `{ Email, Name }` with the display name as sent (the Messages API example), null without one.
  const mailboxes = (field: string, addresses: readonly string[]) => {
    const names = displayNames(field);
    return addresses.map((address) => ({ Email: address, Name: names.get(address.toLowerCase()) ?? null }));
  };
  return {
    Tag: message.tag,
    MessageID: message.id,
    MessageStream: message.stream.id,
    To: mailboxes(message.to, message.recipients),
    Cc: mailboxes(message.cc, parseAddressList(message.cc) ?? []),
    Bcc: mailboxes(message.bcc, parseAddressList(message.bcc) ?? []),
    Recipients: message.recipients,
    ReceivedAt: new Date(message.receivedAtMs).toISOString(),
    From: message.from,
    Subject: message.subject,
    Attachments: [],
    Status: "Sent",
    TrackOpens: message.trackOpens,
    TrackLinks: message.trackLinks,
    Metadata: message.metadata,
    Sandboxed: message.server.deliveryType === "Sandbox",
  };
}
