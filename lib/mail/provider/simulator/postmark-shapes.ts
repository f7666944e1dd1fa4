/**
 * Postmark's wire shapes, field names and casing exactly as Postmark sends them (API reference, webhook
 * pages, postmark.js `src/client/models`). Where postmark.js types a field as non-null but Postmark sends
 * null (SubscriptionChange on reactivation, PROVIDER-FACTS P7), the type here allows null.
 */

export type StreamType = "Transactional" | "Broadcasts";
export type DeliveryType = "Live" | "Sandbox";
export type SuppressionReason = "HardBounce" | "SpamComplaint" | "ManualSuppression";
export type SuppressionOrigin = "Recipient" | "Customer" | "Admin";

/** Postmark echoes Metadata as sent; values are usually strings but may be any JSON (P8). */
export type Metadata = Record<string, unknown>;

export type PostmarkError = { ErrorCode: number; Message: string };

export type SendResponse = { To: string; SubmittedAt: string; MessageID: string; ErrorCode: number; Message: string };

export type Suppression = { EmailAddress: string; SuppressionReason: SuppressionReason; Origin: SuppressionOrigin; CreatedAt: string };
export type SuppressionStatus = { EmailAddress: string; Status: "Suppressed" | "Deleted" | "Failed"; Message: string | null };

export type DeliveryWebhook = {
  RecordType: "Delivery";
  ServerID: number;
  MessageStream: string;
  MessageID: string;
  Recipient: string;
  Tag: string;
  DeliveredAt: string;
  Details: string;
  Metadata: Metadata;
};

/** Bounce and SpamComplaint share one shape (P4); the recipient is in `Email`. */
type BounceShape = {
  ID: number;
  Type: string;
  TypeCode: number;
  Name: string;
  Tag: string;
  MessageID: string;
  ServerID: number;
  Description: string;
  Details: string;
  Email: string;
  From: string;
  BouncedAt: string;
  DumpAvailable: boolean;
  Inactive: boolean;
  CanActivate: boolean;
  Subject: string;
  MessageStream: string;
  Metadata: Metadata;
};
export type BounceWebhook = BounceShape & { RecordType: "Bounce" };
export type SpamComplaintWebhook = BounceShape & { RecordType: "SpamComplaint" };

export type ClientDetails = { Name: string; Company: string; Family: string };
export type GeoLocation = {
  CountryISOCode: string;
  Country: string;
  RegionISOCode: string;
  Region: string;
  City: string;
  Zip: string;
  Coords: string;
  IP: string;
};

type EngagementShape = {
  MessageStream: string;
  Client: ClientDetails;
  OS: ClientDetails;
  Platform: string;
  UserAgent: string;
  Geo: GeoLocation;
  MessageID: string;
  Metadata: Metadata;
  ReceivedAt: string;
  Tag: string;
  Recipient: string;
};
export type OpenWebhook = EngagementShape & { RecordType: "Open"; FirstOpen: boolean; ReadSeconds: number };
export type ClickWebhook = EngagementShape & { RecordType: "Click"; ClickLocation: "HTML" | "Text"; OriginalLink: string };

export type SubscriptionChangeWebhook = {
  RecordType: "SubscriptionChange";
  MessageID: string | null;
  ServerID: number;
  MessageStream: string;
  ChangedAt: string;
  Recipient: string;
  Origin: SuppressionOrigin;
  SuppressSending: boolean;
  SuppressionReason: SuppressionReason | null;
  Tag: string | null;
  Metadata: Metadata;
};

export type WebhookPayload = DeliveryWebhook | BounceWebhook | SpamComplaintWebhook | OpenWebhook | ClickWebhook | SubscriptionChangeWebhook;
