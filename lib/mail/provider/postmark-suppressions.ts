import { loadPostmark } from "./postmark";

/**
 * Postmark's Suppressions API through the official client (PROVIDER-FACTS P12): delete answers one
 * `{ EmailAddress, Status, Message }` per address; `Failed` for a spam complaint, which only Postmark can
 * tell us by its dump, never by the message text.
 */
type SuppressionDeleteOutcome =
  | { kind: "deleted" }
  /** Postmark refused: a spam complaint (`spamComplaint`), or another reason given in `message`. */
  | { kind: "refused"; spamComplaint: boolean; message: string }
  /** No usable answer (network, 5xx, token): nothing is known to have changed. */
  | { kind: "unavailable"; message: string };

export type PostmarkSuppressions = {
  delete(serverToken: string, streamId: string, email: string): Promise<SuppressionDeleteOutcome>;
};

export function createPostmarkSuppressions(options: { apiUrl: string; timeoutSeconds?: number }): PostmarkSuppressions {
  const url = new URL(options.apiUrl);
  const clientOptions = { useHttps: url.protocol === "https:", requestHost: url.host, timeout: options.timeoutSeconds ?? 20 };
  const client = async (token: string) => new (await loadPostmark()).ServerClient(token, clientOptions);

  return {
    async delete(serverToken, streamId, email) {
      try {
        const server = await client(serverToken);
        const answer = await server.deleteSuppressions(streamId, { Suppressions: [{ EmailAddress: email }] });
        const status = answer.Suppressions.find((s) => s.EmailAddress.toLowerCase() === email.toLowerCase()) ?? answer.Suppressions[0];
        if (status?.Status === "Deleted") return { kind: "deleted" };
        const dump = await server.getSuppressions(streamId, { emailAddress: email });
        const spamComplaint = dump.Suppressions.some((s) => s.SuppressionReason === "SpamComplaint");
        return { kind: "refused", spamComplaint, message: status?.Message ?? "Postmark did not delete the suppression." };
      } catch (error) {
        const Errors = (await loadPostmark().catch(() => undefined))?.Errors;
        const message =
          Errors && error instanceof Errors.PostmarkError
            ? `Postmark answered ${error.statusCode}: ${error.message}`
            : error instanceof Error
              ? error.message
              : "No answer from Postmark.";
        return { kind: "unavailable", message };
      }
    },
  };
}
