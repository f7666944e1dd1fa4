/**
 * The provider event types stored in `mail_message_events.type` (besides the send outcomes `accepted`,
 * `suppressed`, `invalid`, `failed`, `unknown` written by the send path). Statistics count these; the
 * `details` of each are listed here because they are the contract with those readers. No event ever
 * carries the recipient address.
 *
 * - `delivered`     {}
 * - `bounced`       { bounce_type, type_code, description, inactive, source }: the message was not
 *                   delivered (HardBounce, SoftBounce, Blocked, …); `source` is `bounce` (Bounce webhook,
 *                   transactional streams) or `subscription_change` (broadcast streams report hard bounces
 *                   only that way, PROVIDER-FACTS P5)
 * - `bounce_notice` { bounce_type, type_code, description }: a bounce record that is not a failure of the
 *                   delivery (Transient = delayed, AutoResponder, AddressChange, …); state is unchanged
 * - `complained`    { source }
 * - `opened`        { first_open, platform, client, os, read_seconds } (newsletters only; every open)
 * - `clicked`       { url, location, platform, client } (newsletters only; Postmark posts one per link
 *                   and recipient, P10)
 * - `unsubscribed`  { origin } (the recipient used the unsubscribe link)
 */
export const MESSAGE_EVENT = {
  delivered: "delivered",
  bounced: "bounced",
  bounceNotice: "bounce_notice",
  complained: "complained",
  opened: "opened",
  clicked: "clicked",
  unsubscribed: "unsubscribed",
} as const;

export type MessageEventType = (typeof MESSAGE_EVENT)[keyof typeof MESSAGE_EVENT];
