// The Vercel function for /admin/v1/*. Plain ESM on purpose: it imports the one bundle `npm run build` makes of
// lib/vercel.ts (Node's ESM loader needs file extensions, which the TypeScript sources leave out; see README "Deploy").
import { functionHandler } from "../dist/functions/vercel.js";

const handler = functionHandler("admin");
export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE, handler as HEAD, handler as OPTIONS };
