import type { Context } from "hono";

/** Under @hono/node-server the Node request is in `c.env`; on Vercel (fetch handler) there is none. */
type NodeBindings = { incoming?: { socket?: { remoteAddress?: string } } } | undefined;

/**
 * The address a request came from: the socket's peer on a Node server; behind the platform's proxy
 * (Vercel overwrites the header, so a client cannot forge it there) the first `X-Forwarded-For` entry.
 */
export function clientAddress(c: Context): string | null {
  const socket = (c.env as NodeBindings)?.incoming?.socket?.remoteAddress;
  if (socket) return socket;
  return c.req.header("x-forwarded-for")?.split(",")[0]?.trim() || null;
}
