/**
 * The admin API's vocabulary in words, in one place: every enum value the console shows (states, kinds,
 * roles, readiness items, metrics, audit actors) maps to the phrase an operator reads. The API keeps its
 * codes; the console never prints them. tests/console/words.test.ts checks that every value the admin
 * OpenAPI document allows for these fields has its phrase here, so a new state cannot reach a page as code.
 */

export const WORDS = {
  messageStatus: {
    pending: "Waiting to send",
    accepted: "Accepted by Postmark",
    delivered: "Delivered",
    bounced: "Bounced",
    complained: "Marked as spam",
    suppressed: "Suppressed",
    invalid: "Invalid address",
    failed: "Failed",
    unknown: "Outcome unknown",
  },
  messageKind: { transactional: "Transactional", newsletter: "Newsletter" },
  mailMode: { live: "Live", sandbox: "Sandbox (nothing delivered)" },
  sendJobStatus: {
    draft: "Draft",
    scheduled: "Scheduled",
    running: "Sending",
    paused: "Paused",
    completed: "Completed",
    cancelled: "Cancelled",
    failed: "Failed",
  },
  pauseReason: {
    sending_blocked: "sending blocked",
    monthly_limit: "monthly limit reached",
    provider_not_ready: "provider not ready",
    bounce_rate: "bounce rate too high",
    complaint_rate: "complaint rate too high",
  },
  accountState: {
    active: "Active",
    deactivated: "Deactivated",
    overdue: "Payment overdue",
    checkout_open: "Checkout open",
    ended: "Ended",
  },
  stage: { starter: "Starter", growth: "Growth", scale: "Scale", enterprise: "Enterprise" },
  role: { owner: "Owner", admin: "Admin", support: "Support" },
  actorType: {
    operator: "Console session",
    token: "Operator API token",
    bootstrap: "Bootstrap token",
    break_glass: "Break-glass token",
    cli: "Command line",
    anonymous: "Unknown (failed sign-in)",
  },
  readinessItem: {
    server_token: "Postmark server token",
    transactional_stream: "Transactional message stream",
    broadcast_stream: "Broadcast message stream",
    verified_senders: "Verified sender addresses",
    default_newsletter_from: "Default newsletter sender",
    newsletter_footer: "Newsletter footer (unsubscribe link)",
    transactional_footer: "Transactional footer",
    postmark_check: "Check with Postmark",
    return_path: "Return-Path domain",
    complaint_rate: "Spam complaint rate",
  },
  readinessStatus: { green: "✓ Ready", warning: "! Warning", red: "✗ Missing" },
  keyScope: { full: "Full access", reporting: "Reporting only" },
  service: { mail: "Mail", ads: "Ads" },
  deliveryStatus: { pending: "Waiting to retry", delivered: "Delivered", failed: "Failed" },
  webhookStatus: { active: "Active", inactive: "Switched off" },
  webhookEvent: {
    "job.completed": "Send job completed",
    "job.paused": "Send job paused",
    "message.bounced": "Message bounced",
    "suppression.changed": "Suppression changed",
    "webhook.test": "Test event",
  },
  suppressionReason: { unsubscribe: "Unsubscribed", hard_bounce: "Hard bounce", spam_complaint: "Spam complaint" },
  stream: { newsletter: "Newsletter", transactional: "Transactional" },
  adStatus: { ACTIVE: "Active", PAUSED: "Paused", ARCHIVED: "Archived" },
  /** The platform's review and delivery state of an ad or ad set (a string in the API: the platform may add states; symbols besides any colour). */
  effectiveStatus: {
    ACTIVE: "✓ approved, delivering",
    PENDING_REVIEW: "… in review",
    IN_PROCESS: "… being processed",
    DISAPPROVED: "✗ disapproved",
    WITH_ISSUES: "⚠ with issues",
    PREAPPROVED: "✓ pre-approved",
    PENDING_BILLING_INFO: "⚠ billing information missing",
    PAUSED: "‖ paused",
    ADSET_PAUSED: "‖ ad set paused",
    CAMPAIGN_PAUSED: "‖ target (campaign) paused",
    ARCHIVED: "archived",
  },
  tokenStatus: { missing: "Missing", unverified: "Not checked yet", verified: "Verified", invalid: "Invalid" },
  onboardingItem: {
    access_token: "Access token",
    app_secret: "App secret",
    ad_account_id: "Ad account id",
    page_id: "Facebook page id",
    instagram_account_id: "Instagram account id",
    dsa_beneficiary: "DSA beneficiary",
    dsa_payor: "DSA payor",
    legal_name: "Legal name",
  },
  templateStatus: { draft: "Draft", active: "Active", archived: "Archived" },
  /** A send job's counters (`SendJob.stats`). */
  jobMetric: {
    delivered: "Delivered",
    bounces: "Bounces",
    complaints: "Spam complaints",
    opens: "Opens",
    unique_opens: "Unique opens",
    clicks: "Clicks",
    unique_clicks: "Unique clicks",
  },
} as const;

