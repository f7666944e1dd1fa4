import { z } from "@hono/zod-openapi";
import { ROTATION_GRACE_SECONDS } from "../../../mail";
import type { Database } from "../../../db/client";
import { CredentialState, credentialState } from "../../credentials";

const customerId = "3f0e8a52-6f1e-4c1d-9a43-0d2f1b7c5e11";
export const tags = ["Mail provider"];

export const MailPostmarkWebhook = z
  .object({
    customer_id: z.uuid().openapi({ description: "The customer whose URL this is.", example: customerId }),
    url: z.string().openapi({
      description: "The customer's webhook URL without its credentials (`url_with_credentials`, from the reveal operation, is the one to paste into Postmark).",
      example: `https://mail.example.com/api/postmark/webhook/${customerId}`,
    }),
    username: z.string().openapi({ description: "HTTP Basic user; Postmark's webhook `HttpAuth.Username`. Not a secret.", example: "postmark-3f0e8a52" }),
    password_state: CredentialState.openapi({
      description: "The HTTP Basic password as every role sees it: set, when it last changed (rotation) and by whom; never its value.",
    }),
    previous_password_valid_until: z.iso
      .datetime()
      .nullable()
      .openapi({ description: "After a rotation: until when the previous password is still accepted; null when only the current one is.", example: null }),
    rotated_at: z.iso.datetime().openapi({ description: "When the current password was made.", example: "2026-03-01T10:00:00.000Z" }),
    message_streams: z
      .array(z.string())
      .openapi({ description: "The customer's Postmark streams; add the webhook on each of them.", example: ["outbound", "broadcast"] }),
    record_types: z
      .array(z.string())
      .openapi({ description: "The webhook triggers to enable.", example: ["Delivery", "Bounce", "SpamComplaint", "Open", "Click", "SubscriptionChange"] }),
    allowed_ips: z.array(z.string()).openapi({ description: "The optional IP allow-list (`POSTMARK_WEBHOOK_ALLOWED_IPS`); empty = no IP check.", example: [] }),
  })
  .openapi("MailPostmarkWebhook");

/** The setup with its secret: only the reveal and rotate operations (admin) answer it. */
export const MailPostmarkWebhookSecret = MailPostmarkWebhook.extend({
  url_with_credentials: z.string().openapi({
    description: "The exact URL to paste into the webhook settings of the customer's Postmark server, its credentials included. A secret.",
    example: `https://postmark-3f0e8a52:3q2-7wEjkL0sXy_1bZ9a8VtR4mN6pQ0c@mail.example.com/api/postmark/webhook/${customerId}`,
  }),
  password: z.string().openapi({
    description:
      "HTTP Basic password (also in `url_with_credentials`); Postmark's webhook `HttpAuth.Password`. Random, sealed at rest, this customer's only. A secret.",
    example: "3q2-7wEjkL0sXy_1bZ9a8VtR4mN6pQ0c",
  }),
}).openapi("MailPostmarkWebhookSecret");

export const RotateBody = z
  .object({
    grace_seconds: z
      .int()
      .min(0)
      .max(ROTATION_GRACE_SECONDS.max)
      .default(ROTATION_GRACE_SECONDS.default)
      .openapi({
        description: `How long the previous password keeps working, 0–${ROTATION_GRACE_SECONDS.max} seconds (default ${ROTATION_GRACE_SECONDS.default}, one day). 0 ends it at once.`,
        example: 86400,
      }),
  })
  .openapi("MailPostmarkWebhookRotation");

export const about =
  "Postmark does not sign webhooks; our receiver authenticates each event with HTTP Basic credentials written into the webhook URL (constant-time comparison, optional IP allow-list). Every customer has its own URL, `/api/postmark/webhook/{customer_id}`, with its own random credentials (made on first use, the password sealed at rest): one customer's credentials on another customer's URL answer 401, and there is no shared URL (`POST /api/postmark/webhook` answers 404). Events are attributed to the URL's customer only, by our message id in `Metadata`, else by Postmark's `MessageID` stored at send time; reactivations and manual suppressions, which carry neither, belong to the URL's customer. Add one webhook per stream of the customer's Postmark server with the listed triggers. Embedded mode registers it with the simulator itself.";

/** Who may see what: the setup for every role, the password for admins through one audited operation. */
export const secretsNote =
  "The password is a credential (whoever holds it can post forged provider events for this customer): every role reads the setup without it; an admin reads it with `POST /v1/customers/{id}/mail/postmark-webhook/reveal`, which the audit log records as a secret read.";

/** The setup as every role reads it: the password's state from the audit log (rotations), never its value. */
export async function webhookView<T extends { customer_id: string }>(db: Database, setup: T) {
  const password_state = await credentialState(db, setup.customer_id, { set: true, operationIds: ["rotateCustomerPostmarkWebhookPassword"] });
  return { ...setup, password_state };
}
