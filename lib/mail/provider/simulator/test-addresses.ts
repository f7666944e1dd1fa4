/**
 * Recipient addresses that make the simulator produce bounces and complaints.
 *
 * We follow Postmark's own bounce-testing convention (Postmark "Generate fake bounces" guide and support
 * article 1239 "How to test bounces"): mail to the black hole domain `bounce-testing.postmarkapp.com`
 * bounces at once; the local part names the bounce type (`hardbounce@…`, `softbounce@…`, `transient@…`,
 * `blocked@…`, …), case-insensitive and with `_` / `-` ignored (`Hard_Bounce@…` works too); an unknown local
 * part bounces as HardBounce, Postmark's default; the `X-PM-Bounce-Type` message header overrides the local
 * part. A hard bounce also adds the address to the stream's suppression list.
 *
 * Our additions, because Postmark's scheme has one address per type and a hard bounce suppresses it:
 * - a `+tag` suffix is ignored (`hardbounce+job42@bounce-testing.postmarkapp.com`), so every test can use
 *   fresh addresses;
 * - `spamcomplaint@…` produces a spam complaint (Postmark's black hole refuses that type; the simulator has
 *   no other way to make one happen at send time);
 * - on any other domain the local parts `hardbounce`, `softbounce` and `spamcomplaint` (with optional
 *   `+tag`) behave the same, so a portal developer can use their own domain. Other type names only count
 *   on the black hole domain, because `blocked@` or `unknown@` are plausible real mailboxes.
 */

/** Postmark's bounce types with their `TypeCode`, `Name` and `Description` (postmark.js `BounceTypeCode`, Bounce API docs). */
export const BOUNCE_TYPES = {
  HardBounce: { code: 1, name: "Hard bounce", description: "The server was unable to deliver your message (ex: unknown user, mailbox not found)." },
  Transient: {
    code: 2,
    name: "Message delayed",
    description: "The server could not temporarily deliver your message (ex: Message is delayed due to network troubles).",
  },
  Unsubscribe: { code: 16, name: "Unsubscribe request", description: "Unsubscribe or Remove request." },
  Subscribe: { code: 32, name: "Subscribe request", description: "Subscribe request from someone wanting to get added to the mailing list." },
  AutoResponder: { code: 64, name: "Auto responder", description: 'Automatic email responder (ex: "Out of Office" or "On Vacation").' },
  AddressChange: { code: 128, name: "Address change", description: "The recipient has requested an address change." },
  DnsError: { code: 256, name: "DNS error", description: "A temporary DNS error." },
  SpamNotification: {
    code: 512,
    name: "Spam notification",
    description: "The message was delivered, but was either blocked by the user, or classified as spam, bulk mail, or had rejected content.",
  },
  OpenRelayTest: { code: 1024, name: "Open relay test", description: "The NDR is actually a test email message to see if the mail server is an open relay." },
  Unknown: { code: 2048, name: "Unknown", description: "Unable to classify the NDR." },
  SoftBounce: {
    code: 4096,
    name: "Soft bounce/Undeliverable",
    description: "Unable to temporarily deliver message (i.e. mailbox full, account disabled, exceeds quota, out of disk space).",
  },
  VirusNotification: {
    code: 8192,
    name: "Virus notification",
    description: "The bounce is actually a virus notification warning about a virus/code infected message.",
  },
  ChallengeVerification: {
    code: 16384,
    name: "Spam challenge verification",
    description: "The bounce is a challenge asking for verification you actually sent the email.",
  },
  BadEmailAddress: { code: 100000, name: "Invalid email address", description: "The address is not a valid email address." },
  ManuallyDeactivated: { code: 100002, name: "Manually deactivated", description: "The email was manually deactivated." },
  Unconfirmed: {
    code: 100003,
    name: "Registration not confirmed",
    description: "The subscriber has not clicked on the confirmation link upon registration or import.",
  },
  Blocked: { code: 100006, name: "ISP block", description: "Blocked from this ISP due to content or blacklisting." },
  SMTPApiError: { code: 100007, name: "SMTP API error", description: "An error occurred while accepting an email through the SMTP API." },
  InboundError: { code: 100008, name: "Processing failed", description: "Unable to deliver inbound message to destination inbound hook." },
  DMARCPolicy: { code: 100009, name: "DMARC Policy", description: "Email rejected due DMARC Policy." },
  TemplateRenderingFailed: { code: 100010, name: "Template rendering failed", description: "An error occurred while attempting to render your template." },
} as const;

export type BounceType = keyof typeof BOUNCE_TYPES;
export const BOUNCE_TYPE_NAMES = Object.keys(BOUNCE_TYPES) as [BounceType, ...BounceType[]];

/**
 * The spam-complaint record. TypeCode 100001 follows postmark.js `BounceTypeCode` and the bounce-types table;
 * Postmark's webhook example shows 512 (PROVIDER-FACTS P6), which is SpamNotification. Receivers match on
 * `RecordType`/`Type`, never on the code.
 */
export const SPAM_COMPLAINT = { code: 100001, name: "Spam complaint", description: "The subscriber explicitly marked this email as spam." } as const;

/** What a test address makes happen to a message after it is accepted. */
export type TestOutcome = { kind: "bounce"; type: BounceType } | { kind: "spam_complaint" };

const BOUNCE_TESTING_DOMAIN = "bounce-testing.postmarkapp.com";

/** Ready-made addresses; add a tag with `simulatorTestAddress` to get a fresh one per test. */
export const SIMULATOR_TEST_ADDRESSES = {
  hardBounce: `hardbounce@${BOUNCE_TESTING_DOMAIN}`,
  softBounce: `softbounce@${BOUNCE_TESTING_DOMAIN}`,
  spamComplaint: `spamcomplaint@${BOUNCE_TESTING_DOMAIN}`,
} as const;

export function simulatorTestAddress(type: BounceType | "SpamComplaint", tag?: string): string {
  return `${type.toLowerCase()}${tag ? `+${tag}` : ""}@${BOUNCE_TESTING_DOMAIN}`;
}

const typeByKey = new Map<string, BounceType>(BOUNCE_TYPE_NAMES.map((type) => [type.toLowerCase(), type]));
const SPAM_COMPLAINT_KEY = "spamcomplaint";
const ANY_DOMAIN_KEYS = new Set(["hardbounce", "softbounce", SPAM_COMPLAINT_KEY]);

function typeKey(value: string): string {
  return value.replace(/[_-]/g, "").toLowerCase();
}

function outcomeFor(key: string): TestOutcome | null {
  if (key === SPAM_COMPLAINT_KEY) return { kind: "spam_complaint" };
  const type = typeByKey.get(key);
  return type ? { kind: "bounce", type } : null;
}

/**
 * Classifies one recipient address. Called once per recipient on the send path, so it is a few string
 * operations and two map lookups.
 */
export function classifyTestAddress(address: string, bounceTypeHeader?: string): TestOutcome | null {
  const at = address.lastIndexOf("@");
  if (at < 0) return null;
  const domain = address.slice(at + 1).toLowerCase();
  const key = typeKey(address.slice(0, at).split("+")[0]);
  if (domain === BOUNCE_TESTING_DOMAIN) {
    const fromHeader = bounceTypeHeader ? outcomeFor(typeKey(bounceTypeHeader)) : null;
    return fromHeader ?? outcomeFor(key) ?? { kind: "bounce", type: "HardBounce" };
  }
  return ANY_DOMAIN_KEYS.has(key) ? outcomeFor(key) : null;
}