export type Vocabulary = keyof typeof WORDS;

/** The phrase for `value` in `vocabulary`; a value the console does not know yet reads as its words (`checkout_open` → "checkout open"). */
export function say(vocabulary: Vocabulary, value: string | null | undefined): string {
  if (value === null || value === undefined) return "—";
  const words = WORDS[vocabulary] as Record<string, string>;
  return words[value] ?? value.replace(/[_.]/g, " ").toLowerCase();
}

const percent = (fraction: number) => `${(fraction * 100).toLocaleString(undefined, { maximumFractionDigits: 3 })} %`;

/**
 * A paused send job's reason as a sentence: who resumes it, and for the reputation guard's two, which rate
 * passed which threshold (when the customer's thresholds are at hand).
 */
export function pauseReasonInWords(
  reason: string | null | undefined,
  thresholds?: { bounce_rate: number; complaint_rate: number; min_sample: number },
): string {
  switch (reason) {
    case "bounce_rate":
      return `The reputation guard paused it: its hard-bounce rate passed the threshold${thresholds ? ` of ${percent(thresholds.bounce_rate)}` : ""} after the minimum sample${thresholds ? ` of ${thresholds.min_sample.toLocaleString()} outcomes` : ""}. Only an admin resumes it.`;
    case "complaint_rate":
      return `The reputation guard paused it: its spam-complaint rate passed the threshold${thresholds ? ` of ${percent(thresholds.complaint_rate)}` : ""} after the minimum sample${thresholds ? ` of ${thresholds.min_sample.toLocaleString()} outcomes` : ""}. Only an admin resumes it.`;
    case "sending_blocked":
      return "Sending is blocked for this customer; the customer's start resumes it once unblocked.";
    case "monthly_limit":
      return "The monthly limit was reached; the customer's start resumes it once there is room.";
    case "provider_not_ready":
      return "The provider setup became incomplete (see readiness); the customer's start resumes it once it is green.";
    default:
      return "Not paused.";
  }
}

/** A readiness item's advice: the API says `ok` when there is nothing to do. */
export const whatToDo = (message: string) => (message === "ok" ? "Nothing to do." : message);

/** Options of a `<select>` over a vocabulary: the API's value, the operator's words. */
export function choices(vocabulary: Vocabulary): { value: string; label: string }[] {
  return Object.entries(WORDS[vocabulary] as Record<string, string>).map(([value, label]) => ({ value, label }));
}

/** Operations named differently than their operationId reads (the console's own sign-in entries among them). */
const OPERATIONS: Record<string, string> = {
  signIn: "Signed in",
  signInFailed: "Sign-in failed",
  signOut: "Signed out",
  reauthenticate: "Confirmed identity",
};

/**
 * An audit entry's operation in words: `updateCustomer` → "Update customer", `revokeApiKey` → "Revoke API key".
 * operationIds are verb-first camelCase by the admin document's convention, so splitting them reads as a sentence.
 */
export function operationLabel(operationId: string): string {
  const named = OPERATIONS[operationId];
  if (named) return named;
  const words = operationId
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(/[\s_]+/)
    .filter(Boolean)
    .map((word) => (/^(Api|Csv|Dns|Url|Sso|Totp|Mjml|Id)$/.test(word) ? word.toUpperCase().replace("ID", "id") : word.toLowerCase()));
  const sentence = words.join(" ");
  return sentence.charAt(0).toUpperCase() + sentence.slice(1);
}

/** The operator's time zone, as every date the console shows or takes is in it. */
export const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** A time in the operator's zone, with the zone: "28 Nov 2026, 14:05 (Europe/Berlin)". */
export function at(iso: string | null | undefined): string {
  if (!iso) return "—";
  return `${new Date(iso).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" })} (${timeZone})`;
}

/** An ISO time as the value of an `<input type="datetime-local">` in the operator's zone ("" for none). */
export function localInput(iso: string | null | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A `datetime-local` value (the operator's zone) as an ISO time for the API ("" stays ""). */
export function fromLocalInput(value: string): string {
  return value ? new Date(value).toISOString() : "";
}
