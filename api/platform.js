// The Vercel function for /api/platform/* (the ad platform's webhooks: GET handshake, POST change hints).
// Plain ESM over the bundle of lib/functions/internal.ts; see api/mail.js.
import { handler } from "../dist/functions/internal.js";

export { handler as GET, handler as POST };
