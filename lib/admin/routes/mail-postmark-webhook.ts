import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, CoreDeps } from "../../core/context";
import { envelope, errorResponses } from "../../core/openapi";
import { postmarkWebhookSetup } from "../../mail/events/webhook-setup";
import { requireCustomer } from "./mail-customer";
import { json, security } from "./mail-schema";

const customerId = "3f0e8a52-6f1e-4c1d-9a43-0d2f1b7c5e11";

export const MailPostmarkWebhook = z
  .object({
    url: z
      .string()
      .nullable()
      .openapi({ description: "The exact URL to paste into Postmark (credentials included); null while the deployment has no receiver credentials.", example: `https://postmark:s3cr3t@mail.example.com/api/postmark/webhook/${customerId}` }),
    configured: z.boolean().openapi({ description: "Whether the receiver has credentials; without them it refuses every event.", example: true }),
    username: z.string().nullable().openapi({ description: "HTTP Basic user (also in `url`); Postmark's webhook `HttpAuth.Username`.", example: "postmark" }),
    password: z.string().nullable().openapi({ description: "HTTP Basic password (also in `url`); Postmark's webhook `HttpAuth.Password`.", example: "s3cr3t" }),
    customer_id: z.uuid().nullable().openapi({ description: "The customer whose URL this is, or null for the shared URL.", example: customerId }),
    attribution: z
      .enum(["customer_url", "message_metadata"])
      .openapi({ description: "`customer_url`: every event is attributed to the customer of the URL. `message_metadata`: only events carrying our message id in `Metadata` can be attributed.", example: "customer_url" }),
    message_streams: z.array(z.string()).openapi({ description: "The customer's Postmark streams; add the webhook on each of them.", example: ["outbound", "broadcast"] }),
    record_types: z.array(z.string()).openapi({ description: "The webhook triggers to enable.", example: ["Delivery", "Bounce", "SpamComplaint", "Open", "Click", "SubscriptionChange"] }),
    allowed_ips: z.array(z.string()).openapi({ description: "The optional IP allow-list (`POSTMARK_WEBHOOK_ALLOWED_IPS`); empty = no IP check.", example: [] }),
  })
  .openapi("MailPostmarkWebhook");

export function registerMailPostmarkWebhookRoutes(router: OpenAPIHono<AppEnv>, deps: CoreDeps): void {
  router.openapi(
    createRoute({
      method: "get",
      path: "/v1/mail/postmark-webhook",
      tags: ["Mail provider"],
      summary: "The Postmark webhook URL to configure",
      description:
        "Postmark does not sign webhooks; our receiver authenticates it with HTTP Basic credentials in the URL (constant-time comparison, optional IP allow-list). Pass `customer_id` to get that customer's own URL, `/api/postmark/webhook/{customer_id}`: recommended, because reactivations and manual suppressions arrive without a message id (only the stream and Postmark's server id) and the URL is then the only reliable way to know whose they are. Add one webhook per stream of the customer's Postmark server with the listed triggers. Without `customer_id` the answer is the shared URL, which attributes events through `Metadata.message_id` only and ignores the rest (the embedded simulator uses it). Embedded mode generates the credentials on first start under DATA_DIR; production sets `POSTMARK_WEBHOOK_USERNAME` and `POSTMARK_WEBHOOK_PASSWORD`. An unknown customer answers 404.",
      security,
      request: {
        query: z.object({
          customer_id: z.uuid().optional().openapi({ description: "The customer whose URL to show.", example: customerId }),
        }),
      },
      responses: { 200: { description: "The webhook URL and settings.", content: json(envelope(MailPostmarkWebhook)) }, ...errorResponses("admin", [401, 404, 422]) },
    }),
    async (c) => {
      const id = c.req.valid("query").customer_id;
      if (id) await requireCustomer(deps.db, id);
      return c.json({ data: await postmarkWebhookSetup(deps, id ?? null), request_id: c.get("requestId") }, 200);
    },
  );
}
