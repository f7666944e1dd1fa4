import type { IncomingMessage } from "node:http";
import type { Http2ServerRequest } from "node:http2";

/**
 * Under @hono/node-server the Node request is in `c.env`; a `drop` fault needs its socket. When the app is
 * called through plain `fetch` (tests, the postmark client's `fetch` option) there is no socket.
 */
type SimulatorBindings = { incoming?: IncomingMessage | Http2ServerRequest };
export type SimulatorEnv = { Bindings: SimulatorBindings };

/** Responses whose connection was dropped; `PostmarkSimulator.fetch` turns them into a rejected promise. */
export const droppedResponses = new WeakSet<Response>();
