// The Vercel function for /ads/v1/* (but its image routes, see api/media.js). Plain ESM over the bundle of
// lib/functions/ads.ts, which builds the ads app alone; see api/mail.js.
import { handler } from "../dist/functions/ads.js";

export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE, handler as HEAD, handler as OPTIONS };
