// The Vercel function for /api/queue/* (QStash deliveries, POST with Upstash-Signature). Plain ESM over the
// bundle of lib/functions/internal.ts; see api/mail.js.
import { handler } from "../dist/functions/internal.js";

export { handler as POST };
