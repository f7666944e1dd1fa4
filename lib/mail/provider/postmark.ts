import { Errors, Models, ServerClient } from "postmark";
import { postJsonOffThread } from "./batch-transport";

/**
 * Our one way to talk to Postmark: the official `postmark` client, pointed at the real API or at the
 * simulator (`requestHost`). It turns every answer into an outcome the sending code can record; it never
 * throws for a provider answer.
 */
export type OutgoingEmail = {
  From: string;
  To: string;
  Subject: string;
  HtmlBody: string;
  ReplyTo?: string;
  MessageStream: string;
  Metadata: Record<string, string>;
  TrackOpens?: boolean;
  TrackLinks?: Models.LinkTrackingOptions;
};

export type SendOutcome =
  | { kind: "accepted"; providerMessageId: string; submittedAt: string | null }
  /** 406: the address is inactive at Postmark (hard bounce, complaint, unsubscribe). Nothing was sent. */
  | { kind: "suppressed"; message: string }
  /** 300: Postmark refused the request as invalid (e.g. the address). Nothing was sent. */
  | { kind: "invalid"; message: string }
  /** Refused for another definite reason (token, rate limit, sender signature). Nothing was sent. */
  | { kind: "failed"; code: number; status: number; message: string }
  /** No answer or a 5xx: Postmark may or may not have accepted it. Never send again. */
  | { kind: "unknown"; message: string };

/** Postmark's API token that validates requests without sending (used for sandbox mode). */
export const POSTMARK_TEST_TOKEN = "POSTMARK_API_TEST";

export type PostmarkProvider = {
  send(serverToken: string, email: OutgoingEmail): Promise<SendOutcome>;
  sendBatch(serverToken: string, emails: OutgoingEmail[]): Promise<SendOutcome[]>;
  /**
   * `POST /email/batch` with a body the caller assembled: a JSON array of `count` messages of the
   * `OutgoingEmail` shape. Send jobs build it from pre-escaped template chunks (see
   * `lib/mail/send-jobs/batch-payload.ts`) instead of serialising 500 copies of the same HTML. The body is
   * handed over (it may be moved to the sending thread): do not use it afterwards.
   */
  sendBatchJson(serverToken: string, body: Uint8Array, count: number): Promise<SendOutcome[]>;
};

export function createPostmarkProvider(options: { apiUrl: string; timeoutSeconds?: number }): PostmarkProvider {
  const url = new URL(options.apiUrl);
  const timeoutSeconds = options.timeoutSeconds ?? 20;
  const clientOptions = { useHttps: url.protocol === "https:", requestHost: url.host, timeout: timeoutSeconds };
  const batchUrl = new URL("/email/batch", url);
  const clients = new Map<string, ServerClient>();
  const client = (token: string) => {
    let c = clients.get(token);
    if (!c) {
      c = new ServerClient(token, clientOptions);
      clients.set(token, c);
    }
    return c;
  };

  return {
    async send(serverToken, email) {
      try {
        const response = await client(serverToken).sendEmail(email);
        return itemOutcome(response.ErrorCode, response.Message, response.MessageID, response.SubmittedAt);
      } catch (error) {
        return errorOutcome(error);
      }
    },
    async sendBatch(serverToken, emails) {
      try {
        const responses = await client(serverToken).sendEmailBatch(emails);
        // Postmark answers one result per message, in order; each must be inspected on its own.
        return emails.map((_, i) => {
          const r = responses[i];
          return r ? itemOutcome(r.ErrorCode, r.Message, r.MessageID, r.SubmittedAt) : { kind: "unknown", message: "No result for this message in the batch answer." };
        });
      } catch (error) {
        const outcome = errorOutcome(error);
        return emails.map(() => outcome);
      }
    },
    async sendBatchJson(serverToken, body, count) {
      const all = (outcome: SendOutcome) => Array.from({ length: count }, () => outcome);
      let answer: { status: number; text: string };
      try {
        const headers = { accept: "application/json", "content-type": "application/json", "x-postmark-server-token": serverToken };
        answer = await postJsonOffThread(batchUrl, headers, body, timeoutSeconds * 1000);
      } catch (error) {
        return all(errorOutcome(error));
      }
      if (answer.status >= 500) return all({ kind: "unknown", message: `Postmark answered ${answer.status}.` });
      const parsed = parseJson(answer.text);
      if (answer.status !== 200) {
        // The request as a whole was refused (token, JSON, batch size): nothing was sent.
        const error = isPostmarkAnswer(parsed) ? parsed : { ErrorCode: -1, Message: `Postmark answered ${answer.status} without an error body.` };
        return all({ kind: "failed", code: error.ErrorCode, status: answer.status, message: error.Message });
      }
      // A 200 we cannot read may still have sent everything.
      if (!Array.isArray(parsed)) return all({ kind: "unknown", message: "Postmark answered 200 with an unreadable body." });
      return Array.from({ length: count }, (_, i): SendOutcome => {
        const r: unknown = parsed[i];
        if (!isPostmarkAnswer(r)) return { kind: "unknown", message: "No result for this message in the batch answer." };
        return itemOutcome(r.ErrorCode, r.Message, r.MessageID, r.SubmittedAt);
      });
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** Postmark's answer object (a whole-request error, or one batch item): `ErrorCode` and `Message` at least. */
function isPostmarkAnswer(value: unknown): value is { ErrorCode: number; Message: string; MessageID?: string; SubmittedAt?: string } {
  return typeof value === "object" && value !== null && typeof (value as { ErrorCode?: unknown }).ErrorCode === "number" && typeof (value as { Message?: unknown }).Message === "string";
}

function itemOutcome(code: number, message: string, messageId: string | undefined, submittedAt: string | undefined): SendOutcome {
  if (code === 0 && messageId) return { kind: "accepted", providerMessageId: messageId, submittedAt: submittedAt ?? null };
  if (code === 406) return { kind: "suppressed", message };
  if (code === 300) return { kind: "invalid", message };
  return { kind: "failed", code, status: 422, message };
}

function errorOutcome(error: unknown): SendOutcome {
  if (error instanceof Errors.InactiveRecipientsError) return { kind: "suppressed", message: error.message };
  if (error instanceof Errors.InvalidEmailRequestError) return { kind: "invalid", message: error.message };
  if (error instanceof Errors.InternalServerError || error instanceof Errors.ServiceUnavailablerError || error instanceof Errors.UnknownError) {
    return { kind: "unknown", message: `Postmark answered ${error.statusCode}.` };
  }
  if (error instanceof Errors.HttpError) return { kind: "failed", code: error.code, status: error.statusCode, message: error.message };
  // No HTTP answer at all (time-out, dropped connection): the request may have been processed.
  return { kind: "unknown", message: error instanceof Error ? error.message : "No answer from Postmark." };
}
