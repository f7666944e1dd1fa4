// The Vercel function for /console and /console/* (the operator console; its API calls go to the admin API in
// the same runtime). Plain ESM over the bundle of lib/functions/console.ts; see api/mail.js.
import { handler } from "../dist/functions/console.js";

export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE, handler as HEAD, handler as OPTIONS };
