// The Vercel function for /mail/v1/* (but its image route, see api/media.js). Plain ESM on purpose: it imports
// the bundle `npm run build` makes of lib/functions/mail.ts (Node's ESM loader needs file extensions, which the
// TypeScript sources leave out; see README "Deploy"), which builds the mail app alone.
import { handler } from "../dist/functions/mail.js";

export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE, handler as HEAD, handler as OPTIONS };
