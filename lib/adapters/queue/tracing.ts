import type { Context } from "@opentelemetry/api";
import { type Attributes, inSpan, outsideRequest, SpanKind, traceCarrier } from "../../base/tracing";
import type { QueueBody } from "./queue";

/**
 * Queue spans (OpenTelemetry messaging conventions): a producer span per publish whose W3C trace context
 * travels with the message (QStash: forwarded headers; in process: kept beside the body), and a consumer span
 * per delivery, its child, so one send job is one trace from the API call to its last batch. The ids in a
 * message body (`job_id`, `customer_id`, …) become `app.<key>` attributes: searchable, never personal data.
 */
export function publishSpan(
  system: "local" | "qstash",
  topic: string,
  body: QueueBody,
  send: (carrier: Record<string, string>) => Promise<void>,
): Promise<void> {
  return inSpan(
    `publish ${topic}`,
    { kind: SpanKind.PRODUCER, attributes: { ...messageAttributes(system, topic, body), "messaging.operation.type": "send" } },
    () => send(traceCarrier()),
  );
}

export function processSpan(
  system: "local" | "qstash",
  topic: string,
  body: QueueBody,
  attempt: number,
  parent: Context | undefined,
  run: () => Promise<void>,
): Promise<void> {
  return outsideRequest(() =>
    inSpan(
      `process ${topic}`,
      {
        kind: SpanKind.CONSUMER,
        parent,
        attributes: { ...messageAttributes(system, topic, body), "messaging.operation.type": "process", "messaging.message.delivery_attempt": attempt },
      },
      run,
    ),
  );
}

function messageAttributes(system: string, topic: string, body: QueueBody): Attributes {
  const attributes: Attributes = { "messaging.system": system, "messaging.destination.name": topic };
  for (const [key, value] of Object.entries(body)) {
    if (key.endsWith("_id") && typeof value === "string" && value.length <= 64) attributes[`app.${key}`] = value;
    else if ((key === "run" || key === "batch") && typeof value === "number") attributes[`app.${key}`] = value;
  }
  return attributes;
}
