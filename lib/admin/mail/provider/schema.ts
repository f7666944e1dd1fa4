import { z } from "@hono/zod-openapi";
import { MailProviderConfig } from "../../../mail";
import { CredentialState } from "../../credentials";

/**
 * The configuration as the operator reads it: the mail service's `MailProviderConfig` (owned by mail, served
 * as is by PATCH), extended with what the receiver saw on streams it does not name.
 */
export const MailProviderStatus = MailProviderConfig.extend({
  server_token_state: CredentialState.openapi({
    description: "The Postmark server token as every role sees it: set, when it last changed and by whom (from the audit log); never its value.",
  }),
  account_token_state: CredentialState.openapi({
    description: "The Postmark account token as every role sees it: set, when it last changed and by whom (from the audit log); never its value.",
  }),
  events_on_unconfigured_streams: z
    .object({
      count: z.number().int().openapi({ description: "Events stored on a stream id the configuration does not name.", example: 3 }),
      last_received_at: z
        .string()
        .nullable()
        .openapi({ description: "When the latest of them arrived (ISO 8601); null when none.", example: "2026-03-10T09:00:00.000Z" }),
      streams: z.array(z.string()).openapi({ description: "The stream ids they arrived on (at most 20).", example: ["outbound-2"] }),
    })
    .openapi({
      description:
        "Provider events of this customer's messages on a Postmark stream id that is not `transactional_stream` or `broadcast_stream`. They are attributed by our message id whatever the stream and update the suppression mirror; a count above zero means a stream is missing from the configuration.",
    }),
}).openapi("MailProviderStatus");

export const tags = ["Mail provider"];
