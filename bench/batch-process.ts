import { bootRuntime } from "../lib/bootstrap";
import type { PublishOptions, QueueBody } from "../lib/adapters/queue/queue";

/**
 * The queue's side of production's topology for `bench/scale.ts` (`SCALE_TOPOLOGY=split`): a process of its
 * own, on the same database, that runs the send jobs' batches and reconciliations, as the queue function's
 * instances do on Vercel while the mail function answers requests. The serving process hands it what it
 * publishes on those topics (over the IPC channel, in place of QStash); what a batch publishes next (the
 * lane's following batch) goes to this process's own queue, with the same flow control per customer.
 */

type Published = { topic: string; body: QueueBody; options?: PublishOptions };

const runtime = await bootRuntime({ ...process.env });
process.on("message", (message: Published) => {
  runtime.deps.queue.publish(message.topic, message.body, message.options).catch((error: unknown) => {
    process.stderr.write(`batch process: publish failed: ${String(error)}\n`);
  });
});
process.once("disconnect", () => {
  void runtime.close().finally(() => process.exit(0));
});
process.send?.({ ready: true });
