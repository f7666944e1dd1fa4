import type { PostmarkError } from "./postmark-shapes";

/**
 * Postmark's error codes and, where Postmark's wording is known (SDK tests, support articles, the API
 * overview's error table), its exact messages. Clients must branch on `ErrorCode`, never on the text
 * (PROVIDER-FACTS P11); the texts are kept faithful so logs and error parsers behave as in production.
 */
export const POSTMARK_ERRORS = {
  missingToken: {
    ErrorCode: 10,
    Message:
      "No Account or Server API tokens were supplied in the HTTP headers. Please add a header for either X-Postmark-Server-Token or X-Postmark-Account-Token.",
  },
  invalidToken: {
    ErrorCode: 10,
    Message: "The Server Token you provided in the X-Postmark-Server-Token request header was invalid. Please verify that you are using a valid token.",
  },
  invalidJson: { ErrorCode: 402, Message: "Received invalid JSON input." },
  incompatibleJson: { ErrorCode: 403, Message: "The JSON data you provided is syntactically correct, but still doesn't contain the fields we expect." },
  jsonRequired: { ErrorCode: 409, Message: "Content-Type and Accept headers must be set to application/json, text/json, or text/x-json." },
  tooManyBatchMessages: { ErrorCode: 410, Message: "Too many batch messages. A batch may contain up to 500 messages." },
  zeroRecipients: { ErrorCode: 300, Message: "Zero recipients specified" },
  missingFrom: { ErrorCode: 300, Message: "Invalid 'From' value." },
  missingBody: { ErrorCode: 300, Message: "Provide either email TextBody or HtmlBody or both." },
  tooManyRecipients: { ErrorCode: 300, Message: "Maximum of 50 recipients allowed per email message." },
  unknownStream: { ErrorCode: 1235, Message: "The 'MessageStream' provided does not exist on this server." },
  streamNotFound: { ErrorCode: 1226, Message: "The message stream for the provided 'ID' was not found." },
  // The Messages API's parameter errors: Postmark documents no code of their own for them; 403 is its
  // generic "the request does not contain the fields we expect".
  searchCount: { ErrorCode: 403, Message: "The 'count' parameter is required and must be between 1 and 500." },
  searchOffset: { ErrorCode: 403, Message: "The 'offset' parameter is required; 'count' plus 'offset' may not exceed 10,000." },
  // HTTP 429 (API overview: "Rate limit exceeded"); Postmark documents no ErrorCode of its own for it.
  rateLimited: { ErrorCode: 429, Message: "Rate limit exceeded: too many requests; slow down and try again later." },
  searchOneMetadata: { ErrorCode: 403, Message: "Only one metadata field can be searched at a time." },
} as const satisfies Record<string, PostmarkError>;

const INVALID_EMAIL_REQUEST = 300;
const INACTIVE_RECIPIENT = 406;

export function invalidAddress(field: string, value: string): PostmarkError {
  return { ErrorCode: INVALID_EMAIL_REQUEST, Message: `Invalid '${field}' address: '${value}'.` };
}

export function invalidField(field: string, expected: string): PostmarkError {
  return { ErrorCode: INVALID_EMAIL_REQUEST, Message: `Invalid email request: '${field}' must be ${expected}.` };
}

/**
 * The two 406 forms postmark.js (`InactiveRecipientsError.inactiveRecipientsPatterns`) and postmark-gem
 * parse: every recipient inactive (nothing sent) or some inactive (sent to the others).
 */
export function allRecipientsInactive(addresses: string[]): PostmarkError {
  return {
    ErrorCode: INACTIVE_RECIPIENT,
    Message:
      `You tried to send to recipient(s) that have been marked as inactive. Found inactive addresses: ${addresses.join(", ")}. ` +
      "Inactive recipients are ones that have generated a hard bounce, a spam complaint, or a manual suppression.",
  };
}

export function someRecipientsInactive(addresses: string[]): PostmarkError {
  return { ErrorCode: INACTIVE_RECIPIENT, Message: `Message OK, but will not deliver to these inactive addresses: ${addresses.join(", ")}.` };
}

export const SPAM_COMPLAINT_DELETE_REFUSED = "You do not have the required authority to change this suppression.";
export const INVALID_SUPPRESSION_ADDRESS = "An invalid email address was provided.";

/** A control-endpoint failure (unknown message, recipient not on the message); the app maps it to HTTP. */
export class SimulatorControlError extends Error {
  constructor(
    readonly status: 404 | 422,
    message: string,
  ) {
    super(message);
  }
}
