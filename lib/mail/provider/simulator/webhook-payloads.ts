import type {
  BounceWebhook,
  ClickWebhook,
  ClientDetails,
  DeliveryWebhook,
  GeoLocation,
  OpenWebhook,
  SpamComplaintWebhook,
  SubscriptionChangeWebhook,
  Suppression,
  SuppressionOrigin,
  SuppressionReason,
} from "./postmark-shapes";
import type { SimulatorServer, SimulatorStream, StoredMessage } from "./store";
import { BOUNCE_TYPES, SPAM_COMPLAINT, type BounceType } from "./test-addresses";

/**
 * Builders of Postmark's webhook bodies, field for field as on Postmark's webhook pages. The client,
 * OS and geo details of opens and clicks are fixed, plausible values: the simulator has no real reader.
 */

const SIMULATED_CLIENT: ClientDetails = { Name: "Chrome 120.0", Company: "Google", Family: "Chrome" };
const SIMULATED_OS: ClientDetails = { Name: "Windows 10", Company: "Microsoft Corporation.", Family: "Windows" };
const SIMULATED_USER_AGENT = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";
const SIMULATED_GEO: GeoLocation = {
  CountryISOCode: "DE",
  Country: "Germany",
  RegionISOCode: "BE",
  Region: "Berlin",
  City: "Berlin",
  Zip: "10115",
  Coords: "52.5200,13.4050",
  IP: "192.0.2.10",
};

export function deliveryPayload(message: StoredMessage, recipient: string, at: Date): DeliveryWebhook {
  return {
    RecordType: "Delivery",
    ServerID: message.server.id,
    MessageStream: message.stream.id,
    MessageID: message.id,
    Recipient: recipient,
    Tag: message.tag,
    DeliveredAt: at.toISOString(),
    Details: "smtp;250 2.0.0 OK (simulated delivery)",
    Metadata: message.metadata,
  };
}

function bounceFields(message: StoredMessage, recipient: string, id: number, at: Date) {
  return {
    ID: id,
    Tag: message.tag,
    MessageID: message.id,
    ServerID: message.server.id,
    Email: recipient,
    From: message.from,
    BouncedAt: at.toISOString(),
    DumpAvailable: false,
    Subject: message.subject,
    MessageStream: message.stream.id,
    Metadata: message.metadata,
  };
}

/** Only a HardBounce deactivates the address; soft and transient bounces are not final (P5). */
export function bouncePayload(message: StoredMessage, recipient: string, type: BounceType, id: number, at: Date): BounceWebhook {
  const info = BOUNCE_TYPES[type];
  return {
    RecordType: "Bounce",
    ...bounceFields(message, recipient, id, at),
    Type: type,
    TypeCode: info.code,
    Name: info.name,
    Description: info.description,
    Details: `Simulated ${info.name.toLowerCase()} for ${recipient}`,
    Inactive: type === "HardBounce",
    CanActivate: true,
  };
}

export function spamComplaintPayload(message: StoredMessage, recipient: string, id: number, at: Date): SpamComplaintWebhook {
  return {
    RecordType: "SpamComplaint",
    ...bounceFields(message, recipient, id, at),
    Type: "SpamComplaint",
    TypeCode: SPAM_COMPLAINT.code,
    Name: SPAM_COMPLAINT.name,
    Description: SPAM_COMPLAINT.description,
    Details: `Simulated spam complaint from ${recipient}`,
    Inactive: true,
    CanActivate: false,
  };
}

/** The reader-side fields Open and Click share. */
function engagementFields(message: StoredMessage, recipient: string, platform: string, at: Date) {
  return {
    MessageStream: message.stream.id,
    Client: SIMULATED_CLIENT,
    OS: SIMULATED_OS,
    Platform: platform,
    UserAgent: SIMULATED_USER_AGENT,
    Geo: SIMULATED_GEO,
    MessageID: message.id,
    Metadata: message.metadata,
    ReceivedAt: at.toISOString(),
    Tag: message.tag,
    Recipient: recipient,
  };
}

export function openPayload(message: StoredMessage, recipient: string, firstOpen: boolean, platform: string, at: Date): OpenWebhook {
  return { RecordType: "Open", ...engagementFields(message, recipient, platform, at), FirstOpen: firstOpen, ReadSeconds: 5 };
}

export function clickPayload(message: StoredMessage, recipient: string, link: string, location: "HTML" | "Text", platform: string, at: Date): ClickWebhook {
  return { RecordType: "Click", ...engagementFields(message, recipient, platform, at), ClickLocation: location, OriginalLink: link };
}

/** A suppression caused by a message (bounce, complaint, recipient unsubscribe) carries its MessageID, Tag and Metadata. */
export function suppressedByMessagePayload(message: StoredMessage, suppression: Suppression): SubscriptionChangeWebhook {
  return {
    RecordType: "SubscriptionChange",
    MessageID: message.id,
    ServerID: message.server.id,
    MessageStream: message.stream.id,
    ChangedAt: suppression.CreatedAt,
    Recipient: suppression.EmailAddress,
    Origin: suppression.Origin,
    SuppressSending: true,
    SuppressionReason: suppression.SuppressionReason,
    Tag: message.tag,
    Metadata: message.metadata,
  };
}

/**
 * A change made through the Suppressions API. P7: MessageID is null for Customer/Admin suppressions and for
 * reactivations; on reactivation SuppressionReason and Tag are null and Metadata is `{}`.
 */
export function subscriptionChangePayload(
  server: SimulatorServer,
  stream: SimulatorStream,
  recipient: string,
  change: { suppressSending: boolean; reason: SuppressionReason | null; origin: SuppressionOrigin },
  at: Date,
): SubscriptionChangeWebhook {
  return {
    RecordType: "SubscriptionChange",
    MessageID: null,
    ServerID: server.id,
    MessageStream: stream.id,
    ChangedAt: at.toISOString(),
    Recipient: recipient,
    Origin: change.origin,
    SuppressSending: change.suppressSending,
    SuppressionReason: change.reason,
    Tag: null,
    Metadata: {},
  };
}
