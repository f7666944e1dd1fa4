// The Vercel function for /admin/v1/* (but the template draft preview, see api/media.js). Plain ESM over the
// bundle of lib/functions/admin.ts, which builds the admin app alone; see api/mail.js.
import { handler } from "../dist/functions/admin.js";

export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE, handler as HEAD, handler as OPTIONS };
