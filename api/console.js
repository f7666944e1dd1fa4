// The Vercel function for /console and /console/* (the operator console; its API calls go to the admin API in
// the same runtime). Plain ESM on purpose, like the other entries: it imports the bundle `npm run build` makes.
import { functionHandler } from "../dist/functions/vercel.js";

const handler = functionHandler("console");
export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE, handler as HEAD, handler as OPTIONS };
